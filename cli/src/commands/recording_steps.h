#pragma once
// The steps `ods state run` and `ods state test` share when they record what dbt did: the
// report when dbt left nothing to record, the run ledger entry, and dbt's failure after the
// summary.
#include <string>

#include "context.h"
#include "ods/contracts/state_store.h"
#include "ods/dbt/dbt_command.h"

namespace ods::cli {

// dbt's artifacts of the run could not be loaded (`error`). When dbt itself failed, prints
// "ods: <failed_early> (exit code N)", dbt's error text and "nothing recorded; the state is as
// it was", and returns kExitFailed; otherwise reports `error`.
int report_nothing_recorded(const CommandContext& ctx, const dbt::DbtCommandResult& dbt,
                            const std::string& failed_early, const Error& error);

// The commit of what dbt did failed (`error`, from commit_outcome): the error to report, "<what>
// ran but was not recorded: <why>", then what follows: `newer` ("the next run plans against the
// newer state") only when another writer's state is the newer one (a lost race: "conflict",
// "stale_run"); otherwise that the state is as it was before.
Error not_recorded(const Error& error, const std::string& what, const std::string& newer);

// Appends the run ledger entry; a refusal is a warning on stderr, never a failed command.
void append_ledger_entry(const CommandContext& ctx, contracts::StateStore& store, const contracts::RunRecord& entry);

// After the summary: kExitOk when dbt succeeded; otherwise prints dbt's error text and
// "ods: <failed_line>" and returns kExitFailed.
int finish_after_dbt(const CommandContext& ctx, const dbt::DbtCommandResult& dbt, const std::string& failed_line);

}  // namespace ods::cli
