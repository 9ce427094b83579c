#pragma once
// A new SQLite state database filled row by row, keeping snapshot ids, parents, commit
// times and the ledger as they are: the backup format of stores other than SQLite (a
// backup of a PostgreSQL store opens with `--state sqlite:FILE`). Internal to providers/state.
#include <memory>
#include <string>

#include "ods/base/clock.h"
#include "ods/base/result.h"
#include "ods/contracts/state_store.h"
#include "sqlite_connection.h"

namespace ods::state::internal {

class SqliteImport {
 public:
  // Creates `path` (and its directory) with the current SQLite schema and begins one
  // transaction. Errors: "io" when `path` exists and is not empty (never overwritten).
  [[nodiscard]] static ods::Result<std::unique_ptr<SqliteImport>> create(const std::string& path, const Clock& clock);
  // Removes the file unless finish() succeeded.
  ~SqliteImport();

  // Snapshots in commit order (a parent before its child).
  [[nodiscard]] ods::Result<void> add_snapshot(const ods::contracts::StoredSnapshot& snapshot);
  [[nodiscard]] ods::Result<void> set_head(const std::string& scope, const std::string& snapshot_id);
  // Ledger entries oldest first.
  [[nodiscard]] ods::Result<void> add_run(const ods::contracts::RunRecord& run);
  // Commits; the file is then a complete SQLite state database.
  [[nodiscard]] ods::Result<void> finish();

 private:
  SqliteImport(Connection connection, std::string path) : connection_(std::move(connection)), path_(std::move(path)) {}
  Connection connection_;
  std::string path_;
  bool finished_ = false;
};

}  // namespace ods::state::internal
