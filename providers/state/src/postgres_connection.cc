#include "postgres_connection.h"

#include <cstdlib>
#include <regex>
#include <set>
#include <utility>

#include "ods/state/store_url.h"

namespace ods::state::internal {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text;
}

// The settings libpq reads from `conninfo` (URL or key=value), keyword -> value; nullopt
// with libpq's (unscrubbed) message when it cannot parse it.
std::optional<std::vector<std::pair<std::string, std::string>>> parse_conninfo(const std::string& conninfo,
                                                                               std::string& error) {
  char* message = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &message);
  if (options == nullptr) {
    error = message != nullptr ? trimmed(message) : "out of memory";
    if (message != nullptr) PQfreemem(message);
    return std::nullopt;
  }
  std::vector<std::pair<std::string, std::string>> settings;
  for (PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (option->val != nullptr) settings.emplace_back(option->keyword, option->val);
  }
  PQconninfoFree(options);
  return settings;
}

std::string percent_decoded(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const std::string hex = text.substr(i + 1, 2);
      char* end = nullptr;
      const long value = std::strtol(hex.c_str(), &end, 16);
      if (end == hex.c_str() + 2) {
        out.push_back(static_cast<char>(value));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

// Every spelling of the password `conninfo` may carry, found without libpq (so strings
// libpq rejects are covered too).
std::set<std::string> password_spellings(const std::string& conninfo) {
  std::set<std::string> found;
  static const std::regex kKeyword(R"((?:^|[\s?&])password\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&]+))");
  for (auto it = std::sregex_iterator(conninfo.begin(), conninfo.end(), kKeyword); it != std::sregex_iterator(); ++it) {
    std::string value = (*it)[1].str();
    found.insert(value);
    if (value.size() >= 2 && value.front() == '\'') found.insert(value.substr(1, value.size() - 2));
    found.insert(percent_decoded(value));
  }
  if (const auto scheme = conninfo.find("://"); scheme != std::string::npos) {
    const auto at = conninfo.find('@', scheme + 3);
    const auto slash = conninfo.find('/', scheme + 3);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
      const std::string user_info = conninfo.substr(scheme + 3, at - scheme - 3);
      if (const auto colon = user_info.find(':'); colon != std::string::npos) {
        found.insert(user_info.substr(colon + 1));
        found.insert(percent_decoded(user_info.substr(colon + 1)));
      }
    }
  }
  std::string ignored;
  if (auto settings = parse_conninfo(conninfo, ignored)) {
    for (const auto& [name, value] : *settings)
      if (name == "password") found.insert(value);
  }
  found.erase("");
  return found;
}

bool is_connection_loss(const std::string& state) {
  return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03";
}

}  // namespace

std::string scrub_password(std::string text, const std::string& conninfo) {
  for (const std::string& secret : password_spellings(conninfo)) {
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3)) {
      text.replace(at, secret.size(), "***");
    }
  }
  return text;
}

}  // namespace ods::state::internal

namespace ods::state {

std::string PostgresServer::location() const {
  return host + (port.empty() ? "" : ":" + port) + (dbname.empty() ? "" : "/" + dbname);
}

ods::Result<PostgresServer> parse_postgres_conninfo(const std::string& conninfo) {
  std::string error;
  auto settings = internal::parse_conninfo(conninfo, error);
  if (!settings) {
    return ods::fail("invalid_url",
                     "Not a valid PostgreSQL connection string: " + internal::scrub_password(error, conninfo) + ".");
  }
  PostgresServer server;
  for (const auto& [name, value] : *settings) {
    if (name == "user") server.user = value;
    if (name == "host" || (name == "hostaddr" && server.host.empty())) server.host = value;
    if (name == "port") server.port = value;
    if (name == "dbname") server.dbname = value;
  }
  return server;
}

}  // namespace ods::state

