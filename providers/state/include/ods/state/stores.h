#pragma once
// Factories for the StateStore implementations (contract: ods/contracts/state_store.h).
// The implementations themselves are hidden in providers/state/src.
//
// Error codes used by every store, beyond the contract's:
//   "invalid_argument"  empty scope/run id, or a snapshot document that is not JSON;
//                       nothing is written.
// Every store stamps its commits and migrations with `clock` (ods/base/clock.h) as ISO-8601
// UTC with microseconds; the clock must outlive the store.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ods/base/clock.h"
#include "ods/base/result.h"
#include "ods/contracts/state_store.h"

namespace ods::state {

struct OpenOptions {
  // false: opening a database file that does not exist (a PostgreSQL database without
  // ODS tables) fails with "not_found" and creates nothing (no file, no directory, no table).
  bool create_if_missing = true;
  // true: the store is only read (a dry run, a plan). Nothing is created or migrated
  // (create_if_missing is then ignored: a missing database is "not_found"), SQLite's journal
  // mode is left as it is, and the connection refuses writes (SQLite: PRAGMA query_only;
  // PostgreSQL: a read-only session), so every write method fails. A SQLite database file's
  // bytes are left unchanged and no -wal/-shm file outlives the store. A database whose
  // schema is older than this ODS's is "outdated_schema" (a read-write open migrates it);
  // one without ODS tables is "not_found".
  bool read_only = false;
  // How long a writer waits for another writer (process or connection) before giving up
  // with "unavailable".
  std::chrono::milliseconds busy_timeout{5000};
  // Told, in a complete sentence, about things done on the user's behalf that they should
  // know about: today, the copy kept before migrating a database that holds data. May be
  // empty. Called on the opening thread before the factory returns.
  std::function<void(const std::string&)> on_notice;
  // How many snapshots, and how many ledger entries, each scope keeps: after a commit or
  // ledger append, older ones are deleted with the content only they used (0: keep all).
  // The oldest kept snapshot then has no parent. PostgreSQL only; the SQLite and memory
  // stores keep everything. `ods` reads it from $ODS_STATE_RETENTION.
  std::size_t retention = 0;
  // true: the credential itself must be unable to write (a pull request's plan, whose dbt
  // runs the pull request's code). PostgreSQL: opening fails with "writable_credential",
  // naming the role and the tables, when the session's role holds INSERT, UPDATE, DELETE or
  // TRUNCATE on any state table (has_table_privilege: ownership and superuser count), and
  // nothing is read. SQLite and memory stores have no credential and ignore it.
  bool refuse_writable_credential = false;
};

// The in-memory store (tests, `memory:`). Starts empty; everything is lost with it.
// Thread-safe: every method may be called from several threads at once.
// backup() fails with "unsupported".
[[nodiscard]] std::unique_ptr<ods::contracts::StateStore> make_memory_store(const Clock& clock = system_clock());

// Opens (creating it and its parent directories if missing and allowed) the SQLite state
// database at `path`, bringing its schema up to date: numbered migrations applied in one
// transaction, recorded in `schema_migrations`. Before migrating a database that already
// has a schema, a consistent copy is written to "<path>.bak-v<old version>" (".1", ".2"…
// appended if that name is taken) and `options.on_notice` is told.
// The returned store is thread-safe (one connection, serialised); several processes or
// stores may open the same file (WAL mode; writers wait up to options.busy_timeout).
// Errors (in each case the file is left byte-for-byte untouched):
//   "not_found"        no file at `path` and options.create_if_missing is false;
//   "newer_schema"     the database was migrated by a newer ODS than this one;
//   "corrupt"          not a SQLite database, not an ODS state database, damaged tables,
//                      or a migration history this binary doesn't recognise; names the file;
//   "migration_failed" a migration could not be applied (nothing of it is kept);
//   "unavailable" / "io"  the file or its directory can't be read, created or locked.
[[nodiscard]] ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_sqlite_store(
    const std::string& path, const Clock& clock = system_clock(), const OpenOptions& options = {});

// Opens (creating its tables if the database has none and options.create_if_missing; else
// "not_found", nothing created) the PostgreSQL state database
// `conninfo` names: a URL ("postgresql://USER@HOST:PORT/DBNAME?sslmode=require") or libpq
// key/value settings ("host=… dbname=…"); what it leaves out comes from libpq's
// environment (PGHOST, PGPASSWORD, PGPASSFILE, PGSERVICE…). TLS and authentication are
// libpq's. The tables live in the connection's current schema. Numbered migrations are
// applied in one transaction under a PostgreSQL advisory lock (processes opening at once
// migrate once) and recorded in `schema_migrations`.
// Documents are stored split into content-addressed pieces (one per node), so a commit
// stores only what changed; see docs/postgres-state.md. options.retention bounds history.
// The returned store is thread-safe (one connection, serialised); it reconnects once per
// call when the connection was lost between calls. Writers wait up to options.busy_timeout
// for another writer's lock. backup() writes a SQLite state database.
// Errors (messages name the server as postgresql://USER@HOST:PORT/DBNAME, never a password):
//   "invalid_url"      libpq cannot parse the connection string;
//   "unavailable"      cannot connect, the connection was lost mid-call (a commit then
//                      either landed whole or not at all), or a lock wait timed out;
//   "newer_schema"     the database was migrated by a newer ODS (left untouched);
//   "corrupt"          ODS tables without a migration record, or a record this ODS doesn't know;
//   "migration_failed" a migration could not be applied (nothing of it is kept).
[[nodiscard]] ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_postgres_store(
    const std::string& conninfo, const Clock& clock = system_clock(), const OpenOptions& options = {});

// Opens the store a URL names:
//   "sqlite:PATH", "sqlite://PATH" (so "sqlite:///abs/path" is absolute)  -> open_sqlite_store
//   "memory:"                                                             -> make_memory_store
//   "postgresql://…", "postgres://…", and libpq key/value strings ("host=… dbname=…": no
//   scheme, an '=')                                                      -> open_postgres_store
// Errors: "invalid_url" for a URL without a scheme, an unknown scheme (named in the
// message) or an empty path; plus the opened store's. Messages never repeat the URL's
// user information, query or password.
[[nodiscard]] ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_state_store(
    const std::string& url, const Clock& clock = system_clock(), const OpenOptions& options = {});

struct CopyReport {
  std::size_t scopes = 0, snapshots = 0, runs = 0;
};

// Copies each of `scopes` from `from` to `to`: its snapshot chain (oldest first, each
// committed on the last) and its ledger (ledger entries point at the copied snapshots).
// The target assigns new snapshot ids and commit times; documents, run ids, plans and
// ledger details are copied as they are. Checks every target scope first and, unless
// `replace`, refuses ("not_empty", nothing written) when one already holds state; with
// `replace` the target scope is reset first. A failure part way leaves the scopes copied
// so far and names the one that failed.
[[nodiscard]] ods::Result<CopyReport> copy_state(ods::contracts::StateStore& from, ods::contracts::StateStore& to,
                                                 const std::vector<std::string>& scopes, bool replace);

// Whether `scope` holds a snapshot or a ledger entry. Errors: the store's.
[[nodiscard]] ods::Result<bool> holds_state(ods::contracts::StateStore& store, const std::string& scope);

// copy_state of one scope under another name: `from_scope` of `from` into `to_scope` of `to`
// (the ledger entries' scope renamed). Refuses ("not_empty", nothing written) when `to_scope`
// already holds state. `from` and `to` may be one store.
[[nodiscard]] ods::Result<CopyReport> copy_scope_as(ods::contracts::StateStore& from, ods::contracts::StateStore& to,
                                                    const std::string& from_scope, const std::string& to_scope);

// `url` fit to print: a URL's password removed (its user name kept, as the stores' own messages
// name it) and its query replaced by "…"; the value of a key/value string's password setting by "***".
std::string redact_state_url(const std::string& url);

}  // namespace ods::state
