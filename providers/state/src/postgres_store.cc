// The PostgreSQL StateStore: shared state for CI fleets. One libpq connection per store,
// serialised by a mutex; many stores and processes share a database. Commit is a
// compare-and-swap on the scope's `heads` row in one transaction.
#include "postgres_store.h"

#include <mutex>
#include <set>
#include <utility>

#include "postgres_check.h"
#include "postgres_connection.h"
#include "postgres_documents.h"
#include "postgres_migrations.h"
#include "postgres_privileges.h"
#include "sqlite_import.h"
#include "store_support.h"

namespace ods::state {
namespace internal {
namespace {

using ods::contracts::CheckReport;
using ods::contracts::RunRecord;
using ods::contracts::StoredSnapshot;

constexpr char kSnapshotColumns[] = "s.id, s.parent_id, s.scope, s.run_id, s.committed_at, encode(s.document, 'hex')";
constexpr char kRunColumns[] =
    "run_id, scope, started_at, finished_at, outcome, inputs_digest, encode(plan, 'hex'), details, snapshot_id";
constexpr char kReadOnly[] = "ISOLATION LEVEL REPEATABLE READ, READ ONLY";

std::string sql_limit(std::size_t limit) { return limit == 0 ? "ALL" : std::to_string(limit); }

class PostgresStateStore final : public ods::contracts::StateStore {
 public:
  PostgresStateStore(PgConnection connection, const Clock& clock, int schema_version, std::size_t retention,
                     bool read_only)
      : connection_(std::move(connection)),
        clock_(clock),
        schema_version_(schema_version),
        retention_(retention),
        read_only_(read_only) {}

  ods::Result<std::optional<StoredSnapshot>> latest(const std::string& scope) override {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "reading the latest snapshot";
    auto transaction = PgTransaction::begin(connection_, kWhat, kReadOnly);
    if (!transaction) return std::unexpected(transaction.error());
    auto rows = connection_.exec(std::string("SELECT ") + kSnapshotColumns +
                                     ", h.snapshot_id FROM heads h LEFT JOIN snapshots s ON s.id = h.snapshot_id"
                                     " WHERE h.scope = $1",
                                 Params{scope}, kWhat);
    if (!rows) return std::unexpected(rows.error());
    if (rows->rows() == 0) return std::optional<StoredSnapshot>();
    if (rows->is_null(0, 0) || rows->text(0, 2) != scope) {
      return ods::fail("corrupt", "PostgreSQL state database " + connection_.server() + ": the head of scope '" +
                                      scope + "' points at snapshot " + rows->text(0, 6) +
                                      ", which is missing or belongs to another scope. Run `ods state doctor`.");
    }
    auto snapshots = read_snapshots(*rows);
    if (!snapshots) return std::unexpected(snapshots.error());
    if (auto done = transaction->commit(kWhat); !done) return std::unexpected(done.error());
    return std::optional<StoredSnapshot>(std::move(snapshots->front()));
  }

  ods::Result<StoredSnapshot> commit(const std::string& scope, const std::optional<std::string>& expected_parent,
                                     const std::string& run_id, const std::string& document) override {
    if (auto valid = validate_commit(scope, run_id, document); !valid) return std::unexpected(valid.error());
    std::lock_guard lock(mutex_);
    auto committed = commit_locked(scope, expected_parent, run_id, document);
    if (committed) prune(scope);
    return committed;
  }

  ods::Result<std::vector<StoredSnapshot>> history(const std::string& scope, std::size_t limit) override {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "reading snapshot history";
    auto transaction = PgTransaction::begin(connection_, kWhat, kReadOnly);
    if (!transaction) return std::unexpected(transaction.error());
    auto rows =
        connection_.exec(std::string("SELECT ") + kSnapshotColumns +
                             " FROM snapshots s WHERE s.scope = $1 ORDER BY s.seq DESC LIMIT " + sql_limit(limit),
                         Params{scope}, kWhat);
    if (!rows) return std::unexpected(rows.error());
    auto snapshots = read_snapshots(*rows);
    if (!snapshots) return std::unexpected(snapshots.error());
    if (auto done = transaction->commit(kWhat); !done) return std::unexpected(done.error());
    return snapshots;
  }

