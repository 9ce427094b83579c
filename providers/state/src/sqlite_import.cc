#include "sqlite_import.h"

#include <filesystem>

#include "sqlite_migrations.h"
#include "store_support.h"

namespace ods::state::internal {

ods::Result<std::unique_ptr<SqliteImport>> SqliteImport::create(const std::string& path, const Clock& clock) {
  std::error_code error;
  if (std::filesystem::exists(path, error) && std::filesystem::file_size(path, error) != 0) {
    return ods::fail("io", "Refusing to write a backup to " + path + ": that file exists and is not empty.");
  }
  if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty()) {
    std::filesystem::create_directories(parent, error);
    if (error) return ods::fail("io", "Cannot create directory " + parent.string() + ": " + error.message() + ".");
  }
  auto connection = Connection::open(path, /*create=*/true, std::chrono::milliseconds(5000));
  if (!connection) return std::unexpected(connection.error());
  std::unique_ptr<SqliteImport> import(new SqliteImport(std::move(*connection), path));
  auto migrated = migrate(import->connection_, builtin_migrations(), clock, OpenOptions{});
  if (!migrated) return std::unexpected(migrated.error());
  if (auto begun = import->connection_.exec("BEGIN IMMEDIATE", "writing the backup"); !begun) {
    return std::unexpected(begun.error());
  }
  return import;
}

SqliteImport::~SqliteImport() {
  if (finished_) return;
  (void)connection_.exec("ROLLBACK", "abandoning the backup");
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
  std::filesystem::remove(path_ + "-journal", ignored);
}

ods::Result<void> SqliteImport::add_snapshot(const ods::contracts::StoredSnapshot& snapshot) {
  constexpr std::string_view kWhat = "writing a snapshot to the backup";
  auto document = connection_.prepare(
      "INSERT INTO documents (digest, body) VALUES (?1, ?2) ON CONFLICT (digest) DO NOTHING", kWhat);
  if (!document) return std::unexpected(document.error());
  const std::string digest = content_digest(snapshot.document);
  if (auto done = document->bind(1, digest).bind(2, snapshot.document).run(kWhat); !done) return done;
  auto insert = connection_.prepare(
      "INSERT INTO snapshots (id, scope, parent_id, run_id, committed_at, document_id)"
      " SELECT ?1, ?2, ?3, ?4, ?5, id FROM documents WHERE digest = ?6",
      kWhat);
  if (!insert) return std::unexpected(insert.error());
  insert->bind(1, snapshot.id).bind(2, snapshot.scope).bind_nullable(3, snapshot.parent).bind(4, snapshot.run_id);
  return insert->bind(5, snapshot.committed_at).bind(6, digest).run(kWhat);
}

ods::Result<void> SqliteImport::set_head(const std::string& scope, const std::string& snapshot_id) {
  auto insert = connection_.prepare("INSERT INTO heads (scope, snapshot_id) VALUES (?1, ?2)", "writing a head");
  if (!insert) return std::unexpected(insert.error());
  return insert->bind(1, scope).bind(2, snapshot_id).run("writing a head");
}

ods::Result<void> SqliteImport::add_run(const ods::contracts::RunRecord& run) {
  constexpr std::string_view kWhat = "writing a run to the backup";
  auto insert = connection_.prepare(
      "INSERT INTO runs (scope, run_id, started_at, finished_at, outcome, inputs_digest, plan, details, snapshot_id)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
      kWhat);
  if (!insert) return std::unexpected(insert.error());
  insert->bind(1, run.scope).bind(2, run.run_id).bind(3, run.started_at).bind(4, run.finished_at);
  insert->bind(5, run.outcome).bind(6, run.inputs_digest).bind(7, run.plan).bind(8, run.details);
  return insert->bind_nullable(9, run.snapshot_id).run(kWhat);
}

ods::Result<void> SqliteImport::finish() {
  auto done = connection_.exec("COMMIT", "finishing the backup");
  if (done) finished_ = true;
  return done;
}

}  // namespace ods::state::internal
