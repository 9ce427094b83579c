#include "ods/callback/protocol.h"

#include "body_json.h"
#include "ods/planner/fingerprint.h"
#include "ods/planner/json_io.h"
#include "shared_members.h"

namespace ods::callback {

using namespace detail;

namespace {

planner::ProjectInputs inputs_at(const json& doc) {
  const json& inputs = object_at(doc, "", "inputs");
  auto parsed = planner::inputs_from_json(inputs.dump());
  if (!parsed) refuse("inputs", parsed.error().message);
  return std::move(*parsed);
}

// The members a pod's report of a build has, to results and to wave alike: the inputs, its
// build (`build_required`: a non-null object) and the contents measured after it.
template <class Report>
void read_build_members(const json& doc, Report& r, bool build_required) {
  r.inputs = inputs_at(doc);
  if (build_required)
    r.build = build_report_from(object_at(doc, "", "build"), "build");
  else if (const json* build = member(doc, "", "build", Need::optional))
    r.build = build_report_from(*build, "build");
  r.node_contents = contents_at(doc, "", "node_contents");
}

// The members the controller's plan answer and wave answer share: the run, what builds now
// (`select`), the whole plan and its counts (returned, for the members only one has).
template <class Answer>
const json& read_selection_members(const json& doc, Answer& a) {
  a.run_id = string_at(doc, "", "run_id");
  a.select = strings_at(doc, "", "select");
  a.plan_json = object_at(doc, "", "plan").dump();
  const json& counts = object_at(doc, "", "counts");
  a.build = integer_at(counts, "counts", "build");
  a.reuse = integer_at(counts, "counts", "reuse");
  return counts;
}

// The writer of read_build_members' members (`build`: the build's JSON), and the protocol
// version, into `doc`, which holds the body's other members.
template <class Report>
std::string with_build_members(json doc, const Report& r, json build) {
  doc["protocol"] = kProtocolVersion;
  doc["build"] = std::move(build);
  return splice_members(
      doc, {{"inputs", planner::to_json(r.inputs)}, {"node_contents", contents_json_text(r.node_contents)}});
}

// The writer of read_selection_members' members, and the protocol version, into `doc`.
template <class Answer>
std::string with_selection_members(json doc, const Answer& a) {
  doc["protocol"] = kProtocolVersion;
  doc["run_id"] = a.run_id;
  doc["select"] = a.select;
  doc["counts"]["build"] = a.build;
  doc["counts"]["reuse"] = a.reuse;
  return splice_members(doc, {{"plan", a.plan_json}});
}

std::optional<std::string> snapshot_id_at(const json& doc) {
  if (const json* id = member(doc, "", "snapshot_id", Need::optional)) return string_value(*id, "snapshot_id");
  return std::nullopt;
}

InputsRequest read_inputs_request(const json& doc) {
  InputsRequest r;
  r.inputs = inputs_at(doc);
  if (member(doc, "", "relations_exist", Need::optional))
    r.relations_exist = map_at<bool>(doc, "", "relations_exist", bool_value);
  if (member(doc, "", "selected", Need::optional)) r.selected = strings_at(doc, "", "selected");
  if (member(doc, "", "check_selected", Need::optional)) r.check_selected = strings_at(doc, "", "check_selected");
  const json& probe = object_at(doc, "", "probe");
  r.probe.strategy = string_at(probe, "probe", "strategy");
  r.probe.call_seconds = number_at(probe, "probe", "call_seconds");
  r.probe.source_seconds = map_at<double>(probe, "probe", "source_seconds", number_value);
  r.probe.warnings = strings_at(probe, "probe", "warnings");
  const json& timings = object_at(doc, "", "timings");
  r.compile_seconds = number_at(timings, "timings", "compile");
  r.probe_seconds = number_at(timings, "timings", "probe");
  if (member(doc, "", "cutoff", Need::optional)) r.cutoff = cutoff_mode_at(doc, "cutoff");
  return r;
}

PlanAnswer read_plan_answer(const json& doc) {
  PlanAnswer a;
  read_selection_members(doc, a);
  a.scope = string_at(doc, "", "scope");
  if (member(doc, "", "wave", Need::optional)) a.wave = wave_info_at(doc, "", "wave");
  return a;
}

BuildResults read_build_results(const json& r, const std::string& path) {
  BuildResults out;
  out.invocation_id = string_at(r, path, "invocation_id");
  out.started_at = string_at(r, path, "started_at");
  out.finished_at = string_at(r, path, "finished_at");
  out.node_status = map_at<std::string>(r, path, "node_status", string_value);
  out.node_tests_passed = map_at<bool>(r, path, "node_tests_passed", bool_value);
  out.source_tests_passed = map_at<bool>(r, path, "source_tests_passed", bool_value);
  out.node_seconds = map_at<double>(r, path, "node_seconds", number_value, Need::optional);
  out.summary = string_at(r, path, "summary", Need::optional);
  if (out.started_at.empty()) refuse(path + ".started_at", "must not be empty");
  return out;
}

ResultsRequest read_results_request(const json& doc) {
  ResultsRequest r;
  read_build_members(doc, r, false);
  r.total_seconds = number_at(doc, "", "total_seconds");
  return r;
}

RecordedAnswer read_recorded_answer(const json& doc) {
  RecordedAnswer a;
  a.run_id = string_at(doc, "", "run_id");
  a.outcome = string_at(doc, "", "outcome");
  a.snapshot_id = snapshot_id_at(doc);
  const json& counts = object_at(doc, "", "counts");
  a.built = integer_at(counts, "counts", "built");
  a.reused = integer_at(counts, "counts", "reused");
  a.failed = integer_at(counts, "counts", "failed");
  a.skipped = integer_at(counts, "counts", "skipped");
  a.summary = string_at(doc, "", "summary", Need::optional);
  a.already_recorded = bool_at(doc, "", "already_recorded");
  return a;
}

WaveReport read_wave_report(const json& doc) {
  WaveReport r;
  check_wave_protocol(doc, "");
  r.wave = integer_at(doc, "", "wave");
  if (r.wave < 1) refuse("wave", "must be 1 or more");
  read_build_members(doc, r, true);
  if (!r.build.results) refuse("build.results", "is missing: a wave that ran no node is reported to results");
  return r;
}

WaveAnswer read_wave_answer(const json& doc) {
  WaveAnswer a;
  const json& counts = read_selection_members(doc, a);
  a.wave = wave_info_at(doc, "", "wave");
  a.cut_off = integer_at(counts, "counts", "cut_off");
  a.snapshot_id = snapshot_id_at(doc);
  return a;
}

}  // namespace

BuildReport detail::build_report_from(const json& build, const std::string& path) {
  if (!build.is_object()) refuse(path, "must be an object or null");
  BuildReport b;
  b.exit_code = integer_at(build, path, "exit_code");
  b.error_text = string_at(build, path, "error_text", Need::optional);
  b.seconds = number_at(build, path, "seconds");
  if (const json* results = member(build, path, "results", Need::optional)) {
    if (!results->is_object()) refuse(path + ".results", "must be an object or null");
    b.results = read_build_results(*results, path + ".results");
  }
  return b;
}

json detail::build_report_to_json(const BuildReport& b) {
  json results = nullptr;
  if (const auto& res = b.results) {
    results = {{"invocation_id", res->invocation_id},
               {"started_at", res->started_at},
               {"finished_at", res->finished_at},
               {"node_status", res->node_status},
               {"node_tests_passed", res->node_tests_passed},
               {"source_tests_passed", res->source_tests_passed},
               {"node_seconds", res->node_seconds},
               {"summary", res->summary}};
  }
  return {{"exit_code", b.exit_code}, {"results", results}, {"error_text", b.error_text}, {"seconds", b.seconds}};
}

std::string to_json(const InputsRequest& r) {
  json doc{{"protocol", kProtocolVersion},
           {"relations_exist", r.relations_exist ? json(*r.relations_exist) : json(nullptr)},
           {"selected", r.selected ? json(*r.selected) : json(nullptr)},
           {"check_selected", r.check_selected ? json(*r.check_selected) : json(nullptr)},
           {"probe",
            {{"strategy", r.probe.strategy},
             {"call_seconds", r.probe.call_seconds},
             {"source_seconds", r.probe.source_seconds},
             {"warnings", r.probe.warnings}}},
           {"timings", {{"compile", r.compile_seconds}, {"probe", r.probe_seconds}}}};
  if (r.cutoff) doc["cutoff"] = *r.cutoff;
  return splice_members(doc, {{"inputs", planner::to_json(r.inputs)}});
}

std::string to_json(const PlanAnswer& a) {
  json doc{{"scope", a.scope}};
  if (a.wave) doc["wave"] = wave_info_to_json(*a.wave);
  return with_selection_members(std::move(doc), a);
}

std::string to_json(const ResultsRequest& r) {
  return with_build_members(json{{"total_seconds", r.total_seconds}}, r,
                            r.build ? build_report_to_json(*r.build) : json(nullptr));
}

std::string to_json(const RecordedAnswer& a) {
  return json{{"protocol", kProtocolVersion},
              {"run_id", a.run_id},
              {"outcome", a.outcome},
              {"snapshot_id", a.snapshot_id ? json(*a.snapshot_id) : json(nullptr)},
              {"counts", {{"built", a.built}, {"reused", a.reused}, {"failed", a.failed}, {"skipped", a.skipped}}},
              {"summary", a.summary},
              {"already_recorded", a.already_recorded}}
      .dump();
}

std::string to_json(const WaveReport& r) {
  return with_build_members(json{{"wave_protocol", kWaveProtocolVersion}, {"wave", r.wave}}, r,
                            build_report_to_json(r.build));
}

std::string to_json(const WaveAnswer& a) {
  json doc{{"wave", wave_info_to_json(a.wave)},
           {"counts", {{"cut_off", a.cut_off}}},
           {"snapshot_id", a.snapshot_id ? json(*a.snapshot_id) : json(nullptr)}};
  return with_selection_members(std::move(doc), a);
}

std::string error_json(const std::string& code, const std::string& field, const std::string& message) {
  return json{{"error", {{"code", code}, {"field", field}, {"message", message}}}}.dump();
}

Parsed<InputsRequest> parse_inputs_request(std::string_view body) { return guarded(body, read_inputs_request); }
Parsed<PlanAnswer> parse_plan_answer(std::string_view body) { return guarded(body, read_plan_answer); }
Parsed<ResultsRequest> parse_results_request(std::string_view body) { return guarded(body, read_results_request); }
Parsed<RecordedAnswer> parse_recorded_answer(std::string_view body) { return guarded(body, read_recorded_answer); }
Parsed<WaveReport> parse_wave_report(std::string_view body) { return guarded(body, read_wave_report); }
Parsed<WaveAnswer> parse_wave_answer(std::string_view body) { return guarded(body, read_wave_answer); }

}  // namespace ods::callback
