#include "postgres_check.h"

#include <map>
#include <vector>

#include "document_pieces.h"
#include "postgres_documents.h"
#include "store_support.h"

namespace ods::state::internal {
namespace {

struct Probe {
  const char* sql;       // each row is one problem: the columns are filled into `sentence`
  const char* sentence;  // "%0", "%1" stand for the row's columns
};

// Each query returns the rows that are damaged.
constexpr Probe kProbes[] = {
    {"SELECT encode(digest, 'hex') FROM pieces WHERE sha256(convert_to(body, 'UTF8')) <> digest",
     "Piece %0 does not match its digest: its content was changed."},
    {"SELECT encode(digest, 'hex') FROM chunks WHERE sha256(convert_to(entries, 'UTF8')) <> digest",
     "Chunk %0 does not match its digest: its content was changed."},
    {"SELECT encode(digest, 'hex') FROM manifests WHERE sha256(convert_to(encode(chunks, 'hex'), 'UTF8')) <> digest",
     "Manifest %0 does not match its digest: its content was changed."},
    {"SELECT encode(digest, 'hex') FROM documents WHERE manifest IS NULL"
     " AND sha256(convert_to(skeleton, 'UTF8')) <> digest",
     "Document %0 does not match its digest: its content was changed."},
    {"SELECT encode(m.digest, 'hex'), encode(substring(m.chunks FROM i FOR 32), 'hex')"
     " FROM manifests m, generate_series(1, length(m.chunks), 32) AS i"
     " WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.digest = substring(m.chunks FROM i FOR 32))",
     "Manifest %0 names chunk %1, which is missing."},
    {"SELECT encode(c.digest, 'hex'), e->>2 FROM chunks c, json_array_elements(c.entries::json) AS e"
     " WHERE NOT EXISTS (SELECT 1 FROM pieces p WHERE p.digest = decode(e->>2, 'hex'))",
     "Chunk %0 names piece %1, which is missing."},
};

std::string fill(std::string sentence, const PgResult& rows, int row) {
  for (int column = 0; column < 2; ++column) {
    const std::string mark = "%" + std::to_string(column);
    if (const auto at = sentence.find(mark); at != std::string::npos) sentence.replace(at, 2, rows.text(row, column));
  }
  return sentence;
}

}  // namespace

ods::Result<ods::contracts::CheckReport> check_postgres(PgConnection& connection, const std::string& schema_version) {
  constexpr std::string_view kWhat = "checking";
  ods::contracts::CheckReport report;
  report.schema_version = schema_version;
  for (const Probe& probe : kProbes) {
    auto rows = connection.exec(probe.sql, kWhat);
    if (!rows) return std::unexpected(rows.error());
    for (int row = 0; row < rows->rows(); ++row) report.problems.push_back(fill(probe.sentence, *rows, row));
  }

  std::vector<ChainLink> links;
  auto snapshots = connection.exec("SELECT id, parent_id, scope FROM snapshots", kWhat);
  if (!snapshots) return std::unexpected(snapshots.error());
  for (int row = 0; row < snapshots->rows(); ++row) {
    links.push_back({snapshots->text(row, 0), snapshots->optional_text(row, 1), snapshots->text(row, 2)});
  }
  auto heads = connection.exec(
      "SELECT h.scope, h.snapshot_id, encode(s.document, 'hex') FROM heads h LEFT JOIN snapshots s"
      " ON s.id = h.snapshot_id ORDER BY h.scope",
      kWhat);
  if (!heads) return std::unexpected(heads.error());
  std::map<std::string, std::string> head_ids;
  for (int row = 0; row < heads->rows(); ++row) {
    head_ids.emplace(heads->text(row, 0), heads->text(row, 1));
    if (heads->is_null(row, 2)) continue;  // check_chains reports the missing snapshot
    const std::string digest = heads->text(row, 2);
    auto document = load_documents(connection, {digest});
    if (!document) {
      if (document.error().code != "corrupt") return std::unexpected(document.error());
      report.problems.push_back("The head of scope '" + heads->text(row, 0) + "': " + document.error().message);
    } else if (hex_digest(document->at(digest)) != digest || !is_json(document->at(digest))) {
      report.problems.push_back("The head document of scope '" + heads->text(row, 0) +
                                "' does not match its digest or is not JSON.");
    }
  }
  for (std::string& problem : check_chains(links, head_ids)) report.problems.push_back(std::move(problem));
  report.ok = report.problems.empty();
  return report;
}

}  // namespace ods::state::internal
