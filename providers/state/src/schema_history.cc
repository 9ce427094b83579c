#include "schema_history.h"

namespace ods::state::internal {

ods::Result<int> recorded_schema_version(const std::vector<AppliedMigration>& applied,
                                         const std::vector<Migration>& migrations, const std::string& database,
                                         const std::string& untouched) {
  const int known = migrations.empty() ? 0 : migrations.back().version;
  for (std::size_t i = 0; i < applied.size(); ++i) {
    const AppliedMigration& entry = applied[i];
    if (entry.version > known) {
      return ods::fail("newer_schema", database + " has schema version " + std::to_string(applied.back().version) +
                                           ", newer than this ODS knows (up to " + std::to_string(known) +
                                           "). Use the newer ODS that wrote it; " + untouched);
    }
    if (entry.version != static_cast<int>(i) + 1 || migrations[i].name != entry.name) {
      return ods::fail("corrupt", database + " records migration " + std::to_string(entry.version) + " '" + entry.name +
                                      "', which this ODS does not know at that place in its history; " + untouched);
    }
  }
  return applied.empty() ? 0 : applied.back().version;
}

}  // namespace ods::state::internal
