#include "sqlite_migrations.h"

#include <filesystem>
#include <utility>

namespace ods::state::internal {
namespace {

// Version 1: snapshots reference their document by content digest, so identical documents
// are stored once; a later migration can split documents further (per node) without
// touching snapshots. `heads` holds each scope's current snapshot: commit is a
// compare-and-swap on it. The unique index on parent_id keeps each scope a single chain.
constexpr char kInitialSchema[] = R"sql(
CREATE TABLE documents (
  id     INTEGER PRIMARY KEY,
  digest TEXT NOT NULL UNIQUE,  -- "sha256:<hex>" of body
  body   TEXT NOT NULL          -- the snapshot JSON, exactly as committed
);
CREATE TABLE snapshots (
  seq          INTEGER PRIMARY KEY,  -- commit order
  id           TEXT NOT NULL UNIQUE,
  scope        TEXT NOT NULL,
  parent_id    TEXT REFERENCES snapshots (id),
  run_id       TEXT NOT NULL,
  committed_at TEXT NOT NULL,
  document_id  INTEGER NOT NULL REFERENCES documents (id)
);
CREATE INDEX snapshots_by_scope ON snapshots (scope, seq);
CREATE INDEX snapshots_by_run ON snapshots (scope, run_id);
CREATE INDEX snapshots_by_document ON snapshots (document_id);
CREATE UNIQUE INDEX snapshots_one_child ON snapshots (parent_id);
CREATE TABLE heads (
  scope       TEXT PRIMARY KEY,
  snapshot_id TEXT NOT NULL REFERENCES snapshots (id)
);
CREATE TABLE runs (
  seq           INTEGER PRIMARY KEY,  -- ledger order
  scope         TEXT NOT NULL,
  run_id        TEXT NOT NULL,
  started_at    TEXT NOT NULL,
  finished_at   TEXT NOT NULL,
  outcome       TEXT NOT NULL,
  inputs_digest TEXT NOT NULL,
  plan          TEXT NOT NULL,
  details       TEXT NOT NULL,
  snapshot_id   TEXT,
  UNIQUE (scope, run_id)
);
CREATE INDEX runs_by_scope ON runs (scope, seq);
)sql";

// The migrations recorded in the database, in order. Reads only.
ods::Result<std::vector<AppliedMigration>> read_applied(Connection& connection) {
  auto tables = connection.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      "reading the schema");
  if (!tables) return std::unexpected(tables.error());
  bool has_record = false;
  std::vector<std::string> names;
  for (;;) {
    auto row = tables->step("reading the schema");
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    names.push_back(tables->text(0));
    if (names.back() == "schema_migrations") has_record = true;
  }
  if (!has_record) {
    if (names.empty()) return std::vector<AppliedMigration>();
    return ods::fail("corrupt", "SQLite database " + connection.path() + " holds tables (" + names.front() +
                                    ", …) but no schema_migrations record: it is not an ODS state database, or "
                                    "its record was lost. It was left untouched.");
  }
  auto rows =
      connection.prepare("SELECT version, name FROM schema_migrations ORDER BY version", "reading schema_migrations");
  if (!rows) return std::unexpected(rows.error());
  std::vector<AppliedMigration> applied;
  for (;;) {
    auto row = rows->step("reading schema_migrations");
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    applied.push_back({static_cast<int>(rows->integer(0)), rows->text(1)});
  }
  if (applied.empty()) {
    return ods::fail("corrupt", "SQLite database " + connection.path() +
                                    " has an empty schema_migrations table, so its schema version is unknown. "
                                    "It was left untouched.");
  }
  return applied;
}

// The schema version recorded, after checking the record against `migrations`.
ods::Result<int> recorded_version(Connection& connection, const std::vector<Migration>& migrations) {
  auto applied = read_applied(connection);
  if (!applied) return std::unexpected(applied.error());
  return recorded_schema_version(*applied, migrations, "State database " + connection.path(),
                                 "the file was left untouched.");
}

std::string free_backup_path(const std::string& path, int version) {
  const std::string base = path + ".bak-v" + std::to_string(version);
  std::string candidate = base;
  for (int n = 1; std::filesystem::exists(candidate); ++n) candidate = base + "." + std::to_string(n);
  return candidate;
}

}  // namespace

const std::vector<Migration>& builtin_migrations() {
  static const std::vector<Migration> kMigrations{
      {1, "initial_schema", kInitialSchema},
  };
  return kMigrations;
}

ods::Result<MigrationOutcome> check_current(Connection& connection, const std::vector<Migration>& migrations) {
  auto version = recorded_version(connection, migrations);
  if (!version) return std::unexpected(version.error());
  const int target = migrations.empty() ? 0 : migrations.back().version;
  if (*version == 0) return ods::fail("not_found", "State database " + connection.path() + " holds no ODS state yet.");
  if (*version < target) {
    return ods::fail("outdated_schema", "State database " + connection.path() + " has schema version " +
                                            std::to_string(*version) + ", older than this ODS's " +
                                            std::to_string(target) +
                                            "; it is only read here, so it was left as it is (a run that records "
                                            "migrates it, keeping a copy).");
  }
  return MigrationOutcome{*version, *version, {}};
}

ods::Result<MigrationOutcome> migrate(Connection& connection, const std::vector<Migration>& migrations,
                                      const Clock& clock, const OpenOptions& options) {
  auto before = recorded_version(connection, migrations);
  if (!before) return std::unexpected(before.error());
  MigrationOutcome outcome{*before, *before, {}};
  const int target = migrations.empty() ? 0 : migrations.back().version;
  if (*before == target) return outcome;

  if (*before > 0) {
    outcome.backup_path = free_backup_path(connection.path(), *before);
    auto copied = connection.copy_to(outcome.backup_path, "keeping a copy before migrating");
    if (!copied) return std::unexpected(copied.error());
    if (options.on_notice) {
      options.on_notice("Migrating state database " + connection.path() + " from schema version " +
                        std::to_string(*before) + " to " + std::to_string(target) + "; a copy of it was kept at " +
                        outcome.backup_path + ".");
    }
  }

  auto transaction = Transaction::begin(connection, Transaction::Kind::write, "migrating");
  if (!transaction) return std::unexpected(transaction.error());
  // Another process may have migrated while we were copying: decide again under the lock.
  auto current = recorded_version(connection, migrations);
  if (!current) return std::unexpected(current.error());
  auto created = connection.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations ("
      " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
      "recording migrations");
  if (!created) return std::unexpected(created.error());
  auto applied_all = apply_migrations_after(
      *current, migrations, "state database " + connection.path(),
      [&](const Migration& migration) {
        return connection.exec(migration.sql, "applying migration " + std::to_string(migration.version));
      },
      [&](const Migration& migration) -> ods::Result<void> {
        auto record = connection.prepare(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)", "recording migrations");
        if (!record) return std::unexpected(record.error());
        return record->bind(1, std::int64_t{migration.version})
            .bind(2, migration.name)
            .bind(3, format_iso8601(clock.now()))
            .run("recording migrations");
      });
  if (!applied_all) return std::unexpected(applied_all.error());
  auto committed = transaction->commit("migrating");
  if (!committed) return std::unexpected(committed.error());
  outcome.from_version = *current;
  outcome.to_version = target;
  return outcome;
}

}  // namespace ods::state::internal