namespace ods::state::internal {

ods::Result<std::string> describe_conninfo(const std::string& conninfo) {
  ODS_TRY(const PostgresServer server, parse_postgres_conninfo(conninfo));
  return scrub_password("postgresql://" + (server.user.empty() ? "" : server.user + "@") + server.location(), conninfo);
}

std::string PgResult::text(int row, int column) const {
  return std::string(PQgetvalue(result_.get(), row, column), PQgetlength(result_.get(), row, column));
}

std::optional<std::string> PgResult::optional_text(int row, int column) const {
  if (is_null(row, column)) return std::nullopt;
  return text(row, column);
}

long long PgResult::integer(int row, int column) const { return std::atoll(PQgetvalue(result_.get(), row, column)); }

long long PgResult::affected() const { return std::atoll(PQcmdTuples(result_.get())); }

PgConnection::PgConnection(PGconn* connection, std::string conninfo, std::string server)
    : connection_(connection),
      conninfo_(std::make_unique<std::string>(std::move(conninfo))),
      server_(std::make_unique<std::string>(std::move(server))) {}

ods::Result<PgConnection> PgConnection::open(const std::string& conninfo, std::chrono::milliseconds lock_timeout) {
  auto server = describe_conninfo(conninfo);
  if (!server) return std::unexpected(server.error());
  const char* keywords[] = {"dbname", "fallback_application_name", nullptr};
  const char* values[] = {conninfo.c_str(), "ods", nullptr};
  PGconn* raw = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  PgConnection connection(raw, conninfo, *server);
  if (raw != nullptr)
    PQsetNoticeProcessor(
        raw, [](void*, const char*) {}, nullptr);  // no stray stderr lines
  if (raw == nullptr || PQstatus(raw) != CONNECTION_OK) {
    const std::string message = raw == nullptr ? "out of memory" : trimmed(PQerrorMessage(raw));
    return ods::fail("unavailable",
                     "Cannot connect to PostgreSQL server " + *server + ": " + scrub_password(message, conninfo));
  }
  connection.lock_timeout_ = lock_timeout;
  if (auto configured = connection.configure(); !configured) return std::unexpected(configured.error());
  return connection;
}

ods::Result<void> PgConnection::configure() {
  auto set = exec("SELECT set_config('lock_timeout', $1, false), set_config('client_encoding', 'UTF8', false)",
                  Params{std::to_string(lock_timeout_.count()) + "ms"}, "configuring the session");
  if (!set) return std::unexpected(set.error());
  if (read_only_) {
    auto read_only = exec("SELECT set_config('default_transaction_read_only', 'on', false)", "configuring the session");
    if (!read_only) return std::unexpected(read_only.error());
  }
  return {};
}

ods::Result<void> PgConnection::make_read_only() {
  read_only_ = true;
  return configure();
}

ods::Result<void> PgConnection::ensure_connected(std::string_view what) {
  if (PQstatus(connection_.get()) == CONNECTION_OK) return {};
  PQreset(connection_.get());
  if (PQstatus(connection_.get()) == CONNECTION_OK) return configure();
  return ods::fail("unavailable", "PostgreSQL server " + server() + " is unreachable (" + std::string(what) +
                                      "): " + scrub_password(trimmed(PQerrorMessage(connection_.get())), *conninfo_));
}

ods::Error PgConnection::error_of(const PGresult* result, std::string_view what) const {
  const char* field = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const std::string state = field != nullptr ? field : "";
  std::string message =
      trimmed(result != nullptr && *PQresultErrorMessage(result) != '\0' ? PQresultErrorMessage(result)
                                                                         : PQerrorMessage(connection_.get()));
  message = scrub_password(message, *conninfo_);
  std::string code = "io";
  if (state == "23505" || state == "40001" || state == "40P01") code = "conflict";
  if (state == "42P01" || state == "42703") code = "corrupt";
  if (state == "55P03" || is_connection_loss(state) || PQstatus(connection_.get()) != CONNECTION_OK) {
    code = "unavailable";
  }
  std::string text = "PostgreSQL server " + server() + " (" + std::string(what) + "): " + message;
  if (code == "unavailable" && PQstatus(connection_.get()) != CONNECTION_OK) {
    text = "The connection to PostgreSQL server " + server() + " was lost while " + std::string(what) + ": " + message;
  }
  return {code, text};
}

ods::Result<PgResult> PgConnection::exec(std::string_view sql, const Params& params, std::string_view what) {
  if (!transaction_open_) {
    if (auto connected = ensure_connected(what); !connected) return std::unexpected(connected.error());
  }
  std::vector<const char*> values;
  std::vector<int> lengths;
  for (const auto& param : params) {
    values.push_back(param ? param->data() : nullptr);
    lengths.push_back(param ? static_cast<int>(param->size()) : 0);
  }
  const std::string statement(sql);
  // Without parameters, the simple protocol (several statements at once: migrations).
  PGresult* raw = params.empty() ? PQexec(connection_.get(), statement.c_str())
                                 : PQexecParams(connection_.get(), statement.c_str(), static_cast<int>(params.size()),
                                                nullptr, values.data(), lengths.data(), nullptr, 0);
  PgResult result(raw);
  const ExecStatusType status = raw == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(raw);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return std::unexpected(error_of(raw, what));
  return result;
}

ods::Result<void> PgConnection::copy_in(std::string_view copy_sql, const std::string& data, std::string_view what) {
  PGconn* raw = connection_.get();
  {
    PGresult* started = PQexec(raw, std::string(copy_sql).c_str());
    PgResult holder(started);
    if (started == nullptr || PQresultStatus(started) != PGRES_COPY_IN) return std::unexpected(error_of(started, what));
  }
  const bool sent = PQputCopyData(raw, data.data(), static_cast<int>(data.size())) == 1;
  if (PQputCopyEnd(raw, sent ? nullptr : "sending the rows failed") != 1)
    return std::unexpected(error_of(nullptr, what));
  std::optional<ods::Error> failure;
  while (PGresult* result = PQgetResult(raw)) {
    PgResult holder(result);
    if (PQresultStatus(result) != PGRES_COMMAND_OK && !failure) failure = error_of(result, what);
  }
  if (failure) return std::unexpected(*failure);
  return {};
}

ods::Result<PgTransaction> PgTransaction::begin(PgConnection& connection, std::string_view what,
                                                std::string_view mode) {
  std::string sql = "BEGIN";
  if (!mode.empty()) sql += " " + std::string(mode);
  auto begun = connection.exec(sql, what);
  if (!begun) return std::unexpected(begun.error());
  connection.transaction_open_ = true;
  return PgTransaction(&connection);
}

PgTransaction::PgTransaction(PgTransaction&& other) noexcept : connection_(std::exchange(other.connection_, nullptr)) {}

PgTransaction::~PgTransaction() {
  if (connection_ == nullptr) return;
  if (PQstatus(connection_->connection_.get()) == CONNECTION_OK) (void)connection_->exec("ROLLBACK", "rolling back");
  connection_->transaction_open_ = false;
}

ods::Result<void> PgTransaction::commit(std::string_view what) {
  auto done = connection_->exec("COMMIT", what);
  connection_->transaction_open_ = false;
  connection_ = nullptr;
  if (!done) {
    ods::Error error = done.error();
    if (error.code == "unavailable") {
      error.message += " (the connection went during COMMIT: the transaction either landed whole or not at all)";
    }
    return std::unexpected(error);
  }
  return {};
}

}  // namespace ods::state::internal
