// The SQLite StateStore: the embedded default (.ods/state.db). One connection per store,
// serialised by a mutex; several stores or processes share a file through WAL and
// BEGIN IMMEDIATE writers.
#include "sqlite_store.h"

#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>

#include "sqlite_check.h"
#include "sqlite_connection.h"
#include "store_support.h"

namespace ods::state {
namespace internal {
namespace {

using ods::contracts::CheckReport;
using ods::contracts::RunRecord;
using ods::contracts::StoredSnapshot;

constexpr char kSelectHead[] = "SELECT snapshot_id FROM heads WHERE scope = ?1";
constexpr char kSelectLatest[] =
    "SELECT s.id, s.parent_id, s.scope, s.run_id, s.committed_at, d.body, h.snapshot_id FROM heads h"
    " LEFT JOIN snapshots s ON s.id = h.snapshot_id LEFT JOIN documents d ON d.id = s.document_id"
    " WHERE h.scope = ?1";
constexpr char kSelectHistory[] =
    "SELECT s.id, s.parent_id, s.scope, s.run_id, s.committed_at, d.body FROM snapshots s"
    " LEFT JOIN documents d ON d.id = s.document_id WHERE s.scope = ?1 ORDER BY s.seq DESC LIMIT ?2";
constexpr char kInsertDocument[] =
    "INSERT INTO documents (digest, body) VALUES (?1, ?2) ON CONFLICT (digest) DO NOTHING";
constexpr char kSelectDocument[] = "SELECT id FROM documents WHERE digest = ?1";
constexpr char kInsertSnapshot[] =
    "INSERT INTO snapshots (id, scope, parent_id, run_id, committed_at, document_id)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
constexpr char kMoveHead[] =
    "INSERT INTO heads (scope, snapshot_id) VALUES (?1, ?2)"
    " ON CONFLICT (scope) DO UPDATE SET snapshot_id = excluded.snapshot_id";
constexpr char kInsertRun[] =
    "INSERT INTO runs (scope, run_id, started_at, finished_at, outcome, inputs_digest, plan, details, snapshot_id)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (scope, run_id) DO NOTHING";
constexpr char kSelectRuns[] =
    "SELECT run_id, scope, started_at, finished_at, outcome, inputs_digest, plan, details, snapshot_id FROM runs"
    " WHERE scope = ?1 ORDER BY seq DESC LIMIT ?2";
constexpr char kSelectRunsWithoutPlans[] =
    "SELECT run_id, scope, started_at, finished_at, outcome, inputs_digest, '', details, snapshot_id FROM runs"
    " WHERE scope = ?1 ORDER BY seq DESC LIMIT ?2";
constexpr char kHasRun[] =
    "SELECT EXISTS (SELECT 1 FROM runs WHERE scope = ?1 AND run_id = ?2)"
    " OR EXISTS (SELECT 1 FROM snapshots WHERE scope = ?1 AND run_id = ?2)";
constexpr char kSelectScopes[] = "SELECT scope FROM heads UNION SELECT scope FROM runs ORDER BY 1";
constexpr char kDeleteHead[] = "DELETE FROM heads WHERE scope = ?1";
constexpr char kDeleteSnapshots[] = "DELETE FROM snapshots WHERE scope = ?1";
constexpr char kDeleteRuns[] = "DELETE FROM runs WHERE scope = ?1";
constexpr char kDeleteUnusedDocuments[] =
    "DELETE FROM documents WHERE NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.document_id = documents.id)";

// Every statement the store runs; all must prepare against the schema at open.
constexpr const char* kStatements[] = {
    kSelectHead,     kSelectLatest, kSelectHistory,   kInsertDocument, kSelectDocument,
    kInsertSnapshot, kMoveHead,     kInsertRun,       kSelectRuns,     kSelectRunsWithoutPlans,
    kHasRun,         kDeleteHead,   kDeleteSnapshots, kDeleteRuns,     kDeleteUnusedDocuments,
    kSelectScopes,
};

// SQLite's LIMIT for "at most `limit`, 0: all".
std::int64_t sql_limit(std::size_t limit) { return limit == 0 ? -1 : static_cast<std::int64_t>(limit); }

class SqliteStateStore final : public ods::contracts::StateStore {
 public:
  SqliteStateStore(Connection connection, const Clock& clock, int schema_version, bool read_only)
      : connection_(std::move(connection)), clock_(clock), schema_version_(schema_version), read_only_(read_only) {}

