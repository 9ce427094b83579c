#include "recording_steps.h"

#include <iostream>

#include "commands.h"

namespace ods::cli {

int report_nothing_recorded(const CommandContext& ctx, const dbt::DbtCommandResult& dbt,
                            const std::string& failed_early, const Error& error) {
  if (dbt.exit_code == 0) return report(ctx, error);
  *ctx.err << "ods: " << failed_early << " (exit code " << dbt.exit_code << ")";
  if (!dbt.error_text.empty()) *ctx.err << ":\n" << dbt.error_text;
  *ctx.err << "\nods: nothing recorded; the state is as it was\n";
  return kExitFailed;
}

void append_ledger_entry(const CommandContext& ctx, contracts::StateStore& store, const contracts::RunRecord& entry) {
  if (auto appended = store.append_run(entry); !appended)
    *ctx.err << "ods: warning: the run ledger entry wasn't written: " << appended.error().message << "\n";
}

Error not_recorded(const Error& error, const std::string& what, const std::string& newer) {
  const bool lost_race = error.code == "conflict" || error.code == "stale_run";
  return {error.code, what + " ran but was not recorded: " + error.message + "; " +
                          (lost_race ? newer : "the recorded state is as it was before this run")};
}

int finish_after_dbt(const CommandContext& ctx, const dbt::DbtCommandResult& dbt, const std::string& failed_line) {
  if (dbt.exit_code == 0) return kExitOk;
  if (!dbt.error_text.empty()) *ctx.err << "ods: dbt reported:\n" << dbt.error_text << "\n";
  *ctx.err << "ods: " << failed_line << "\n";
  return kExitFailed;
}

}  // namespace ods::cli
