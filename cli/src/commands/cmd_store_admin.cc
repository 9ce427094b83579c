// `ods state history`, `doctor`, `backup`, `reset`: the state store itself.
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "commands.h"
#include "flag_names.h"
#include "ods/run/run_details.h"
#include "state_access.h"

namespace ods::cli {

int cmd_history(const ParsedArgs& args, CommandContext& ctx) {
  std::size_t limit = 20;
  if (args.has(kFlagLimit)) {
    // Digits only: stoul alone takes "-1" (as the largest number) and "12abc" (as 12).
    const std::string& text = args.get(kFlagLimit);
    try {
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) throw std::invalid_argument(text);
      limit = std::stoul(text);
    } catch (...) {
      return report(ctx, {"usage", "--limit must be a number, not '" + text + "'"});
    }
  }
  auto scope = scope_for(ctx);
  if (!scope) return report(ctx, scope.error());
  auto store = open_store(ctx, false, /*read_only=*/true);  // reads only: works on a file it can't write
  if (!store) return report(ctx, without_state(store.error()));
  if (auto project = project_name(ctx); project) {
    auto settled = settle_scope(ctx, **store, *project, *scope, /*records=*/false);
    if (!settled) return report(ctx, settled.error());
    scope = *settled;
  }
  auto snapshots = (*store)->history(*scope, limit);
  if (!snapshots) return report(ctx, snapshots.error());
  auto runs = (*store)->runs(*scope, limit);
  if (!runs) return report(ctx, runs.error());
  if (ctx.format == "json") {
    nlohmann::json doc{{"scope", *scope}, {"snapshots", nlohmann::json::array()}, {"runs", nlohmann::json::array()}};
    for (const auto& s : *snapshots)
      doc["snapshots"].push_back({{"id", s.id},
                                  {"run_id", s.run_id},
                                  {"committed_at", s.committed_at},
                                  {"parent", s.parent ? nlohmann::json(*s.parent) : nlohmann::json(nullptr)}});
    for (const auto& r : *runs)
      doc["runs"].push_back({{"run_id", r.run_id},
                             {"outcome", r.outcome},
                             {"started_at", r.started_at},
                             {"finished_at", r.finished_at},
                             {"details", nlohmann::json::parse(r.details.empty() ? "{}" : r.details, nullptr, false)}});
    *ctx.out << doc.dump(2) << "\n";
    return kExitOk;
  }
  if (snapshots->empty()) {
    *ctx.out << "No state recorded yet for " << *scope << ".\n";
    return kExitOk;
  }
  *ctx.out << "Snapshots of " << *scope << " (newest first):\n";
  for (const auto& s : *snapshots)
    *ctx.out << "  " << s.committed_at << "  snapshot " << s.id << "  run " << s.run_id << "\n";
  if (!runs->empty()) {
    *ctx.out << "\nRuns:\n";
    for (const auto& r : *runs) {
      const std::string summary = run::details_from_json(r.details).summary_line();
      *ctx.out << "  " << r.started_at << "  " << r.run_id << "  " << r.outcome;
      if (!summary.empty()) *ctx.out << "  " << summary;
      *ctx.out << "\n";
    }
  }
  return kExitOk;
}

int cmd_doctor(const ParsedArgs&, CommandContext& ctx) {
  auto store = open_store(ctx, false, /*read_only=*/true);  // reads only: works on a file it can't write
  if (!store) {
    if (store.error().code == "not_found") {
      *ctx.out << "No state database at " << redact_url(ctx.state_url) << "; nothing to check.\n";
      return kExitOk;
    }
    return report(ctx, store.error());
  }
  auto check = (*store)->check();
  if (!check) return report(ctx, check.error());
  bool ok = check->ok;
  *ctx.out << "state store " << redact_url(ctx.state_url) << " (schema " << check->schema_version << ")\n";
  for (const auto& p : check->problems) *ctx.out << "  problem: " << p << "\n";
  if (auto scope = scope_for(ctx); scope && project_name(ctx)) {
    auto settled = settle_scope(ctx, **store, *project_name(ctx), *scope, /*records=*/false);
    if (settled) scope = *settled;
    auto head = read_head(**store, *scope);
    if (!head) {
      ok = false;
      *ctx.out << "  problem: " << head.error().message << "\n";
    } else if (*head) {
      *ctx.out << "  " << *scope << ": snapshot " << (*head)->stored.id << " from run " << (*head)->snapshot.run_id
               << ", " << (*head)->snapshot.nodes.size() << " nodes\n";
    } else {
      *ctx.out << "  " << *scope << ": no state recorded\n";
    }
  }
  *ctx.out << (ok ? "ok\n" : "damaged: restore a backup (ods state backup) or start over (ods state reset --yes)\n");
  return ok ? kExitOk : kExitFailed;
}

int cmd_backup(const ParsedArgs& args, CommandContext& ctx) {
  if (args.positionals.size() != 1) return report(ctx, {"usage", "usage: ods state backup FILE"});
  auto store = open_store(ctx, false);
  if (!store) return report(ctx, store.error());
  auto done = (*store)->backup(args.positionals[0]);
  if (!done) return report(ctx, done.error());
  *ctx.out << "Backed up " << redact_url(ctx.state_url) << " to " << args.positionals[0] << "\n";
  return kExitOk;
}

int cmd_reset(const ParsedArgs& args, CommandContext& ctx) {
  auto scope = scope_for(ctx);
  if (!scope) return report(ctx, scope.error());
  if (!args.has(kFlagYes)) {
    return report(ctx, {"usage", "ods state reset deletes every snapshot and run of " + *scope +
                                     "; run it again with --yes to confirm (ods state backup FILE keeps a copy)"});
  }
  auto store = open_store(ctx, false);
  if (!store) {
    if (store.error().code == "not_found") {
      *ctx.out << "No state database; nothing to reset.\n";
      return kExitOk;
    }
    return report(ctx, store.error());
  }
  auto removed = (*store)->reset(*scope);
  if (!removed) return report(ctx, removed.error());
  *ctx.out << "Reset " << *scope << ": " << *removed << " snapshots removed.\n";
  return kExitOk;
}

}  // namespace ods::cli
