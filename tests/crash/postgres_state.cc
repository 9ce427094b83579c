#include "crash/postgres_state.h"

#include <sstream>

namespace ods::testing {

namespace {

using nlohmann::json;

// One statement (so one consistent view): a JSON object per snapshot, in commit order, then
// "head|SCOPE|ID" per scope, then "run|ID" per ledger entry. A snapshot's object holds its row, its skeleton and its
// pieces as [member, key or null, body] in manifest order (chunk by chunk, entry by entry). A piece or chunk the
// manifest names but the tables lack shows as a null body or a short list.
constexpr char kQuery[] = R"sql(
select 1 as part, s.seq as seq, json_build_object(
  'seq', s.seq, 'id', s.id, 'parent', coalesce(s.parent_id, ''), 'scope', s.scope, 'run', s.run_id,
  'skeleton', d.skeleton,
  'chunks', coalesce(length(m.chunks) / 32, 0),
  'found_chunks', (select count(*) from generate_series(0, coalesce(length(m.chunks) / 32, 0) - 1) i
                   join chunks c on c.digest = substring(m.chunks from 1 + 32 * i for 32)),
  'pieces', coalesce((
    select json_agg(json_build_array(e.value ->> 0, e.value -> 1, p.body) order by i, e.ord)
    from generate_series(0, length(m.chunks) / 32 - 1) i
    join chunks c on c.digest = substring(m.chunks from 1 + 32 * i for 32)
    cross join lateral json_array_elements(c.entries::json) with ordinality e(value, ord)
    left join pieces p on p.digest = decode(e.value ->> 2, 'hex')), '[]'::json))::text
from snapshots s join documents d on d.digest = s.document left join manifests m on m.digest = d.manifest
union all select 2, 0, 'head|' || scope || '|' || snapshot_id from heads
union all select 3, seq, 'run|' || run_id from runs
)sql";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// The snapshot document `row` (one line of kSnapshots) describes, or an error.
std::string assemble(const json& row, json& document) {
  const std::string id = row.at("id");
  document = json::parse(row.at("skeleton").get<std::string>(), nullptr, false);
  if (document.is_discarded() || !document.is_object()) return "snapshot " + id + ": the skeleton is not a JSON object";
  if (row.at("found_chunks") != row.at("chunks")) return "snapshot " + id + ": a chunk of its manifest is missing";
  for (const auto& piece : row.at("pieces")) {
    const std::string member = piece.at(0);
    if (piece.at(2).is_null()) return "snapshot " + id + ": a piece of member " + member + " is missing";
    json value = json::parse(piece.at(2).get<std::string>(), nullptr, false);
    if (value.is_discarded()) return "snapshot " + id + ": a piece of member " + member + " is not JSON";
    if (!document.contains(member)) return "snapshot " + id + ": member " + member + " is not in the skeleton";
    if (piece.at(1).is_null()) {
      document[member].push_back(std::move(value));
    } else {
      document[member][piece.at(1).get<std::string>()] = std::move(value);
    }
  }
  return "";
}

}  // namespace

RecordedState read_postgres_state(const PostgresServer& server) {
  RecordedState state;
  ProcessResult tables = server.psql("select count(*) from pg_tables where tablename = 'snapshots'");
  if (tables.exit_code != 0) {
    state.error = "psql: " + tables.errors;
    return state;
  }
  if (tables.output.find('1') == std::string::npos) return state;
  ProcessResult r =
      server.psql(std::string("select line from (") + kQuery + ") rows(part, seq, line) order by part, seq, line");
  if (r.exit_code != 0) {
    state.error = "psql: " + r.errors;
    return state;
  }
  for (const std::string& line : lines_of(r.output)) {
    if (line.starts_with("head|")) {
      const auto bar = line.find('|', 5);
      state.heads.emplace_back(line.substr(5, bar - 5), line.substr(bar + 1));
      continue;
    }
    if (line.starts_with("run|")) {
      state.run_ids.push_back(line.substr(4));
      continue;
    }
    const json row = json::parse(line, nullptr, false);
    if (row.is_discarded() || !row.is_object()) {
      state.error = "psql printed a line that is no snapshot row: " + line.substr(0, 200);
      return state;
    }
    RecordedSnapshot s{
        row.at("seq").get<long long>(), row.at("id"), row.at("parent"), row.at("scope"), row.at("run"), nullptr};
    if (std::string problem = assemble(row, s.document); !problem.empty()) {
      state.error = problem;
      return state;
    }
    state.snapshots.push_back(std::move(s));
  }
  return state;
}

}  // namespace ods::testing