  ods::Result<std::optional<StoredSnapshot>> latest(const std::string& scope) override {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "reading the latest snapshot";
    auto query = connection_.prepare(kSelectLatest, kWhat);
    if (!query) return std::unexpected(query.error());
    query->bind(1, scope);
    auto row = query->step(kWhat);
    if (!row) return std::unexpected(row.error());
    if (!*row) return std::optional<StoredSnapshot>();
    if (query->is_null(0) || query->is_null(5) || query->text(2) != scope) {
      return ods::fail("corrupt", "State database " + connection_.path() + ": the head of scope '" + scope +
                                      "' points at snapshot " + query->text(6) +
                                      ", which is missing, has no document, or belongs to another scope. Run "
                                      "`ods state doctor`.");
    }
    return std::optional<StoredSnapshot>(read_snapshot(*query));
  }

  ods::Result<StoredSnapshot> commit(const std::string& scope, const std::optional<std::string>& expected_parent,
                                     const std::string& run_id, const std::string& document) override {
    if (auto valid = validate_commit(scope, run_id, document); !valid) return std::unexpected(valid.error());
    const std::string digest = content_digest(document);
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "committing a snapshot";
    auto transaction = Transaction::begin(connection_, Transaction::Kind::write, kWhat);
    if (!transaction) return std::unexpected(transaction.error());

    auto head_query = connection_.prepare(kSelectHead, kWhat);
    if (!head_query) return std::unexpected(head_query.error());
    head_query->bind(1, scope);
    auto has_head = head_query->step(kWhat);
    if (!has_head) return std::unexpected(has_head.error());
    const std::optional<std::string> head = *has_head ? std::optional(head_query->text(0)) : std::nullopt;
    if (head != expected_parent) {
      return std::unexpected(head_moved(scope, head, expected_parent));
    }

    // The clock runs under the write lock, before the first write (a test races another
    // connection from inside it).
    StoredSnapshot snapshot{new_snapshot_id(), head, scope, run_id, format_iso8601(clock_.now()), document};
    auto document_id = store_document(digest, document);
    if (!document_id) return std::unexpected(document_id.error());
    auto insert = connection_.prepare(kInsertSnapshot, kWhat);
    if (!insert) return std::unexpected(insert.error());
    insert->bind(1, snapshot.id).bind(2, scope).bind_nullable(3, head).bind(4, run_id).bind(5, snapshot.committed_at);
    if (auto done = insert->bind(6, *document_id).run(kWhat); !done) return std::unexpected(done.error());
    auto move = connection_.prepare(kMoveHead, kWhat);
    if (!move) return std::unexpected(move.error());
    if (auto done = move->bind(1, scope).bind(2, snapshot.id).run(kWhat); !done) return std::unexpected(done.error());
    if (auto done = transaction->commit(kWhat); !done) return std::unexpected(done.error());
    return snapshot;
  }

  ods::Result<std::vector<StoredSnapshot>> history(const std::string& scope, std::size_t limit) override {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "reading snapshot history";
    auto query = connection_.prepare(kSelectHistory, kWhat);
    if (!query) return std::unexpected(query.error());
    query->bind(1, scope).bind(2, sql_limit(limit));
    std::vector<StoredSnapshot> snapshots;
    for (;;) {
      auto row = query->step(kWhat);
      if (!row) return std::unexpected(row.error());
      if (!*row) return snapshots;
      if (query->is_null(5)) {
        return ods::fail("corrupt", "State database " + connection_.path() + ": snapshot " + query->text(0) +
                                        " of scope '" + scope + "' has lost its document. Run `ods state doctor`.");
      }
      snapshots.push_back(read_snapshot(*query));
    }
  }

  ods::Result<void> append_run(const RunRecord& run) override {
    if (auto valid = validate_run(run); !valid) return valid;
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "recording a run";
    auto insert = connection_.prepare(kInsertRun, kWhat);
    if (!insert) return std::unexpected(insert.error());
    insert->bind(1, run.scope).bind(2, run.run_id).bind(3, run.started_at).bind(4, run.finished_at);
    insert->bind(5, run.outcome).bind(6, run.inputs_digest).bind(7, run.plan).bind(8, run.details);
    if (auto done = insert->bind_nullable(9, run.snapshot_id).run(kWhat); !done) return done;
    if (sqlite3_changes(connection_.handle()) == 0) {
      return ods::fail("conflict", "Run '" + run.run_id + "' is already in the ledger of scope '" + run.scope + "'.");
    }
    return {};
  }

  ods::Result<std::vector<RunRecord>> runs(const std::string& scope, std::size_t limit) override {
    return read_runs(kSelectRuns, scope, limit);
  }

  ods::Result<std::vector<RunRecord>> runs_without_plans(const std::string& scope, std::size_t limit) override {
    return read_runs(kSelectRunsWithoutPlans, scope, limit);
  }

