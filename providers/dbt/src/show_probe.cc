// RelationProbe over `dbt show --inline`: runs the fixed program, reads the ShowNode event.
#include "ods/dbt/show_probe.h"

#include <chrono>
#include <nlohmann/json.hpp>

namespace ods::dbt {

using nlohmann::json;

namespace {

contracts::ProbeAnswer answer_from_json(const json& j) {
  contracts::ProbeAnswer a;
  std::string status = j.value("status", "");
  a.why = j.value("why", "");
  if (status == "ok") {
    a.status = contracts::ProbeAnswer::Status::ok;
  } else if (status == "missing") {
    a.status = contracts::ProbeAnswer::Status::missing;
  } else if (status == "skipped") {
    a.status = contracts::ProbeAnswer::Status::skipped;
  } else {
    a.status = contracts::ProbeAnswer::Status::unknown;
    if (a.why.empty()) a.why = "the probe gave an answer of unknown status '" + status + "'";
  }
  a.fallback = j.value("fallback", false);
  // relation_probe 0.5: the branch that ran; an answer without one names the fallback or not
  a.branch =
      j.contains("branch") && j["branch"].is_number_unsigned() ? j["branch"].get<std::size_t>() : (a.fallback ? 1 : 0);
  auto row_of = [](const json& row) {
    contracts::ProbeRow out;
    if (row.is_object())
      for (const auto& [col, value] : row.items())
        if (value.is_string()) out[col] = value.get<std::string>();
    return out;
  };
  if (j.contains("row_sets") && j["row_sets"].is_object()) {
    for (const auto& [statement, rows] : j["row_sets"].items()) {
      if (!rows.is_array()) continue;
      auto& set = a.row_sets[statement];
      for (const auto& row : rows) set.push_back(row_of(row));
      a.rows[statement] = set.empty() ? contracts::ProbeRow{} : set.front();
    }
  }
  if (j.contains("rows") && j["rows"].is_object()) {  // a one-row answer (relation_probe 0.1's shape)
    for (const auto& [statement, row] : j["rows"].items()) {
      if (!row.is_object() || a.rows.contains(statement)) continue;
      a.rows[statement] = row_of(row);
      a.row_sets[statement] = {a.rows[statement]};
    }
  }
  if (j.contains("seconds") && j["seconds"].is_number()) a.seconds = j["seconds"].get<double>();
  if (j.contains("statements_skipped") && j["statements_skipped"].is_array())  // relation_probe 0.10
    for (const auto& name : j["statements_skipped"])
      if (name.is_string()) a.statements_skipped.push_back(name.get<std::string>());
  return a;
}

// The program sends the hex of its JSON answer (show_probe_program.cc); plain JSON is read as is.
std::string decoded_answer(const std::string& text) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (text.empty() || text.size() % 2 != 0) return text;
  std::string out;
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    int hi = digit(text[i]), lo = digit(text[i + 1]);
    if (hi < 0 || lo < 0) return text;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

class ShowProbe final : public contracts::RelationProbe {
 public:
  ShowProbe(DbtCommand& dbt, ShowProbeOptions options) : dbt_(dbt), options_(std::move(options)) {}

  ods::Result<contracts::ProbeReport> probe(const contracts::ProbeRequest& request) override {
    // --no-write-json: the answer is in the log events; dbt's manifest.json and run_results.json
    // of a show call are read by nobody and cost most of the call on a large project (3.5 of
    // 4.5 s at 5,000 nodes, docs/benchmarks.md). --no-populate-cache: the program lists the
    // relations it needs itself (list_relations_without_caching); dbt's cache of every schema's
    // relations, filled before the call, was 1.5 s of the rest.
    std::vector<std::string> args{"show",
                                  "--no-write-json",
                                  "--no-populate-cache",
                                  "--inline",
                                  show_probe_program(request),
                                  "--output",
                                  "json",
                                  "--limit",
                                  "1"};
    args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
    auto started = std::chrono::steady_clock::now();
    auto ran = dbt_.run(args);
    if (!ran) return fail("probe_failed", "dbt show could not be started: " + ran.error().message);
    if (ran->interrupted) return fail("cancelled", "the probe was interrupted");
    if (ran->exit_code != 0) {
      std::string why = ran->error_text.empty() ? "exit code " + std::to_string(ran->exit_code) : ran->error_text;
      return fail("probe_failed", "dbt show failed: " + why);
    }
    const double call_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    auto report = parse_show_probe_answer(ran->events);
    if (!report) return report;
    report->call_seconds = call_seconds;  // dbt's share; reading its answer is ODS's (ods state run's timings)
    return report;
  }

