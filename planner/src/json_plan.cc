// Plans to JSON, streamed: members in key order, byte for byte what the nlohmann DOM of the
// same document dumps (dump(2) pretty, dump() compact).
#include "json_writing.h"
#include "ods/planner/json_io.h"

namespace ods::planner {

namespace {

void write_plan(json::Writer& w, const ExecutionPlan& plan) {
  w.begin_object();
  w.key("entries").begin_array();
  for (const auto& e : plan.entries) {
    w.begin_object();
    w.key("action").string(to_string(e.action));
    w.key("depth").integer(e.depth);
    w.key("evidence").begin_array();
    for (const auto& ev : e.evidence) internal::write_evidence(w, ev);
    w.end_array();
    w.key("id").string(e.id);
    w.key("name").string(e.name);
    w.key("reasons").begin_array();
    for (const auto& r : e.reasons) {
      w.begin_object();
      w.key("code").string(r.code);
      w.key("message").string(r.message);
      w.end_object();
    }
    w.end_array();
    w.key("resource_type").string(e.resource_type);
    w.end_object();
  }
  w.end_array();
  w.key("scope").string(plan.scope);
  w.key("select").string(plan.select);
  w.key("summary").begin_object();
  w.key("build").integer(plan.count(Action::build));
  w.key("reuse").integer(plan.count(Action::reuse));
  w.end_object();
  w.key("warnings").begin_array();
  for (const auto& warning : plan.warnings) w.string(warning);
  w.end_array();
  w.end_object();
}

}  // namespace

void write_json(std::ostream& out, const ExecutionPlan& plan, bool pretty) {
  json::Writer w(out, pretty ? 2 : -1);
  write_plan(w, plan);
  w.flush();
}

std::string to_json(const ExecutionPlan& plan, bool pretty) {
  std::string out;
  json::Writer w(out, pretty ? 2 : -1);
  write_plan(w, plan);
  return out;
}

}  // namespace ods::planner
