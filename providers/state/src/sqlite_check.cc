#include "sqlite_check.h"

#include <functional>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "store_support.h"

namespace ods::state::internal {
namespace {

using RowHandler = std::function<void(const Statement&)>;

// Runs `sql`, handing each row to `on_row`. Damage ("corrupt") becomes a problem in
// `report` and returns false (not every row was seen); any other failure is returned.
ods::Result<bool> for_each_row(Connection& connection, const char* sql, std::string_view what,
                               ods::contracts::CheckReport& report, const RowHandler& on_row) {
  auto query = connection.prepare(sql, what);
  if (!query) {
    if (query.error().code != "corrupt") return std::unexpected(query.error());
    report.problems.push_back(query.error().message);
    return false;
  }
  for (;;) {
    auto row = query->step(what);
    if (!row) {
      if (row.error().code != "corrupt") return std::unexpected(row.error());
      report.problems.push_back(row.error().message);
      return false;
    }
    if (!*row) return true;
    on_row(*query);
  }
}

struct Check {
  const char* sql;
  const char* what;
  RowHandler on_row;
};

}  // namespace

ods::Result<ods::contracts::CheckReport> check_database(Connection& connection, const std::string& schema_version) {
  ods::contracts::CheckReport report;
  report.schema_version = schema_version;
  auto transaction = Transaction::begin(connection, Transaction::Kind::read, "checking");
  if (!transaction) return std::unexpected(transaction.error());
  auto& problems = report.problems;

  std::vector<ChainLink> links;
  std::map<std::string, std::string> heads;
  const Check checks[] = {
      {"PRAGMA integrity_check", "checking page integrity",
       [&](const Statement& row) {
         if (row.text(0) != "ok") problems.push_back("SQLite integrity check: " + row.text(0));
       }},
      {"PRAGMA foreign_key_check", "checking references",
       [&](const Statement& row) {
         problems.push_back("Row " + row.text(1) + " of table " + row.text(0) + " refers to a missing row of table " +
                            row.text(2) + ".");
       }},
      {"SELECT id, digest, body FROM documents", "checking documents",
       [&](const Statement& row) {
         const std::string body = row.text(2);
         if (!is_json(body)) {
           problems.push_back("Document " + row.text(0) + " (" + row.text(1) + ") is not valid JSON.");
         } else if (content_digest(body) != row.text(1)) {
           problems.push_back("Document " + row.text(0) + " does not match its digest " + row.text(1) +
                              ": its content was changed.");
         }
       }},
      {"SELECT s.id, s.parent_id, s.scope, d.id FROM snapshots s LEFT JOIN documents d ON d.id = s.document_id",
       "checking snapshots",
       [&](const Statement& row) {
         links.push_back({row.text(0), row.optional_text(1), row.text(2)});
         if (row.is_null(3)) {
           problems.push_back("Snapshot " + row.text(0) + " of scope '" + row.text(2) + "' has lost its document.");
         }
       }},
      {"SELECT scope, snapshot_id FROM heads", "checking heads",
       [&](const Statement& row) { heads.emplace(row.text(0), row.text(1)); }},
  };

  bool chains_readable = true;
  for (const Check& check : checks) {
    auto complete = for_each_row(connection, check.sql, check.what, report, check.on_row);
    if (!complete) return std::unexpected(complete.error());
    const std::string_view what = check.what;
    if (!*complete && (what == "checking snapshots" || what == "checking heads")) chains_readable = false;
  }
  if (chains_readable) {
    for (std::string& problem : check_chains(links, heads)) problems.push_back(std::move(problem));
  } else {
    problems.push_back("The parent chains were not checked: snapshots or heads could not all be read.");
  }
  report.ok = problems.empty();
  return report;
}

}  // namespace ods::state::internal