 private:
  DbtCommand& dbt_;
  ShowProbeOptions options_;
};

}  // namespace

std::unique_ptr<contracts::RelationProbe> make_show_probe(DbtCommand& dbt, ShowProbeOptions options) {
  return std::make_unique<ShowProbe>(dbt, std::move(options));
}

ods::Result<contracts::ProbeReport> parse_probe_answer(const std::string& text) {
  json answer = json::parse(text, nullptr, false);
  if (answer.is_discarded() || !answer.is_object())
    return fail("probe_failed", "the probe's answer is not a JSON object");
  contracts::ProbeReport report;
  if (answer.contains("sources") && answer["sources"].is_object())
    for (const auto& [id, a] : answer["sources"].items())
      if (a.is_object()) report.sources[id] = answer_from_json(a);
  if (answer.contains("contents") && answer["contents"].is_object())
    for (const auto& [id, a] : answer["contents"].items())
      if (a.is_object()) report.contents[id] = answer_from_json(a);
  for (const auto& [field, into] : {std::pair{"sources_elsewhere", &report.sources_elsewhere},
                                    std::pair{"contents_elsewhere", &report.contents_elsewhere}})
    if (answer.contains(field) && answer[field].is_object())
      for (const auto& [id, share] : answer[field].items())
        if (share.is_number_unsigned()) (*into)[id] = share.get<std::size_t>();
  if (answer.contains("target") && answer["target"].is_object())
    for (const auto& [field, value] : answer["target"].items())
      if (value.is_string()) report.target[field] = value.get<std::string>();
  if (answer.contains("nodes") && answer["nodes"].is_object())
    for (const auto& [id, exists] : answer["nodes"].items())
      if (exists.is_boolean()) report.relations_exist[id] = exists.get<bool>();
  if (answer.contains("identities") && answer["identities"].is_object())
    for (const auto& [id, identity] : answer["identities"].items())
      if (identity.is_string() && !identity.get<std::string>().empty())
        report.relation_identities[id] = identity.get<std::string>();
  if (answer.contains("node_kinds") && answer["node_kinds"].is_object())
    for (const auto& [id, kind] : answer["node_kinds"].items())
      if (kind.is_string()) report.relation_kinds[id] = kind.get<std::string>();
  return report;
}

ods::Result<contracts::ProbeReport> parse_show_probe_answer(const std::vector<std::string>& events) {
  for (const auto& line : events) {
    if (line.find("\"ShowNode\"") == std::string::npos) continue;
    json event = json::parse(line, nullptr, false);
    if (event.is_discarded() || !event.contains("data") || !event["data"].contains("preview")) continue;
    const json& preview_field = event["data"]["preview"];
    json preview =
        preview_field.is_string() ? json::parse(preview_field.get<std::string>(), nullptr, false) : preview_field;
    // Snowflake names an unquoted alias in upper case (ODS_PROBE).
    const char* column = !preview.is_array() || preview.empty() || !preview[0].is_object() ? nullptr
                         : preview[0].contains("ods_probe")                                ? "ods_probe"
                         : preview[0].contains("ODS_PROBE")                                ? "ODS_PROBE"
                                                                                           : nullptr;
    if (column == nullptr || !preview[0][column].is_string())
      return fail("probe_failed", "dbt show answered, but not with the probe's ods_probe column");
    return parse_probe_answer(decoded_answer(preview[0][column].get<std::string>()));
  }
  return fail("probe_failed", "dbt show printed no ShowNode event with the probe's answer");
}

}  // namespace ods::dbt
