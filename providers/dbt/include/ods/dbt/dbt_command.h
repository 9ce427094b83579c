#pragma once
// How the dbt provider runs a dbt command: injected (the runner implements it over a child
// process; tests use a fake), so the provider never starts processes itself.
#include <string>
#include <vector>

#include "ods/base/result.h"

namespace ods::dbt {

struct DbtCommandResult {
  int exit_code = 0;
  bool interrupted = false;         // stopped by SIGINT/SIGTERM forwarded to dbt
  std::vector<std::string> events;  // dbt's JSON log lines (--log-format json), in order
  std::string error_text;           // what dbt said went wrong (error-level messages, stderr tail)
  double seconds = 0;               // wall time of the call, as the runner measured it
  // Wall time from the first node's start to the last node's result, as their events arrived;
  // 0 when no node ran. seconds - node_seconds is what the call cost besides its nodes (dbt's
  // start, its parse, hooks, writing artifacts): what one more call of the kind costs.
  double node_seconds = 0;
  // info.invocation_id of dbt's first log event that carries one: the id in the metadata of the
  // artifacts the command wrote (run_results.json). "" when no event carried one.
  std::string invocation_id;
};

class DbtCommand {
 public:
  virtual ~DbtCommand() = default;
  // Runs `dbt <args>` in the project with JSON logs and returns what it printed. Errors:
  // "dbt_not_found" (no dbt binary), "spawn_failed". A dbt that ran and failed is a
  // success here with a non-zero exit_code. Blocks until dbt exits.
  [[nodiscard]] virtual ods::Result<DbtCommandResult> run(const std::vector<std::string>& args) = 0;
};

}  // namespace ods::dbt
