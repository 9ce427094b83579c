#pragma once
// One libpq connection for the native probe: statements run as text queries (parameters sent
// apart from the text), each result read whole. Messages are PostgreSQL's, trimmed; they never
// quote the connection string. Not thread-safe.
#include <optional>
#include <string>
#include <vector>

#include "ods/base/result.h"

struct pg_conn;

namespace ods::postgres {

struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;  // NULL: nullopt
};

class PgSession {
 public:
  // Connects; error "probe_failed" with libpq's message.
  [[nodiscard]] static Result<PgSession> connect(const std::string& conninfo);
  PgSession(PgSession&& other) noexcept;
  PgSession& operator=(PgSession&&) = delete;
  PgSession(const PgSession&) = delete;
  ~PgSession();

  // Runs `sql` with `params` ($1, $2 ...). Booleans are read as "True"/"False" (dbt's agate
  // text); other values as PostgreSQL's text. Error "probe_failed" quoting PostgreSQL.
  [[nodiscard]] Result<QueryResult> query(const std::string& sql, const std::vector<std::string>& params = {});
  // The same for a statement without a result (begin, set role ...).
  [[nodiscard]] Result<void> execute(const std::string& sql);

 private:
  explicit PgSession(pg_conn* conn) : conn_(conn) {}
  pg_conn* conn_ = nullptr;
};

}  // namespace ods::postgres
