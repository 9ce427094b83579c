// The head step (the parse's fast path in the pod, docs/kubernetes.md "Nothing changed in a
// runner pod"): the pod asks for the state its run continues before it compiles.
#include "body_json.h"
#include "ods/callback/protocol.h"
#include "ods/planner/json_io.h"

namespace ods::callback {

using namespace detail;

namespace {

HeadRequest read_head_request(const json& /*doc*/) { return HeadRequest{}; }

HeadAnswer read_head_answer(const json& doc) {
  HeadAnswer a;
  a.scope = string_at(doc, "", "scope");
  if (a.scope.empty()) refuse("scope", "must not be empty");
  const json* id = member(doc, "", "snapshot_id", Need::optional);
  const json* snapshot = member(doc, "", "snapshot", Need::optional);
  const bool has_id = id != nullptr && !id->is_null();
  const bool has_snapshot = snapshot != nullptr && !snapshot->is_null();
  if (has_id != has_snapshot) refuse("snapshot", "must be present exactly when snapshot_id is");
  if (!has_id) return a;
  a.snapshot_id = string_value(*id, "snapshot_id");
  if (!snapshot->is_object()) refuse("snapshot", "must be an object (a state snapshot)");
  auto parsed = planner::snapshot_from_json(snapshot->dump());
  if (!parsed) refuse("snapshot", parsed.error().message);
  a.snapshot = std::move(*parsed);
  return a;
}

}  // namespace

std::string to_json(const HeadRequest& /*request*/) { return json{{"protocol", kProtocolVersion}}.dump(); }

std::string to_json(const HeadAnswer& a) {
  json doc{{"protocol", kProtocolVersion},
           {"scope", a.scope},
           {"snapshot_id", a.snapshot_id ? json(*a.snapshot_id) : json(nullptr)}};
  if (!a.snapshot) {
    doc["snapshot"] = nullptr;
    return doc.dump();
  }
  return splice_members(doc, {{"snapshot", planner::to_json(*a.snapshot)}});
}

Parsed<HeadRequest> parse_head_request(std::string_view body) { return guarded(body, read_head_request); }
Parsed<HeadAnswer> parse_head_answer(std::string_view body) { return guarded(body, read_head_answer); }

}  // namespace ods::callback
