#pragma once
// A small RAII wrapper over libpq: one connection, parameterised queries with text results,
// and transactions, with libpq failures turned into ods::Error values that name the server
// (host, port, database, user) and never the password. Internal to providers/state.
// Not thread-safe: callers serialise use of a connection.
#include <libpq-fe.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ods/base/result.h"

namespace ods::state::internal {

// What a connection string names, safe to print: "postgresql://USER@HOST:PORT/DBNAME" with
// whatever of those the string sets (parse_postgres_conninfo, ods/state/store_url.h; libpq's
// defaults apply to the rest). Never the password.
// Errors: "invalid_url" when libpq cannot parse the string (message scrubbed).
[[nodiscard]] ods::Result<std::string> describe_conninfo(const std::string& conninfo);

// `text` with every occurrence of the password `conninfo` carries (URL user information,
// "password=" keyword, "?password=" query) replaced by "***". Works on strings libpq rejects.
std::string scrub_password(std::string text, const std::string& conninfo);

class PgResult {
 public:
  explicit PgResult(PGresult* result) : result_(result) {}
  int rows() const { return PQntuples(result_.get()); }
  std::string text(int row, int column) const;
  std::optional<std::string> optional_text(int row, int column) const;  // nullopt for NULL
  bool is_null(int row, int column) const { return PQgetisnull(result_.get(), row, column) != 0; }
  long long integer(int row, int column) const;
  long long affected() const;  // rows an INSERT/UPDATE/DELETE touched

 private:
  struct Clear {
    void operator()(PGresult* result) const { PQclear(result); }
  };
  std::unique_ptr<PGresult, Clear> result_;
};

using Params = std::vector<std::optional<std::string>>;  // nullopt binds NULL

class PgConnection {
 public:
  // Connects (libpq: TLS, passfile, service files are libpq's). `lock_timeout` bounds how long
  // a statement waits for another writer's lock. Errors: "invalid_url", "unavailable".
  [[nodiscard]] static ods::Result<PgConnection> open(const std::string& conninfo,
                                                      std::chrono::milliseconds lock_timeout);

  // Runs `sql` with `params` ($1, $2, … as text). Errors, each naming the server and `what`:
  //   "conflict"    unique violation, serialization failure or deadlock (SQLSTATE 23505, 40001, 40P01);
  //   "unavailable" the connection is gone, the server shut down or a lock wait timed out;
  //   "corrupt"     the schema is not what this binary expects (undefined table/column);
  //   "io"          anything else.
  // A connection lost earlier is re-established first, outside a PgTransaction only (a
  // statement of a transaction whose connection went fails: its transaction is gone).
  [[nodiscard]] ods::Result<PgResult> exec(std::string_view sql, const Params& params, std::string_view what);
  [[nodiscard]] ods::Result<PgResult> exec(std::string_view sql, std::string_view what) {
    return exec(sql, Params{}, what);
  }

  // Runs `copy_sql` (a COPY … FROM STDIN) and sends `data` (COPY text format). Errors as exec().
  [[nodiscard]] ods::Result<void> copy_in(std::string_view copy_sql, const std::string& data, std::string_view what);

  const std::string& server() const { return *server_; }  // describe_conninfo()

  // From now on, this session and every reconnection refuse writes
  // (default_transaction_read_only). Errors as exec().
  [[nodiscard]] ods::Result<void> make_read_only();

 private:
  struct Finish {
    void operator()(PGconn* connection) const { PQfinish(connection); }
  };
  PgConnection(PGconn* connection, std::string conninfo, std::string server);
  ods::Error error_of(const PGresult* result, std::string_view what) const;
  [[nodiscard]] ods::Result<void> ensure_connected(std::string_view what);
  // The session settings every (re)connection gets: lock_timeout, client_encoding UTF8, and
  // default_transaction_read_only once make_read_only() was called.
  [[nodiscard]] ods::Result<void> configure();

  std::unique_ptr<PGconn, Finish> connection_;
  std::unique_ptr<std::string> conninfo_;  // kept for reconnecting; never printed
  std::unique_ptr<std::string> server_;
  std::chrono::milliseconds lock_timeout_{5000};
  bool read_only_ = false;
  bool transaction_open_ = false;  // between PgTransaction::begin and its end
  friend class PgTransaction;
};

// BEGIN on begin(); rolls back on destruction unless commit() succeeded. `mode` is appended
// to BEGIN ("ISOLATION LEVEL REPEATABLE READ, READ ONLY" for consistent reads).
class PgTransaction {
 public:
  [[nodiscard]] static ods::Result<PgTransaction> begin(PgConnection& connection, std::string_view what,
                                                        std::string_view mode = {});
  PgTransaction(PgTransaction&& other) noexcept;
  PgTransaction& operator=(PgTransaction&&) = delete;
  ~PgTransaction();
  [[nodiscard]] ods::Result<void> commit(std::string_view what);

 private:
  explicit PgTransaction(PgConnection* connection) : connection_(connection) {}
  PgConnection* connection_;  // not owned; null once finished
};

}  // namespace ods::state::internal