  ods::Result<void> append_run(const RunRecord& run) override {
    if (auto valid = validate_run(run); !valid) return valid;
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "recording a run";
    auto transaction = PgTransaction::begin(connection_, kWhat);
    if (!transaction) return std::unexpected(transaction.error());
    auto plan = store_document(connection_, run.plan);
    if (!plan) return std::unexpected(plan.error());
    auto inserted = connection_.exec(
        "INSERT INTO runs (scope, run_id, started_at, finished_at, outcome, inputs_digest, plan, details, snapshot_id)"
        " VALUES ($1, $2, $3, $4, $5, $6, decode($7, 'hex'), $8, $9) ON CONFLICT (scope, run_id) DO NOTHING",
        Params{run.scope, run.run_id, run.started_at, run.finished_at, run.outcome, run.inputs_digest, *plan,
               run.details, run.snapshot_id},
        kWhat);
    if (!inserted) return std::unexpected(inserted.error());
    if (inserted->affected() == 0) {
      return ods::fail("conflict", "Run '" + run.run_id + "' is already in the ledger of scope '" + run.scope + "'.");
    }
    if (auto done = transaction->commit(kWhat); !done) return done;
    prune(run.scope);
    return {};
  }

  ods::Result<std::vector<RunRecord>> runs(const std::string& scope, std::size_t limit) override {
    return read_runs(scope, limit, /*with_plans=*/true);
  }

  ods::Result<std::vector<RunRecord>> runs_without_plans(const std::string& scope, std::size_t limit) override {
    return read_runs(scope, limit, /*with_plans=*/false);
  }

  ods::Result<bool> has_run(const std::string& scope, const std::string& run_id) override {
    std::lock_guard lock(mutex_);
    auto rows = connection_.exec(
        "SELECT EXISTS (SELECT 1 FROM runs WHERE scope = $1 AND run_id = $2)"
        " OR EXISTS (SELECT 1 FROM snapshots WHERE scope = $1 AND run_id = $2)",
        Params{scope, run_id}, "looking up a run");
    if (!rows) return std::unexpected(rows.error());
    return rows->text(0, 0) == "t";
  }

  ods::Result<std::vector<std::string>> scopes() override {
    std::lock_guard lock(mutex_);
    auto rows = connection_.exec("SELECT scope FROM heads UNION SELECT scope FROM runs ORDER BY 1", "listing scopes");
    if (!rows) return std::unexpected(rows.error());
    std::vector<std::string> out;
    for (int row = 0; row < rows->rows(); ++row) out.push_back(rows->text(row, 0));
    return out;
  }

  ods::Result<CheckReport> check() override {
    std::lock_guard lock(mutex_);
    auto transaction = PgTransaction::begin(connection_, "checking", kReadOnly);
    if (!transaction) return std::unexpected(transaction.error());
    return check_postgres(connection_, std::to_string(schema_version_));
  }

