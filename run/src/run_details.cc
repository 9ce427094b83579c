#include "ods/run/run_details.h"

namespace ods::run {

using nlohmann::json;

namespace {

// Sets `out` from `doc[key]` when it is there with the type T reads from; leaves it otherwise.
template <class T>
void read_member(const json& doc, const char* key, std::optional<T>& out) {
  auto it = doc.find(key);
  if (it == doc.end()) return;
  try {
    out = it->get<T>();
  } catch (const json::exception&) {  // the wrong type: unset, as if absent
  }
}

std::map<std::string, double> numbers_of(const json& doc) {
  std::map<std::string, double> out;
  if (!doc.is_object()) return out;
  for (const auto& [key, value] : doc.items())
    if (value.is_number()) out[key] = value.get<double>();
  return out;
}

json waves_to_json(const WaveDetails& w) {
  json doc{{"number", w.number},
           {"last", w.last},
           {"why", w.why},
           {"mode", w.mode},
           {"extra_call_seconds", w.extra_call_seconds},
           {"building", w.building},
           {"held_back", w.held_back},
           {"built_earlier", w.built_earlier},
           {"relations_exist", w.relations_exist ? json(*w.relations_exist) : json(nullptr)}};
  if (w.cut_off) doc["cut_off"] = *w.cut_off;
  return doc;
}

// Unset when "number" or "last" is missing or a member has the wrong type: a run whose wave
// state is unreadable reads as one in a single wave (its last).
std::optional<WaveDetails> waves_from_json(const json& doc) {
  if (!doc.is_object()) return std::nullopt;
  try {
    WaveDetails w;
    w.number = doc.at("number").get<int>();
    w.last = doc.at("last").get<bool>();
    w.why = doc.value("why", "");
    w.mode = doc.value("mode", "auto");
    w.extra_call_seconds = doc.value("extra_call_seconds", 0.0);
    w.building = doc.value("building", std::vector<std::string>{});
    w.held_back = doc.value("held_back", std::vector<std::string>{});
    w.built_earlier = doc.value("built_earlier", std::map<std::string, bool>{});
    if (auto it = doc.find("relations_exist"); it != doc.end() && it->is_object())
      w.relations_exist = it->get<std::map<std::string, bool>>();
    if (auto it = doc.find("cut_off"); it != doc.end() && it->is_number_integer()) w.cut_off = it->get<int>();
    return w;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string RunDetails::summary_line() const {
  if (!summary.empty() || !run_summary || !run_summary->is_object()) return summary;
  return run_summary->value("message", "");
}

std::string to_json(const RunDetails& d) {
  json doc = json::object();
  doc["recorded_by"] = d.recorded_by;
  doc["summary"] = d.run_summary ? *d.run_summary : json(d.summary);
  if (d.command) doc["command"] = *d.command;
  if (d.counts) doc["counts"] = *d.counts;
  if (d.seconds) doc["seconds"] = *d.seconds;
  if (!d.timings.empty()) doc["timings"] = d.timings;
  if (d.probe)
    doc["probe"] = {{"strategy", d.probe->strategy},
                    {"call_seconds", d.probe->call_seconds},
                    {"source_seconds", d.probe->source_seconds},
                    {"warnings", d.probe->warnings}};
  if (d.node_seconds) doc["node_seconds"] = *d.node_seconds;
  if (d.time_saved_seconds) doc["time_saved_seconds"] = *d.time_saved_seconds;
  if (d.exact_evidence_seconds) doc["exact_evidence_seconds"] = *d.exact_evidence_seconds;
  if (!d.exact_evidence_skipped.empty()) doc["exact_evidence_skipped"] = d.exact_evidence_skipped;
  if (d.head) doc["head"] = *d.head ? json(**d.head) : json(nullptr);
  if (d.planned_entry) doc["planned_entry"] = *d.planned_entry;
  if (d.dbt_invocation_id) doc["dbt_invocation_id"] = *d.dbt_invocation_id;
  if (d.waves) doc["waves"] = waves_to_json(*d.waves);
  if (d.metrics) doc["metrics"] = to_json(*d.metrics);
  return doc.dump();
}

RunDetails details_from_json(std::string_view text) {
  RunDetails d;
  const json doc = json::parse(text.empty() ? std::string_view("{}") : text, nullptr, false);
  if (!doc.is_object()) return d;
  d.recorded_by = doc.value("recorded_by", "");
  if (auto it = doc.find("summary"); it != doc.end()) {
    if (it->is_string())
      d.summary = it->get<std::string>();
    else if (it->is_object())
      d.run_summary = *it;
  }
  read_member(doc, "command", d.command);
  if (auto it = doc.find("counts"); it != doc.end() && it->is_object()) d.counts = *it;
  read_member(doc, "seconds", d.seconds);
  if (auto it = doc.find("timings"); it != doc.end()) d.timings = numbers_of(*it);
  if (auto it = doc.find("probe"); it != doc.end() && it->is_object()) {
    ProbeDetails p;
    p.strategy = it->value("strategy", "");
    p.call_seconds = it->value("call_seconds", 0.0);
    p.source_seconds = numbers_of(it->value("source_seconds", json::object()));
    if (auto w = it->find("warnings"); w != it->end() && w->is_array())
      for (const auto& line : *w)
        if (line.is_string()) p.warnings.push_back(line.get<std::string>());
    d.probe = std::move(p);
  }
  if (auto it = doc.find("node_seconds"); it != doc.end() && it->is_object()) d.node_seconds = numbers_of(*it);
  read_member(doc, "time_saved_seconds", d.time_saved_seconds);
  if (auto it = doc.find("exact_evidence_seconds"); it != doc.end() && it->is_object())
    d.exact_evidence_seconds = numbers_of(*it);
  if (auto it = doc.find("exact_evidence_skipped"); it != doc.end() && it->is_array())
    for (const auto& id : *it)
      if (id.is_string()) d.exact_evidence_skipped.push_back(id.get<std::string>());
  if (auto it = doc.find("head"); it != doc.end()) {
    if (it->is_string())
      d.head = std::optional<std::string>(it->get<std::string>());
    else if (it->is_null())
      d.head = std::optional<std::string>();
  }
  read_member(doc, "planned_entry", d.planned_entry);
  read_member(doc, "dbt_invocation_id", d.dbt_invocation_id);
  if (auto it = doc.find("waves"); it != doc.end()) d.waves = waves_from_json(*it);
  if (auto it = doc.find("metrics"); it != doc.end() && it->is_object()) d.metrics = metrics_from_json(*it);
  return d;
}

}  // namespace ods::run
