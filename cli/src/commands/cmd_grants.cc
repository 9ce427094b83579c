// `ods state grants ROLE`: the SQL that makes ROLE a read-only credential of the PostgreSQL
// state (a pull request's plan; docs/security.md). Prints it; applies nothing.
#include <iostream>

#include "commands.h"
#include "ods/state/postgres_access.h"
#include "ods/state/store_url.h"

namespace ods::cli {

int cmd_grants(const ParsedArgs& args, CommandContext& ctx) {
  if (args.positionals.size() != 1 || args.positionals[0].empty())
    return report(ctx, {"usage", "usage: ods state grants ROLE (the role a pull request's plan logs in as)"});
  if (state::parse_store_url(ctx.state_url).kind != state::StoreUrl::Kind::postgresql)
    return report(ctx, {"usage", "ods state grants is for a PostgreSQL state store; the state store is " +
                                     redact_url(ctx.state_url) +
                                     " (give the writer's postgresql:// URL with --state or ODS_STATE)"});
  auto sql = state::postgres_read_only_grants(ctx.state_url, args.positionals[0]);
  if (!sql)
    return report(ctx, {sql.error().code, "state store " + redact_url(ctx.state_url) + ": " + sql.error().message});
  *ctx.out << *sql;
  return kExitOk;
}

}  // namespace ods::cli