  ods::Result<bool> has_run(const std::string& scope, const std::string& run_id) override {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "looking up a run";
    auto query = connection_.prepare(kHasRun, kWhat);
    if (!query) return std::unexpected(query.error());
    auto row = query->bind(1, scope).bind(2, run_id).step(kWhat);
    if (!row) return std::unexpected(row.error());
    return *row && query->integer(0) != 0;
  }

  ods::Result<std::vector<std::string>> scopes() override {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "listing scopes";
    auto query = connection_.prepare(kSelectScopes, kWhat);
    if (!query) return std::unexpected(query.error());
    std::vector<std::string> names;
    for (;;) {
      auto row = query->step(kWhat);
      if (!row) return std::unexpected(row.error());
      if (!*row) return names;
      names.push_back(query->text(0));
    }
  }

  ods::Result<CheckReport> check() override {
    std::lock_guard lock(mutex_);
    return check_database(connection_, std::to_string(schema_version_));
  }

  ods::Result<void> backup(const std::string& path) override {
    std::error_code error;
    if (std::filesystem::exists(path, error) && std::filesystem::file_size(path, error) != 0) {
      return ods::fail("io", "Refusing to back up state database " + connection_.path() + " to " + path +
                                 ": that file exists and is not empty.");
    }
    if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty()) {
      std::filesystem::create_directories(parent, error);
      if (error) {
        return ods::fail("io",
                         "Cannot create directory " + parent.string() + " for the backup: " + error.message() + ".");
      }
    }
    std::lock_guard lock(mutex_);
    return connection_.copy_to(path, "backing up");
  }

  ods::Result<std::size_t> reset(const std::string& scope) override {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "resetting a scope";
    auto transaction = Transaction::begin(connection_, Transaction::Kind::write, kWhat);
    if (!transaction) return std::unexpected(transaction.error());
    std::size_t removed = 0;
    for (const std::string_view sql : {kDeleteHead, kDeleteSnapshots, kDeleteRuns}) {
      auto statement = connection_.prepare(sql, kWhat);
      if (!statement) return std::unexpected(statement.error());
      if (auto done = statement->bind(1, scope).run(kWhat); !done) return std::unexpected(done.error());
      if (sql == kDeleteSnapshots) removed = static_cast<std::size_t>(sqlite3_changes(connection_.handle()));
    }
    if (removed > 0) {
      if (auto done = connection_.exec(kDeleteUnusedDocuments, kWhat); !done) return std::unexpected(done.error());
    }
    if (auto done = transaction->commit(kWhat); !done) return std::unexpected(done.error());
    return removed;
  }

  // Opened read-only; a file SQLite could open only for reading (this user can't write it:
  // sqlite3_db_readonly); then a write transaction begun and rolled back (the lock a commit
  // takes, and the journal it writes beside the file).
  ods::Result<void> check_writable() override {
    std::lock_guard lock(mutex_);
    const std::string& path = connection_.path();
    if (read_only_) return ods::fail("permission_denied", "State database " + path + " was opened read-only.");
    if (sqlite3_db_readonly(connection_.handle(), "main") == 1) {
      return ods::fail("permission_denied", "State database " + path +
                                                " can't be written: the file is read-only for this user, so nothing "
                                                "could be recorded.");
    }
    auto transaction = Transaction::begin(connection_, Transaction::Kind::write, "checking that it can be written");
    if (!transaction) {
      ods::Error e = transaction.error();
      if (e.code == "io") e.code = "permission_denied";
      e.message += " Nothing could be recorded.";
      return std::unexpected(e);
    }
    return {};  // the transaction rolls back
  }

 private:
  // The ledger of `scope` through `select` (kSelectRuns or kSelectRunsWithoutPlans).
  ods::Result<std::vector<RunRecord>> read_runs(const char* select, const std::string& scope, std::size_t limit) {
    std::lock_guard lock(mutex_);
    constexpr std::string_view kWhat = "reading the run ledger";
    auto query = connection_.prepare(select, kWhat);
    if (!query) return std::unexpected(query.error());
    query->bind(1, scope).bind(2, sql_limit(limit));
    std::vector<RunRecord> records;
    for (;;) {
      auto row = query->step(kWhat);
      if (!row) return std::unexpected(row.error());
      if (!*row) return records;
      records.push_back({query->text(0), query->text(1), query->text(2), query->text(3), query->text(4), query->text(5),
                         query->text(6), query->text(7), query->optional_text(8)});
    }
  }
  // Columns: id, parent_id, scope, run_id, committed_at, body.
  static StoredSnapshot read_snapshot(const Statement& row) {
    return {row.text(0), row.optional_text(1), row.text(2), row.text(3), row.text(4), row.text(5)};
  }

