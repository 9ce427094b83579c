// The native DuckDB probe: the request as JSON to the embedded Python program, its one line of
// answer read as the dbt show program's (ods/duckdb/native_probe.h).
#include "ods/duckdb/native_probe.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <utility>

#include "native_probe_source.h"
#include "ods/dbt/show_probe.h"

namespace ods::duckdb {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kErrorKey = R"({"ods_probe_error")";

json relation_json(const contracts::ProjectRelation& r) {
  return {{"id", r.id}, {"database", r.database}, {"schema", r.schema}, {"identifier", r.identifier}};
}

// One branch as the dbt show program's branch_json writes it (a statement without a condition
// carries "" as only_if).
json branch_json(const contracts::ProbeFilter& filter, const std::vector<contracts::ProbeStatement>& statements) {
  json list = json::array();
  for (const auto& st : statements) {
    json one = {{"name", st.name}, {"sql", st.sql}, {"max_rows", st.max_rows}, {"metadata_view", st.metadata_view}};
    one["only_if"] =
        st.only_if
            ? json{{"statement", st.only_if->statement}, {"column", st.only_if->column}, {"max", st.only_if->max}}
            : json("");
    list.push_back(std::move(one));
  }
  return {{"kinds", filter.kinds}, {"format", filter.format.value_or("")}, {"statements", list}};
}

json request_json(const contracts::ProbeRequest& request) {
  json branches = json::array({branch_json(request.filter, request.statements)});
  if (request.fallback) {
    branches.push_back(branch_json(request.fallback->filter, request.fallback->statements));
    for (const auto& further : request.further_fallbacks)
      branches.push_back(branch_json(further.filter, further.statements));
  }
  return {{"sources", request.sources},      {"nodes", request.nodes},
          {"branches", std::move(branches)}, {"identity", request.identity_statements},
          {"skip", request.skip_statements}, {"contents", request.content_nodes},
          {"share", request.share},          {"shares", request.shares == 0 ? 1 : request.shares}};
}

class NativeDuckDbProbe final : public contracts::RelationProbe {
 public:
  NativeDuckDbProbe(process::ProcessLauncher& launcher, NativeProcess process, NativeDatabase database,
                    contracts::ProjectRelations relations)
      : launcher_(launcher),
        process_(std::move(process)),
        database_(std::move(database)),
        relations_(std::move(relations)) {}

  Result<contracts::ProbeReport> probe(const contracts::ProbeRequest& request) override {
    const auto started = Clock::now();
    std::string answer;
    std::string said;  // stderr, for a program that ends without an answer
    process::ProcessSpec spec;
    spec.argv = {process_.python.string(), "-c", std::string(native_probe_source())};
    spec.cwd = process_.working_dir;
    spec.input_pipe = true;
    spec.on_line = [&](process::Stream stream, std::string_view line) {
      if (stream == process::Stream::standard_output && answer.empty() && line.starts_with("{"))
        answer = line;
      else if (stream == process::Stream::standard_error && said.size() < 4096)
        said += std::string(line) + "\n";
    };
    auto child = launcher_.start(std::move(spec));
    if (!child) return fail("probe_failed", "DuckDB's native probe could not start: " + child.error().message);
    auto written = (*child)->write_input(document(request).dump());
    (*child)->close_input();
    auto ended = (*child)->wait();
    if (!ended) return fail("probe_failed", "DuckDB's native probe: " + ended.error().message);
    if (answer.starts_with(kErrorKey)) return fail("probe_failed", error_of(answer));
    if (ended->exit_code != 0 || answer.empty() || !written)
      return fail("probe_failed", "DuckDB's native probe ended with exit code " + std::to_string(ended->exit_code) +
                                      " and no answer" + (said.empty() ? std::string() : ": " + said));
    auto report = dbt::parse_probe_answer(answer);
    if (!report) return report;
    report->target = database_.target;
    report->call_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return report;
  }

 private:
  json document(const contracts::ProbeRequest& request) const {
    json doc = {{"path", database_.path},
                {"quoting",
                 {{"database", relations_.quote_database},
                  {"schema", relations_.quote_schema},
                  {"identifier", relations_.quote_identifier}}},
                {"sources", json::array()},
                {"nodes", json::array()},
                {"request", request_json(request)}};
    for (const auto& s : relations_.sources) doc["sources"].push_back(relation_json(s));
    for (const auto& n : relations_.nodes) doc["nodes"].push_back(relation_json(n));
    return doc;
  }

  static std::string error_of(const std::string& line) {
    json doc = json::parse(line, nullptr, false);
    if (doc.is_discarded() || !doc["ods_probe_error"].is_string()) return "DuckDB's native probe failed: " + line;
    const std::string message = doc["ods_probe_error"].get<std::string>();
    if (doc.value("locked", false)) return "DuckDB: the database file is locked by another process: " + message;
    return "DuckDB: " + message;
  }

  process::ProcessLauncher& launcher_;
  NativeProcess process_;
  NativeDatabase database_;
  contracts::ProjectRelations relations_;
};

}  // namespace

std::unique_ptr<contracts::RelationProbe> make_native_duckdb_probe(process::ProcessLauncher& launcher,
                                                                   NativeProcess process, NativeDatabase database,
                                                                   contracts::ProjectRelations relations) {
  return std::make_unique<NativeDuckDbProbe>(launcher, std::move(process), std::move(database), std::move(relations));
}

std::string_view native_probe_source() { return kNativeProbeSource; }

}  // namespace ods::duckdb
