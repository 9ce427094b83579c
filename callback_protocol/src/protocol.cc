#include "ods/callback/protocol.h"

#include "json_fields.h"
#include "ods/base/sha256.h"
#include "ods/planner/fingerprint.h"
#include "ods/planner/json_io.h"

namespace ods::callback {

using namespace detail;

namespace {

planner::ProjectInputs inputs_at(const json& doc) {
  const json& inputs = object_at(doc, "", "inputs");
  auto parsed = planner::inputs_from_json(inputs.dump());
  if (!parsed) refuse("inputs", parsed.error().message);
  return std::move(*parsed);
}

template <class T>
Parsed<T> guarded(std::string_view body, T (*read)(const json&)) {
  try {
    return read(parse_body(body));
  } catch (const FieldErrorThrown& e) {
    return std::unexpected(e.error);
  }
}

InputsRequest read_inputs_request(const json& doc) {
  InputsRequest r;
  r.inputs = inputs_at(doc);
  if (member(doc, "", "relations_exist", false))
    r.relations_exist = map_at<bool>(doc, "", "relations_exist", bool_value);
  if (member(doc, "", "selected", false)) r.selected = strings_at(doc, "", "selected");
  if (member(doc, "", "check_selected", false)) r.check_selected = strings_at(doc, "", "check_selected");
  const json& probe = object_at(doc, "", "probe");
  r.probe.strategy = string_at(probe, "probe", "strategy");
  r.probe.call_seconds = number_at(probe, "probe", "call_seconds");
  r.probe.source_seconds = map_at<double>(probe, "probe", "source_seconds", number_value);
  r.probe.warnings = strings_at(probe, "probe", "warnings");
  const json& timings = object_at(doc, "", "timings");
  r.compile_seconds = number_at(timings, "timings", "compile");
  r.probe_seconds = number_at(timings, "timings", "probe");
  return r;
}

PlanAnswer read_plan_answer(const json& doc) {
  PlanAnswer a;
  a.run_id = string_at(doc, "", "run_id");
  a.scope = string_at(doc, "", "scope");
  a.plan_json = object_at(doc, "", "plan").dump();
  a.select = strings_at(doc, "", "select");
  const json& counts = object_at(doc, "", "counts");
  a.build = integer_at(counts, "counts", "build");
  a.reuse = integer_at(counts, "counts", "reuse");
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
  out.node_seconds = map_at<double>(r, path, "node_seconds", number_value, false);
  out.summary = string_at(r, path, "summary", false);
  if (out.started_at.empty()) refuse(path + ".started_at", "must not be empty");
  return out;
}

ResultsRequest read_results_request(const json& doc) {
  ResultsRequest r;
  r.inputs = inputs_at(doc);
  r.total_seconds = number_at(doc, "", "total_seconds");
  if (const json* build = member(doc, "", "build", false)) {
    if (!build->is_object()) refuse("build", "must be an object or null");
    BuildReport b;
    b.exit_code = integer_at(*build, "build", "exit_code");
    b.error_text = string_at(*build, "build", "error_text", false);
    b.seconds = number_at(*build, "build", "seconds");
    if (const json* results = member(*build, "build", "results", false)) {
      if (!results->is_object()) refuse("build.results", "must be an object or null");
      b.results = read_build_results(*results, "build.results");
    }
    r.build = std::move(b);
  }
  return r;
}

RecordedAnswer read_recorded_answer(const json& doc) {
  RecordedAnswer a;
  a.run_id = string_at(doc, "", "run_id");
  a.outcome = string_at(doc, "", "outcome");
  if (const json* id = member(doc, "", "snapshot_id", false)) a.snapshot_id = string_value(*id, "snapshot_id");
  const json& counts = object_at(doc, "", "counts");
  a.built = integer_at(counts, "counts", "built");
  a.reused = integer_at(counts, "counts", "reused");
  a.failed = integer_at(counts, "counts", "failed");
  a.skipped = integer_at(counts, "counts", "skipped");
  a.summary = string_at(doc, "", "summary", false);
  a.already_recorded = bool_at(doc, "", "already_recorded");
  return a;
}

}  // namespace

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
  return splice_member(doc, "inputs", planner::to_json(r.inputs));
}

std::string to_json(const PlanAnswer& a) {
  json doc{{"protocol", kProtocolVersion},
           {"run_id", a.run_id},
           {"scope", a.scope},
           {"select", a.select},
           {"counts", {{"build", a.build}, {"reuse", a.reuse}}}};
  return splice_member(doc, "plan", a.plan_json);
}

std::string to_json(const ResultsRequest& r) {
  json build = nullptr;
  if (r.build) {
    json results = nullptr;
    if (const auto& res = r.build->results) {
      results = {{"invocation_id", res->invocation_id},
                 {"started_at", res->started_at},
                 {"finished_at", res->finished_at},
                 {"node_status", res->node_status},
                 {"node_tests_passed", res->node_tests_passed},
                 {"source_tests_passed", res->source_tests_passed},
                 {"node_seconds", res->node_seconds},
                 {"summary", res->summary}};
    }
    build = {{"exit_code", r.build->exit_code},
             {"results", results},
             {"error_text", r.build->error_text},
             {"seconds", r.build->seconds}};
  }
  json doc{{"protocol", kProtocolVersion}, {"build", build}, {"total_seconds", r.total_seconds}};
  return splice_member(doc, "inputs", planner::to_json(r.inputs));
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

std::string error_json(const std::string& code, const std::string& field, const std::string& message) {
  return json{{"error", {{"code", code}, {"field", field}, {"message", message}}}}.dump();
}

Parsed<InputsRequest> parse_inputs_request(std::string_view body) { return guarded(body, read_inputs_request); }
Parsed<PlanAnswer> parse_plan_answer(std::string_view body) { return guarded(body, read_plan_answer); }
Parsed<ResultsRequest> parse_results_request(std::string_view body) { return guarded(body, read_results_request); }
Parsed<RecordedAnswer> parse_recorded_answer(std::string_view body) { return guarded(body, read_recorded_answer); }

std::string inputs_digest(const planner::ProjectInputs& inputs) { return ods::sha256_hex(planner::to_json(inputs)); }

}  // namespace ods::callback
