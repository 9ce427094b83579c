// `ods state copy`: move a scope's state (or every scope's) between state stores.
#include <iostream>

#include "commands.h"
#include "flag_names.h"
#include "ods/state/stores.h"
#include "state_access.h"

namespace ods::cli {

int cmd_copy(const ParsedArgs& args, CommandContext& ctx) {
  if (!args.has(kFlagTo))
    return report(ctx, {"usage", "usage: ods state copy [--from URL] --to URL [--scope S | --all]"});
  const std::string from_url = args.has(kFlagFrom) ? args.get(kFlagFrom) : ctx.state_url;
  const std::string to_url = args.get(kFlagTo);
  if (args.has(kFlagScope) && args.has(kFlagAll)) return report(ctx, {"usage", "give --scope or --all, not both"});
  auto from = open_store_at(ctx, from_url, false);
  if (!from) return report(ctx, from.error());
  std::vector<std::string> scopes;
  if (args.has(kFlagAll)) {
    auto all = (*from)->scopes();
    if (!all) return report(ctx, all.error());
    scopes = *all;
  } else if (args.has(kFlagScope)) {
    // PROJECT/TARGET, both non-empty: any other text names no scope, and copying it would
    // report success with nothing copied.
    const std::string& scope = args.get(kFlagScope);
    const auto slash = scope.find('/');
    if (slash == 0 || slash == std::string::npos || slash + 1 == scope.size()) {
      return report(ctx, {"usage", "--scope must be PROJECT/TARGET (e.g. shop/default), not '" + scope + "'"});
    }
    scopes.push_back(scope);
  } else {
    auto scope = scope_for(ctx);
    if (!scope) return report(ctx, {"usage", scope.error().message + " (or name the scope with --scope, or --all)"});
    scopes.push_back(*scope);
  }
  auto to = open_store_at(ctx, to_url, true);
  if (!to) return report(ctx, to.error());
  auto copied = state::copy_state(**from, **to, scopes, args.has(kFlagReplace));
  if (!copied) return report(ctx, copied.error());
  *ctx.out << "Copied " << copied->scopes << " scope" << (copied->scopes == 1 ? "" : "s") << " (" << copied->snapshots
           << " snapshots, " << copied->runs << " ledger entries) from " << redact_url(from_url) << " to "
           << redact_url(to_url) << ".\n";
  return kExitOk;
}

}  // namespace ods::cli