  ods::Result<void> backup(const std::string& path) override {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "backing up";
    auto target = SqliteImport::create(path, clock_);
    if (!target) return std::unexpected(target.error());
    auto transaction = PgTransaction::begin(connection_, kWhat, kReadOnly);
    if (!transaction) return std::unexpected(transaction.error());
    auto snapshots =
        connection_.exec(std::string("SELECT ") + kSnapshotColumns + " FROM snapshots s ORDER BY s.seq", kWhat);
    if (!snapshots) return std::unexpected(snapshots.error());
    for (int row = 0; row < snapshots->rows(); ++row) {  // one at a time: documents can be large
      auto documents = load_documents(connection_, {snapshots->text(row, 5)});
      if (!documents) return std::unexpected(documents.error());
      StoredSnapshot snapshot{snapshots->text(row, 0), snapshots->optional_text(row, 1), snapshots->text(row, 2),
                              snapshots->text(row, 3), snapshots->text(row, 4),          documents->begin()->second};
      if (auto done = (*target)->add_snapshot(snapshot); !done) return done;
    }
    auto heads = connection_.exec("SELECT scope, snapshot_id FROM heads ORDER BY scope", kWhat);
    if (!heads) return std::unexpected(heads.error());
    for (int row = 0; row < heads->rows(); ++row) {
      if (auto done = (*target)->set_head(heads->text(row, 0), heads->text(row, 1)); !done) return done;
    }
    auto runs = connection_.exec(std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY seq", kWhat);
    if (!runs) return std::unexpected(runs.error());
    for (int row = 0; row < runs->rows(); ++row) {
      auto plan = load_documents(connection_, {runs->text(row, 6)});
      if (!plan) return std::unexpected(plan.error());
      RunRecord run{runs->text(row, 0),    runs->text(row, 1), runs->text(row, 2),
                    runs->text(row, 3),    runs->text(row, 4), runs->text(row, 5),
                    plan->begin()->second, runs->text(row, 7), runs->optional_text(row, 8)};
      if (auto done = (*target)->add_run(run); !done) return done;
    }
    return (*target)->finish();
  }

  ods::Result<std::size_t> reset(const std::string& scope) override {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "resetting a scope";
    auto transaction = PgTransaction::begin(connection_, kWhat);
    if (!transaction) return std::unexpected(transaction.error());
    std::size_t removed = 0;
    for (const char* sql : {"DELETE FROM heads WHERE scope = $1", "DELETE FROM runs WHERE scope = $1",
                            "DELETE FROM snapshots WHERE scope = $1"}) {
      auto done = connection_.exec(sql, Params{scope}, kWhat);
      if (!done) return std::unexpected(done.error());
      removed = static_cast<std::size_t>(done->affected());
    }
    if (auto done = collect_garbage(connection_); !done) return std::unexpected(done.error());
    if (auto done = transaction->commit(kWhat); !done) return std::unexpected(done.error());
    return removed;
  }

 private:
  // The ledger of `scope`, newest first; each plan read from its document when `with_plans`.
  ods::Result<std::vector<RunRecord>> read_runs(const std::string& scope, std::size_t limit, bool with_plans) {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "reading the run ledger";
    auto transaction = PgTransaction::begin(connection_, kWhat, kReadOnly);
    if (!transaction) return std::unexpected(transaction.error());
    auto rows = connection_.exec(std::string("SELECT ") + kRunColumns +
                                     " FROM runs WHERE scope = $1 ORDER BY seq DESC LIMIT " + sql_limit(limit),
                                 Params{scope}, kWhat);
    if (!rows) return std::unexpected(rows.error());
    std::vector<std::string> plans;
    if (with_plans)
      for (int row = 0; row < rows->rows(); ++row) plans.push_back(rows->text(row, 6));
    auto documents = load_documents(connection_, plans);
    if (!documents) return std::unexpected(documents.error());
    std::vector<RunRecord> records;
    for (int row = 0; row < rows->rows(); ++row) {
      records.push_back({rows->text(row, 0), rows->text(row, 1), rows->text(row, 2), rows->text(row, 3),
                         rows->text(row, 4), rows->text(row, 5),
                         with_plans ? documents->at(rows->text(row, 6)) : std::string(), rows->text(row, 7),
                         rows->optional_text(row, 8)});
    }
    if (auto done = transaction->commit(kWhat); !done) return std::unexpected(done.error());
    return records;
  }

  ods::Result<StoredSnapshot> commit_locked(const std::string& scope, const std::optional<std::string>& expected_parent,
                                            const std::string& run_id, const std::string& document) {
    constexpr std::string_view kWhat = "committing a snapshot";
    auto transaction = PgTransaction::begin(connection_, kWhat);
    if (!transaction) return std::unexpected(transaction.error());
    auto head_row = connection_.exec("SELECT snapshot_id FROM heads WHERE scope = $1 FOR UPDATE", Params{scope}, kWhat);
    if (!head_row) return std::unexpected(head_row.error());
    const std::optional<std::string> head = head_row->rows() > 0 ? std::optional(head_row->text(0, 0)) : std::nullopt;
    if (head != expected_parent) return std::unexpected(head_moved(scope, head, expected_parent));

    StoredSnapshot snapshot{new_snapshot_id(), head, scope, run_id, format_iso8601(clock_.now()), document};
    auto digest = store_document(connection_, document);
    if (!digest) return std::unexpected(digest.error());
    auto inserted = connection_.exec(
        "INSERT INTO snapshots (id, scope, parent_id, run_id, committed_at, document)"
        " VALUES ($1, $2, $3, $4, $5, decode($6, 'hex'))",
        Params{snapshot.id, scope, head, run_id, snapshot.committed_at, *digest}, kWhat);
    // A plain INSERT for a scope's first head: two first commits at once collide on the key.
    auto moved = inserted ? connection_.exec(head ? "UPDATE heads SET snapshot_id = $2 WHERE scope = $1"
                                                  : "INSERT INTO heads (scope, snapshot_id) VALUES ($1, $2)",
                                             Params{scope, snapshot.id}, kWhat)
                          : std::move(inserted);
    if (!moved) {
      if (moved.error().code == "conflict") return std::unexpected(head_moved(scope, std::nullopt, expected_parent));
      return std::unexpected(moved.error());
    }
    if (auto done = transaction->commit(kWhat); !done) return std::unexpected(done.error());
    return snapshot;
  }

  // Rows of kSnapshotColumns with their documents.
  ods::Result<std::vector<StoredSnapshot>> read_snapshots(const PgResult& rows) {
    std::vector<std::string> digests;
    for (int row = 0; row < rows.rows(); ++row) digests.push_back(rows.text(row, 5));
    auto documents = load_documents(connection_, digests);
    if (!documents) return std::unexpected(documents.error());
    std::vector<StoredSnapshot> snapshots;
    for (int row = 0; row < rows.rows(); ++row) {
      snapshots.push_back({rows.text(row, 0), rows.optional_text(row, 1), rows.text(row, 2), rows.text(row, 3),
                           rows.text(row, 4), documents->at(rows.text(row, 5))});
    }
    return snapshots;
  }

  // In a transaction that is rolled back: whether it is read-only (the session's, the role's or
  // the database's default_transaction_read_only, a standby), and which privileges commit()
  // and append_run() use the role lacks (has_table_privilege; ownership and superuser count),
  // TEMPORARY on the database included (documents go through a session temp table).
  // Pruning (retention) is best effort and not required.
  ods::Result<void> check_writable() override {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "checking that it can be written";
    const std::string store = "PostgreSQL state database " + connection_.server();
    if (read_only_) return ods::fail("permission_denied", store + " was opened read-only.");
    auto transaction = PgTransaction::begin(connection_, kWhat);
    if (!transaction) return std::unexpected(transaction.error());
    auto rows = connection_.exec(
        "SELECT current_user, current_setting('transaction_read_only'), (SELECT string_agg(w.p || ' on ' || w.t, ', ' "
        "ORDER BY w.t, w.p) FROM (VALUES ('heads', 'INSERT'), ('heads', 'UPDATE'), ('snapshots', 'INSERT'), "
        "('runs', 'INSERT'), ('documents', 'INSERT'), ('manifests', 'INSERT'), ('chunks', 'INSERT'), "
        "('pieces', 'INSERT')) AS w (t, p) WHERE NOT has_table_privilege(quote_ident(current_schema()) || '.' || "
        "quote_ident(w.t), w.p)), has_database_privilege(current_database(), 'TEMPORARY')",
        kWhat);
    if (!rows) return std::unexpected(rows.error());
    const std::string role = rows->text(0, 0);
    std::string missing = rows->is_null(0, 2) ? "" : rows->text(0, 2);
    if (rows->text(0, 3) != "t") missing += std::string(missing.empty() ? "" : ", ") + "TEMPORARY on the database";
    if (rows->text(0, 1) == "on") {
      return ods::fail("permission_denied",
                       store + " can't be written: the session of role " + role +
                           " is read-only (default_transaction_read_only, or a standby server), so "
                           "nothing could be recorded.");
    }
    if (!missing.empty()) {
      return ods::fail("permission_denied", store + " can't be written by role " + role + ": it lacks " + missing +
                                                ", which recording needs, so nothing could be recorded. Record with a "
                                                "credential that can write the state (docs/postgres-state.md).");
    }
    return {};  // the transaction rolls back
  }

  // Keeps the newest retention_ snapshots and ledger entries of `scope` and removes the
  // content only they used. Best effort after a successful write: a failure leaves more
  // history than asked for, which the next write prunes.
  void prune(const std::string& scope) {
    if (retention_ == 0) return;
    constexpr std::string_view kWhat = "pruning history";
    auto transaction = PgTransaction::begin(connection_, kWhat);
    if (!transaction) return;
    long long removed = 0;
    for (const std::string table : {"snapshots", "runs"}) {
      auto done = connection_.exec("DELETE FROM " + table + " WHERE scope = $1 AND seq <= (SELECT seq FROM " + table +
                                       " WHERE scope = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1)",
                                   Params{scope, std::to_string(retention_)}, kWhat);
      if (!done) return;
      removed += done->affected();
    }
    if (removed == 0) return;
    if (auto done = collect_garbage(connection_); !done) return;
    (void)transaction->commit(kWhat);
  }

  PgConnection connection_;
  const Clock& clock_;
  int schema_version_;
  std::size_t retention_;
  bool read_only_;
  std::mutex mutex_;
};

}  // namespace

ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_postgres_store_with(
    const std::string& conninfo, const Clock& clock, const OpenOptions& options,
    const std::vector<Migration>& migrations) {
  auto connection = PgConnection::open(conninfo, options.busy_timeout);
  if (!connection) return std::unexpected(connection.error());
  if (options.refuse_writable_credential) {
    if (auto only_reads = refuse_writable_credential(*connection); !only_reads)
      return std::unexpected(only_reads.error());
  }
  auto version = migrate_postgres(*connection, migrations, clock, options.create_if_missing, options.read_only);
  if (!version) return std::unexpected(version.error());
  if (options.read_only) {
    if (auto done = connection->make_read_only(); !done) return std::unexpected(done.error());
  }
  return std::make_unique<PostgresStateStore>(std::move(*connection), clock, *version, options.retention,
                                              options.read_only);
}

}  // namespace internal

ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_postgres_store(const std::string& conninfo,
                                                                             const Clock& clock,
                                                                             const OpenOptions& options) {
  return internal::open_postgres_store_with(conninfo, clock, options, internal::builtin_postgres_migrations());
}

}  // namespace ods::state