  // The id of the document with `digest`, stored now unless an identical one is already.
  ods::Result<std::int64_t> store_document(const std::string& digest, const std::string& body) {
    constexpr std::string_view kWhat = "storing a snapshot document";
    auto insert = connection_.prepare(kInsertDocument, kWhat);
    if (!insert) return std::unexpected(insert.error());
    if (auto done = insert->bind(1, digest).bind(2, body).run(kWhat); !done) return std::unexpected(done.error());
    auto select = connection_.prepare(kSelectDocument, kWhat);
    if (!select) return std::unexpected(select.error());
    auto row = select->bind(1, digest).step(kWhat);
    if (!row) return std::unexpected(row.error());
    if (!*row) return ods::fail("corrupt", "State database " + connection_.path() + " lost document " + digest + ".");
    return select->integer(0);
  }

  Connection connection_;
  const Clock& clock_;
  int schema_version_;
  bool read_only_;
  std::mutex mutex_;
};

ods::Result<Connection> connect(const std::string& path, const OpenOptions& options) {
  std::error_code error;
  const bool exists = path == ":memory:" || std::filesystem::exists(path, error);
  if (error) return ods::fail("unavailable", "Cannot look for state database " + path + ": " + error.message() + ".");
  if (!exists) {
    if (!options.create_if_missing || options.read_only) {
      return ods::fail("not_found", "There is no state database at " + path + ".");
    }
    if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty()) {
      std::filesystem::create_directories(parent, error);
      if (error) {
        return ods::fail("io", "Cannot create directory " + parent.string() + " for state database " + path + ": " +
                                   error.message() + ".");
      }
    }
  }
  return Connection::open(path, /*create=*/!exists, options.busy_timeout);
}

// Switches the database to WAL unless it is already. The switch needs the database to
// itself and SQLite doesn't wait for that (no busy handler), so retry until `patience`
// is spent: several processes may be opening a new database at once.
ods::Result<void> enable_wal(Connection& connection, std::chrono::milliseconds patience) {
  {
    auto mode = connection.prepare("PRAGMA journal_mode", "reading the journal mode");
    if (!mode) return std::unexpected(mode.error());
    auto row = mode->step("reading the journal mode");
    if (!row) return std::unexpected(row.error());
    if (*row && mode->text(0) == "wal") return {};
  }  // the statement must be finished: an open one keeps a transaction
  const auto deadline = std::chrono::steady_clock::now() + patience;
  for (;;) {
    auto done = connection.exec("PRAGMA journal_mode = WAL", "enabling WAL");
    if (done || done.error().code != "unavailable" || std::chrono::steady_clock::now() >= deadline) return done;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_sqlite_store_with(
    const std::string& path, const Clock& clock, const OpenOptions& options, const std::vector<Migration>& migrations) {
  auto connection = connect(path, options);
  if (!connection) return std::unexpected(connection.error());
  if (auto done = connection->exec("PRAGMA foreign_keys = ON", "opening"); !done) return std::unexpected(done.error());
  if (options.read_only) {
    if (auto done = connection->exec("PRAGMA query_only = ON", "opening read-only"); !done)
      return std::unexpected(done.error());
  }
  auto migrated =
      options.read_only ? check_current(*connection, migrations) : migrate(*connection, migrations, clock, options);
  if (!migrated && options.read_only && migrated.error().code != "corrupt" && migrated.error().code != "newer_schema" &&
      migrated.error().code != "not_found" && migrated.error().code != "outdated_schema" &&
      !std::filesystem::exists(path + "-wal")) {
    // A WAL database in a directory this user can't write can't be read the usual way (SQLite
    // creates its -shm beside it). Without a -wal file every commit is in the file itself, so it
    // is read as immutable: no lock, nothing created.
    auto immutable = Connection::open_read_only(path, /*immutable=*/true, options.busy_timeout);
    if (immutable) {
      auto checked = check_current(*immutable, migrations);
      if (checked) {
        connection = std::move(immutable);
        migrated = std::move(checked);
      }
    }
  }
  if (!migrated) return std::unexpected(migrated.error());
  // Prepare every statement once: tables that were dropped or altered show here, not mid-run.
  for (const char* sql : kStatements) {
    auto statement = connection->prepare(sql, "checking the schema");
    if (!statement) {
      return ods::fail("corrupt", "State database " + path + " does not have the tables of schema version " +
                                      std::to_string(migrated->to_version) + ": " + statement.error().message);
    }
  }
  if (!options.read_only) {
    if (auto done = enable_wal(*connection, options.busy_timeout); !done) return std::unexpected(done.error());
  }
  return std::make_unique<SqliteStateStore>(std::move(*connection), clock, migrated->to_version, options.read_only);
}

}  // namespace internal

ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_sqlite_store(const std::string& path, const Clock& clock,
                                                                           const OpenOptions& options) {
  return internal::open_sqlite_store_with(path, clock, options, internal::builtin_migrations());
}

}  // namespace ods::state
