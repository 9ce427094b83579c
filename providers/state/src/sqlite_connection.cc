#include "sqlite_connection.h"

#include <filesystem>
#include <system_error>
#include <utility>

namespace ods::state::internal {

ods::Error sqlite_error(int code, std::string_view detail, const std::string& path, std::string_view what) {
  const int primary = code & 0xFF;
  std::string context =
      std::string("SQLite state database ") + path + " (" + std::string(what) + "): " + std::string(detail);
  switch (primary) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return {"corrupt", context +
                             ". The file is damaged or is not an ODS state database; it was left "
                             "untouched (see `ods state doctor`)."};
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return {"unavailable", context + ". Another writer holds the database; try again."};
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return {"unavailable", context + "."};
    default:
      return {"io", context + "."};
  }
}

Statement::Statement(sqlite3_stmt* statement, sqlite3* db, const std::string* path)
    : statement_(statement), db_(db), path_(path) {}

Statement& Statement::bind(int index, std::string_view text) {
  sqlite3_bind_text64(statement_.get(), index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(statement_.get(), index, value);
  return *this;
}

Statement& Statement::bind_nullable(int index, const std::optional<std::string>& text) {
  if (text) return bind(index, std::string_view(*text));
  sqlite3_bind_null(statement_.get(), index);
  return *this;
}

ods::Result<bool> Statement::step(std::string_view what) {
  const int code = sqlite3_step(statement_.get());
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  return std::unexpected(sqlite_error(sqlite3_extended_errcode(db_), sqlite3_errmsg(db_), *path_, what));
}

ods::Result<void> Statement::run(std::string_view what) {
  for (;;) {
    auto row = step(what);
    if (!row) return std::unexpected(row.error());
    if (!*row) return {};
  }
}

std::string Statement::text(int column) const {
  const auto* data = sqlite3_column_text(statement_.get(), column);
  const int size = sqlite3_column_bytes(statement_.get(), column);
  if (data == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
}

std::optional<std::string> Statement::optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return text(column);
}

std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(statement_.get(), column); }

bool Statement::is_null(int column) const { return sqlite3_column_type(statement_.get(), column) == SQLITE_NULL; }

Connection::Connection(sqlite3* db, std::string path)
    : db_(db), path_(std::make_unique<std::string>(std::move(path))) {}

ods::Result<Connection> Connection::open(const std::string& path, bool create, std::chrono::milliseconds busy_timeout) {
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  const int code = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Connection connection(raw, path);  // owns `raw` even when opening failed
  if (code != SQLITE_OK) {
    const std::string detail = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(code);
    return std::unexpected(sqlite_error(code, detail, path, "opening"));
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, static_cast<int>(busy_timeout.count()));
  return connection;
}

namespace {

// `path` as a SQLite URI filename (file:…), the characters a URI gives meaning escaped.
std::string uri_of(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      uri += '%';
      uri += kHex[(static_cast<unsigned char>(c) >> 4) & 0xF];
      uri += kHex[static_cast<unsigned char>(c) & 0xF];
    } else {
      uri += c;
    }
  }
  return uri;
}

}  // namespace

ods::Result<Connection> Connection::open_read_only(const std::string& path, bool immutable,
                                                   std::chrono::milliseconds busy_timeout) {
  sqlite3* raw = nullptr;
  const std::string name = immutable ? uri_of(path) + "?immutable=1" : path;
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (immutable ? SQLITE_OPEN_URI : 0);
  const int code = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  Connection connection(raw, path);  // owns `raw` even when opening failed
  if (code != SQLITE_OK) {
    const std::string detail = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(code);
    return std::unexpected(sqlite_error(code, detail, path, "opening read-only"));
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, static_cast<int>(busy_timeout.count()));
  return connection;
}

ods::Result<void> Connection::exec(std::string_view sql, std::string_view what) {
  const std::string text(sql);
  char* message = nullptr;
  const int code = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &message);
  if (code == SQLITE_OK) return {};
  const std::string detail = message != nullptr ? message : sqlite3_errstr(code);
  sqlite3_free(message);
  return std::unexpected(sqlite_error(sqlite3_extended_errcode(db_.get()), detail, *path_, what));
}

ods::Result<Statement> Connection::prepare(std::string_view sql, std::string_view what) {
  sqlite3_stmt* statement = nullptr;
  const int code = sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &statement, nullptr);
  if (code != SQLITE_OK) {
    sqlite3_finalize(statement);
    ods::Error error = sqlite_error(sqlite3_extended_errcode(db_.get()), sqlite3_errmsg(db_.get()), *path_, what);
    // After open verified the schema, a statement that no longer prepares ("no such table")
    // means the tables were changed underneath us.
    if ((code & 0xFF) == SQLITE_ERROR) error.code = "corrupt";
    return std::unexpected(std::move(error));
  }
  return Statement(statement, db_.get(), path_.get());
}

ods::Result<void> Connection::copy_to(const std::string& target, std::string_view what) {
  const bool existed = std::filesystem::exists(target);
  auto remove_partial = [&] {
    std::error_code ignored;
    if (!existed) std::filesystem::remove(target, ignored);
  };
  ods::Result<void> outcome;
  {
    auto destination = Connection::open(target, /*create=*/true, std::chrono::milliseconds(0));
    if (!destination) {
      remove_partial();
      return std::unexpected(destination.error());
    }
    sqlite3_backup* copy = sqlite3_backup_init(destination->handle(), "main", db_.get(), "main");
    if (copy == nullptr) {
      outcome = std::unexpected(sqlite_error(sqlite3_extended_errcode(destination->handle()),
                                             sqlite3_errmsg(destination->handle()), target, what));
    } else {
      const int stepped = sqlite3_backup_step(copy, -1);  // all pages at once: one consistent read
      const int finished = sqlite3_backup_finish(copy);
      if (stepped != SQLITE_DONE || finished != SQLITE_OK) {
        const int code = stepped != SQLITE_DONE ? stepped : finished;
        outcome = std::unexpected(sqlite_error(code, sqlite3_errstr(code), target, what));
      }
    }
  }
  if (!outcome) remove_partial();
  return outcome;
}

ods::Result<Transaction> Transaction::begin(Connection& connection, Kind kind, std::string_view what) {
  auto begun = connection.exec(kind == Kind::write ? "BEGIN IMMEDIATE" : "BEGIN", what);
  if (!begun) return std::unexpected(begun.error());
  return Transaction(&connection);
}

Transaction::Transaction(Transaction&& other) noexcept : connection_(std::exchange(other.connection_, nullptr)) {}

Transaction::~Transaction() {
  if (connection_ != nullptr) (void)connection_->exec("ROLLBACK", "rolling back");
}

ods::Result<void> Transaction::commit(std::string_view what) {
  auto done = connection_->exec("COMMIT", what);
  if (!done) return done;  // still open: the destructor rolls back
  connection_ = nullptr;
  return {};
}

}  // namespace ods::state::internal
