#pragma once
// Factories for the StateStore implementations (contract: ods/contracts/state_store.h).
// The implementations themselves are hidden in providers/state/src.
//
// Error codes used by every store, beyond the contract's:
//   "invalid_argument"  empty scope/run id, or a snapshot document that is not JSON;
//                       nothing is written.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "ods/contracts/state_store.h"
#include "ods/planner/result.h"
#include "ods/state/clock.h"

namespace ods::state {

struct OpenOptions {
  // false: opening a database file that does not exist fails with "not_found" and
  // creates nothing (no file, no directory).
  bool create_if_missing = true;
  // How long a writer waits for another writer (process or connection) before giving up
  // with "unavailable".
  std::chrono::milliseconds busy_timeout{5000};
  // Told, in a complete sentence, about things done on the user's behalf that they should
  // know about: today, the copy kept before migrating a database that holds data. May be
  // empty. Called on the opening thread before the factory returns.
  std::function<void(const std::string&)> on_notice;
};

// The in-memory store (tests, `memory:`). Starts empty; everything is lost with it.
// Thread-safe: every method may be called from several threads at once.
// backup() fails with "unsupported".
[[nodiscard]] std::unique_ptr<ods::contracts::StateStore> make_memory_store(Clock clock = system_clock());

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
    const std::string& path, Clock clock = system_clock(), OpenOptions options = {});

// Opens the store a URL names:
//   "sqlite:PATH", "sqlite://PATH" (so "sqlite:///abs/path" is absolute)  -> open_sqlite_store
//   "memory:"                                                             -> make_memory_store
//   "postgresql://…", "postgres://…"   -> "unsupported" (not supported yet)
// Errors: "invalid_url" for a URL without a scheme, an unknown scheme (named in the
// message) or an empty path; plus open_sqlite_store's. Messages never repeat the URL's
// user information or query (where passwords live).
[[nodiscard]] ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_state_store(
    const std::string& url, Clock clock = system_clock(), OpenOptions options = {});

}  // namespace ods::state
