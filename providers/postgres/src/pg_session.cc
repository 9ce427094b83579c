#include "pg_session.h"

#include <libpq-fe.h>

#include <memory>

namespace ods::postgres {

namespace {

constexpr Oid kBoolOid = 16;

std::string trimmed(const char* message) {
  std::string text = message == nullptr ? "" : message;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// libpq's message with the connection string's password, should it quote it, masked.
std::string without_password(std::string message, const std::string& conninfo) {
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), nullptr);
  if (options == nullptr) return "the connection string could not be read";  // it may quote the password
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (std::string(o->keyword) != "password" || o->val == nullptr || *o->val == '\0') continue;
    const std::string password = o->val;
    for (auto pos = message.find(password); pos != std::string::npos; pos = message.find(password, pos + 3))
      message.replace(pos, password.size(), "***");
  }
  PQconninfoFree(options);
  return message;
}

}  // namespace

Result<PgSession> PgSession::connect(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr) return fail("probe_failed", "PostgreSQL: out of memory for a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string why = without_password(trimmed(PQerrorMessage(conn)), conninfo);
    PQfinish(conn);
    return fail("probe_failed", "PostgreSQL: " + why);
  }
  return PgSession(conn);
}

PgSession::PgSession(PgSession&& other) noexcept : conn_(other.conn_) { other.conn_ = nullptr; }

PgSession::~PgSession() {
  if (conn_ != nullptr) PQfinish(conn_);
}

Result<QueryResult> PgSession::query(const std::string& sql, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p.c_str());
  std::unique_ptr<PGresult, decltype(&PQclear)> res(
      PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0),
      &PQclear);
  const ExecStatusType status = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK)
    return fail("probe_failed",
                "PostgreSQL: " + trimmed(res ? PQresultErrorMessage(res.get()) : PQerrorMessage(conn_)));
  QueryResult out;
  const int columns = PQnfields(res.get());
  for (int c = 0; c < columns; ++c) out.columns.emplace_back(PQfname(res.get(), c));
  const int rows = PQntuples(res.get());
  out.rows.reserve(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    auto& row = out.rows.emplace_back();
    for (int c = 0; c < columns; ++c) {
      if (PQgetisnull(res.get(), r, c)) {
        row.emplace_back(std::nullopt);
        continue;
      }
      std::string value(PQgetvalue(res.get(), r, c), static_cast<std::size_t>(PQgetlength(res.get(), r, c)));
      if (PQftype(res.get(), c) == kBoolOid) value = value == "t" ? "True" : "False";
      row.emplace_back(std::move(value));
    }
  }
  return out;
}

Result<void> PgSession::execute(const std::string& sql) {
  auto done = query(sql);
  if (!done) return std::unexpected(done.error());
  return {};
}

}  // namespace ods::postgres
