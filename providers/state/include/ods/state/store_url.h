#pragma once
// The state store URL ($ODS_STATE_URL, --state), parsed in one place: open_state_store opens
// what it names, `ods` reports describe it without a credential (describe_store), and the
// PostgreSQL store names its server by it.
#include <string>

#include "ods/base/result.h"

namespace ods::state {

struct StoreUrl {
  enum class Kind { memory, sqlite, postgresql, unknown };
  Kind kind = Kind::unknown;
  // The RFC 3986 scheme, lower-cased; "" when the text has none (a libpq key/value string).
  std::string scheme;
  // sqlite: the database file, after "sqlite:" and one "//" ("sqlite:///abs" -> "/abs"; may be
  // empty). memory: what follows "memory:" ("" or "//" are the valid ones). Else "".
  std::string path;
};

// What `url` names, without opening anything or validating more than its form:
//   "sqlite:PATH", "sqlite://PATH"                          -> sqlite, path PATH
//   "memory:…"                                              -> memory
//   "postgresql://…", "postgres://…", and text without a scheme holding an '=' (libpq
//   key/value settings, "host=… dbname=…")                  -> postgresql (the text is libpq's)
//   anything else (no scheme and no '=', another scheme)    -> unknown
// Schemes are compared case-insensitively. Never fails; thread-safe.
StoreUrl parse_store_url(const std::string& url);

// The server a PostgreSQL connection string (a URL or key/value settings) names, as libpq
// reads it (PQconninfoParse: what the string sets, not libpq's defaults or environment).
struct PostgresServer {
  std::string user, host, port, dbname;  // "" when the string leaves one out; host: host, else hostaddr
  // "HOST:PORT/DBNAME" with whatever of those is set ("db/ods", "db:5432", "").
  std::string location() const;
};

// Errors: "invalid_url" when libpq cannot parse `conninfo`; the message never repeats the
// password. Thread-safe.
[[nodiscard]] ods::Result<PostgresServer> parse_postgres_conninfo(const std::string& conninfo);

}  // namespace ods::state
