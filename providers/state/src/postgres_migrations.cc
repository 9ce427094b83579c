#include "postgres_migrations.h"

namespace ods::state::internal {
namespace {

// Version 1. Documents are split (document_pieces.h): a snapshot or plan references its
// document by digest; a document holds its skeleton and its manifest's digest; a manifest
// lists chunk digests (32 bytes each, concatenated); a chunk lists [member, key, piece
// digest] entries; a piece is one node's (source's, plan entry's) JSON. Each level is stored
// once per distinct content, so a run that changed nothing adds a snapshot row, a skeleton
// and a ledger row. `heads` holds each scope's current snapshot (commit is a
// compare-and-swap on it); the unique index on parent_id keeps each scope a single chain;
// pruning (retention) deletes old snapshots and the oldest kept one's parent becomes NULL.
constexpr char kInitialSchema[] = R"sql(
CREATE TABLE pieces (
  digest bytea PRIMARY KEY,  -- SHA-256 of body
  body   text NOT NULL
);
CREATE TABLE chunks (
  digest  bytea PRIMARY KEY,  -- SHA-256 of entries
  entries text NOT NULL       -- JSON [[member, key or null, piece digest hex], ...]
);
CREATE TABLE manifests (
  digest bytea PRIMARY KEY,  -- SHA-256 of the chunk digests in hex
  chunks bytea NOT NULL      -- chunk digests, 32 bytes each, in order
);
CREATE TABLE documents (
  digest   bytea PRIMARY KEY,  -- SHA-256 of the whole document
  skeleton text NOT NULL,      -- the document without its pieces (the whole one when unsplit)
  manifest bytea REFERENCES manifests (digest)
);
CREATE TABLE snapshots (
  seq          bigserial PRIMARY KEY,  -- commit order
  id           text NOT NULL UNIQUE,
  scope        text NOT NULL,
  parent_id    text REFERENCES snapshots (id) ON DELETE SET NULL,
  run_id       text NOT NULL,
  committed_at text NOT NULL,
  document     bytea NOT NULL REFERENCES documents (digest)
);
CREATE INDEX documents_by_manifest ON documents (manifest);
CREATE INDEX snapshots_by_scope ON snapshots (scope, seq);
CREATE INDEX snapshots_by_run ON snapshots (scope, run_id);
CREATE INDEX snapshots_by_document ON snapshots (document);
CREATE UNIQUE INDEX snapshots_one_child ON snapshots (parent_id);
CREATE TABLE heads (
  scope       text PRIMARY KEY,
  snapshot_id text NOT NULL REFERENCES snapshots (id)
);
CREATE TABLE runs (
  seq           bigserial PRIMARY KEY,  -- ledger order
  scope         text NOT NULL,
  run_id        text NOT NULL,
  started_at    text NOT NULL,
  finished_at   text NOT NULL,
  outcome       text NOT NULL,
  inputs_digest text NOT NULL,
  plan          bytea NOT NULL REFERENCES documents (digest),
  details       text NOT NULL,
  snapshot_id   text,
  UNIQUE (scope, run_id)
);
CREATE INDEX runs_by_scope ON runs (scope, seq);
CREATE INDEX runs_by_plan ON runs (plan);
)sql";

// The migrations recorded, in order; reads only.
ods::Result<std::vector<AppliedMigration>> read_applied(PgConnection& connection) {
  constexpr std::string_view kWhat = "reading the schema";
  auto tables = connection.exec(
      "SELECT c.relname FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relnamespace = "
      "current_schema()::regnamespace"
      " AND c.relname IN ('schema_migrations', 'snapshots', 'heads', 'runs') ORDER BY c.relname",
      kWhat);
  if (!tables) return std::unexpected(tables.error());
  bool has_record = false;
  for (int row = 0; row < tables->rows(); ++row) has_record = has_record || tables->text(row, 0) == "schema_migrations";
  if (!has_record) {
    if (tables->rows() == 0) return std::vector<AppliedMigration>();
    return ods::fail("corrupt", "PostgreSQL database " + connection.server() + " holds a table '" + tables->text(0, 0) +
                                    "' but no schema_migrations record: it is not an ODS state database (use "
                                    "another database or schema). It was left untouched.");
  }
  auto rows = connection.exec("SELECT version, name FROM schema_migrations ORDER BY version", kWhat);
  if (!rows) return std::unexpected(rows.error());
  std::vector<AppliedMigration> applied;
  for (int row = 0; row < rows->rows(); ++row) {
    applied.push_back({static_cast<int>(rows->integer(row, 0)), rows->text(row, 1)});
  }
  return applied;
}

}  // namespace

const std::vector<Migration>& builtin_postgres_migrations() {
  static const std::vector<Migration> kMigrations{
      {1, "initial_schema", kInitialSchema},
  };
  return kMigrations;
}

ods::Result<int> migrate_postgres(PgConnection& connection, const std::vector<Migration>& migrations,
                                  const Clock& clock, bool create, bool read_only) {
  constexpr std::string_view kWhat = "migrating the schema";
  auto transaction = PgTransaction::begin(connection, kWhat);
  if (!transaction) return std::unexpected(transaction.error());
  auto locked = connection.exec("SELECT pg_advisory_xact_lock($1::bigint)", Params{std::to_string(kMigrationLockKey)},
                                "waiting for the migration lock");
  if (!locked) return std::unexpected(locked.error());
  auto applied = read_applied(connection);
  if (!applied) return std::unexpected(applied.error());
  auto current = recorded_schema_version(*applied, migrations, "PostgreSQL state database " + connection.server(),
                                         "the database was left untouched.");
  if (!current) return std::unexpected(current.error());
  const int target = migrations.empty() ? 0 : migrations.back().version;
  if (*current == target) return target;  // the transaction rolls back: nothing was written
  if (*current == 0 && (!create || read_only)) {
    return ods::fail("not_found", "PostgreSQL database " + connection.server() + " holds no ODS state yet.");
  }
  if (read_only) {
    return ods::fail("outdated_schema", "PostgreSQL state database " + connection.server() + " has schema version " +
                                            std::to_string(*current) + ", older than this ODS's " +
                                            std::to_string(target) +
                                            "; it is only read here, so it was left as it is (a run that records "
                                            "migrates it).");
  }

  auto created = connection.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL,"
      " applied_at text NOT NULL)",
      kWhat);
  if (!created) return std::unexpected(created.error());
  auto applied_all = apply_migrations_after(
      *current, migrations, "PostgreSQL state database " + connection.server(),
      [&](const Migration& migration) {
        return connection.exec(migration.sql, "applying migration " + std::to_string(migration.version));
      },
      [&](const Migration& migration) {
        return connection.exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                               Params{std::to_string(migration.version), migration.name, format_iso8601(clock.now())},
                               kWhat);
      });
  if (!applied_all) return std::unexpected(applied_all.error());
  if (auto committed = transaction->commit(kWhat); !committed) return std::unexpected(committed.error());
  return target;
}

}  // namespace ods::state::internal
