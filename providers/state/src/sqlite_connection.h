#pragma once
// A small RAII wrapper over the libsqlite3 C API: a connection, prepared statements and
// transactions, with SQLite result codes turned into ods::Error values that name the file.
// Internal to providers/state. Not thread-safe: callers serialise use of a connection.
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ods/base/result.h"

namespace ods::state::internal {

// "corrupt" for damaged or foreign files, "unavailable" for busy/locked/unreadable ones,
// "io" otherwise. `what` says what was being done ("reading snapshots").
ods::Error sqlite_error(int code, std::string_view detail, const std::string& path, std::string_view what);

class Statement {
 public:
  Statement(sqlite3_stmt* statement, sqlite3* db, const std::string* path);

  // Binds parameter `index` (1-based). Text is copied by SQLite.
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, std::int64_t value);
  Statement& bind_nullable(int index, const std::optional<std::string>& text);  // nullopt binds NULL

  // Advances: true when a row is available, false when done. Errors map via sqlite_error.
  [[nodiscard]] ods::Result<bool> step(std::string_view what);
  // Steps to completion, ignoring rows.
  [[nodiscard]] ods::Result<void> run(std::string_view what);

  std::string text(int column) const;
  std::optional<std::string> optional_text(int column) const;  // nullopt for NULL
  std::int64_t integer(int column) const;
  bool is_null(int column) const;

 private:
  struct Finalize {
    void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
  };
  std::unique_ptr<sqlite3_stmt, Finalize> statement_;
  sqlite3* db_;
  const std::string* path_;
};

class Connection {
 public:
  // Opens `path`. `create`: create the file if missing (otherwise the file must exist).
  // Sets the busy timeout and nothing else: opening never writes to the file.
  [[nodiscard]] static ods::Result<Connection> open(const std::string& path, bool create,
                                                    std::chrono::milliseconds busy_timeout);
  // Opens the existing file at `path` for reading only (SQLITE_OPEN_READONLY): every write
  // fails. `immutable`: as a file nobody changes while it is open (SQLite's immutable=1: no
  // locks, no -wal/-shm read or created), for a file in a directory this user can't write,
  // where a WAL database can't otherwise be read; exact only when no -wal file holds commits.
  [[nodiscard]] static ods::Result<Connection> open_read_only(const std::string& path, bool immutable,
                                                              std::chrono::milliseconds busy_timeout);

  // Runs one or more statements without results.
  [[nodiscard]] ods::Result<void> exec(std::string_view sql, std::string_view what);
  [[nodiscard]] ods::Result<Statement> prepare(std::string_view sql, std::string_view what);
  // Writes a consistent copy of the whole database to `target` with the SQLite backup API
  // (the file is created; the caller decides whether it may already exist). A partial copy
  // is removed on failure.
  [[nodiscard]] ods::Result<void> copy_to(const std::string& target, std::string_view what);

  sqlite3* handle() const { return db_.get(); }
  const std::string& path() const { return *path_; }

 private:
  struct Close {
    void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
  };
  Connection(sqlite3* db, std::string path);

  std::unique_ptr<sqlite3, Close> db_;
  std::unique_ptr<std::string> path_;  // stable address for the statements that name it
};

// BEGIN IMMEDIATE (write) or BEGIN (read) on construction via begin(); rolls back on
// destruction unless commit() succeeded.
class Transaction {
 public:
  enum class Kind { read, write };
  [[nodiscard]] static ods::Result<Transaction> begin(Connection& connection, Kind kind, std::string_view what);
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();

  [[nodiscard]] ods::Result<void> commit(std::string_view what);

 private:
  explicit Transaction(Connection* connection) : connection_(connection) {}
  Connection* connection_;  // not owned; null once finished
};

}  // namespace ods::state::internal
