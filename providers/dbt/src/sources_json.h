#pragma once
// dbt's sources.json (schema v3, `dbt source freshness`): max_loaded_at per source.
#include <filesystem>
#include <map>
#include <string>

#include "ods/base/result.h"

namespace ods::dbt::internal {

struct SourceFreshnessResult {
  std::string max_loaded_at;   // as written; "" when absent (e.g. a runtime error)
  std::string snapshotted_at;  // as written
  std::string status;          // "pass", "warn", "error", "runtime error"
  std::string error;           // the failure message, when there was one
};

struct SourcesJson {
  std::string file;
  std::map<std::string, SourceFreshnessResult> results;  // by source unique_id
};

// Reads sources.json. Errors: "missing_artifact", "unsupported_schema" (not sources v3,
// naming the version found), "invalid_artifact" (not JSON or a field of the wrong type,
// naming the field). Thread-safe.
[[nodiscard]] Result<SourcesJson> read_sources_json(const std::filesystem::path& path);

}  // namespace ods::dbt::internal
