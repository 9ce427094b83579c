#pragma once
// What the callback server asks the operator about a run a pod reports for. The operator
// implements it from the DbtRun resource (and its DbtProject); tests with a map.
#include <optional>
#include <string>

#include "ods/base/result.h"

namespace ods::callback {

struct RunInfo {
  std::string uid;      // metadata.uid of the DbtRun: the run's identity, part of its token
  std::string project;  // the dbt project's name (dbt_project.yml `name:`) the run must report
  std::string target;   // the dbt target the run builds ("" for the profile's default)
  std::string scope;    // the state scope it records into, normally planner::scope_of(project, target)
};

class RunLookup {
 public:
  virtual ~RunLookup() = default;

  // The run `namespace/name`, or nullopt when there is no such run (the server answers 404).
  // Errors: any code when the answer isn't known now (e.g. the API server is unreachable);
  // the server then answers 503 and the pod retries. Called from the server's request
  // threads, possibly several at once: must be thread-safe. Should answer from a cache.
  [[nodiscard]] virtual Result<std::optional<RunInfo>> find(const std::string& ns, const std::string& name) = 0;
};

}  // namespace ods::callback
