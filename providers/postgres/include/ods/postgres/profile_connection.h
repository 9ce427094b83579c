#pragma once
// A dbt-postgres profile output's fields (rendered: ods/dbt/profile_output.h) as the connection
// the native probe opens (issue 41 item 3), the way dbt-postgres opens its own: host, port, user,
// password (or pass), dbname (or database), connect_timeout (dbt's default 10), sslmode, sslcert,
// sslkey, sslrootcert, application_name (dbt's default "dbt"), keepalives_idle (when not 0),
// search_path (as `-c search_path=...` options) and role (`set role` after connecting). The other
// fields (threads, retries, schema aside) don't change what a probe reads and are ignored.
// The target's identity (ProbeReport::target): schema, database, name, type.
// Refused, with the reason (the caller leaves the probe to dbt): a type other than postgres, a
// required field missing (host, user, port, password, dbname, schema: dbt says what is wrong),
// a port or timeout that is not a whole number. Reasons never quote the password. Pure.
#include <expected>
#include <map>
#include <string>

#include "ods/postgres/native_probe.h"

namespace ods::postgres {

[[nodiscard]] std::expected<NativeConnection, std::string> connection_from_profile(
    const std::string& target_name, const std::map<std::string, std::string>& fields);

}  // namespace ods::postgres
