#include "ods/state/postgres_access.h"

#include <cctype>
#include <regex>

#include "ods/state/stores.h"
#include "postgres_migrations.h"
#include "postgres_privileges.h"

namespace ods::state {
namespace {

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace

const std::vector<std::string>& postgres_state_tables() {
  static const std::vector<std::string> kTables = [] {
    std::vector<std::string> tables{"schema_migrations"};
    static const std::regex kTable(R"((CREATE|DROP)\s+TABLE\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([a-z_][a-z0-9_]*))",
                                   std::regex::icase);
    for (const auto& migration : internal::builtin_postgres_migrations()) {
      for (auto it = std::sregex_iterator(migration.sql.begin(), migration.sql.end(), kTable);
           it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[2].str();
        std::erase(tables, name);
        const bool created = std::toupper(static_cast<unsigned char>((*it)[1].str()[0])) == 'C';
        if (created) tables.push_back(name);
      }
    }
    return tables;
  }();
  return kTables;
}

ods::Result<std::string> postgres_read_only_grants(const std::string& conninfo, const std::string& role) {
  if (role.empty()) return ods::fail("usage", "Name the role to grant read access to (a role that can log in).");
  auto connection = internal::PgConnection::open(conninfo, std::chrono::milliseconds(5000));
  if (!connection) return std::unexpected(connection.error());
  ODS_TRY_VOID(connection->make_read_only());
  // Only what a reader needs: an ODS state database at this binary's schema version.
  ODS_TRY(const int version, internal::migrate_postgres(*connection, internal::builtin_postgres_migrations(),
                                                        system_clock(), false, true));
  (void)version;
  ODS_TRY(auto names, connection->exec("SELECT quote_ident(current_schema()), quote_ident($1)", internal::Params{role},
                                       "reading the schema"));
  const std::string schema = names.text(0, 0), grantee = names.text(0, 1);
  std::vector<std::string> tables;
  for (const auto& table : postgres_state_tables()) tables.push_back(schema + "." + table);
  return "-- Read-only access to the ODS state in schema " + schema + " of " + connection->server() + " for role " +
         grantee +
         ".\n-- Run as the tables' owner (the writer's credential), again after an ODS "
         "upgrade that adds tables.\nGRANT USAGE ON SCHEMA " +
         schema + " TO " + grantee + ";\nGRANT SELECT ON TABLE " + joined(tables, ", ") + " TO " + grantee + ";\n";
}

namespace internal {

ods::Result<void> refuse_writable_credential(PgConnection& connection) {
  constexpr std::string_view kWhat = "checking the credential's privileges";
  // has_table_privilege with a list of privileges: true when any of them is held (ownership
  // and superuser included).
  auto rows = connection.exec(
      "SELECT current_user, t FROM unnest($1::text[]) AS t WHERE to_regclass(quote_ident(current_schema()) || '.' "
      "|| quote_ident(t)) IS NOT NULL AND has_table_privilege(to_regclass(quote_ident(current_schema()) || '.' || "
      "quote_ident(t)), 'INSERT, UPDATE, DELETE, TRUNCATE')",
      Params{"{" + joined(postgres_state_tables(), ",") + "}"}, kWhat);
  if (!rows) return std::unexpected(rows.error());
  if (rows->rows() == 0) return {};
  std::vector<std::string> writable;
  for (int row = 0; row < rows->rows(); ++row) writable.push_back(rows->text(row, 1));
  return ods::fail("writable_credential",
                   "The credential of " + connection.server() + " (role " + rows->text(0, 0) +
                       ") can write the ODS state (INSERT, UPDATE, DELETE or TRUNCATE on " + joined(writable, ", ") +
                       "), and this command was asked to hold a read-only one (--read-only-state: a pull "
                       "request's plan, which runs the pull request's code). Give it a role with SELECT on the "
                       "state tables only (`ods state grants ROLE` prints the SQL; docs/security.md). Nothing "
                       "was read.");
}

}  // namespace internal
}  // namespace ods::state
