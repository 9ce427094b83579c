// The members early cutoff added to the protocol: measured contents and the wave a selection is.
#include "ods/planner/evidence.h"
#include "ods/planner/json_io.h"
#include "shared_members.h"

namespace ods::callback::detail {

namespace {

planner::DataVersion content_value(const json& v, const std::string& path) {
  if (!v.is_object()) refuse(path, "must be an object {value, exactness, origin, observed_at}");
  planner::DataVersion out;
  out.value = string_at(v, path, "value");
  out.origin = string_at(v, path, "origin");
  out.observed_at = string_at(v, path, "observed_at", Need::optional);
  const json* covers = ods::json::member_as(v, path, "covers_schema", ods::json::Kind::boolean, Need::optional);
  out.covers_schema = covers != nullptr && covers->get<bool>();
  const std::string word = string_at(v, path, "exactness");
  auto exactness = planner::exactness_from_string(word);
  if (!exactness)
    refuse(path + ".exactness", "'" + word + "' is not an exactness (exact, semantic, proxy, inferred, none)");
  out.exactness = *exactness;
  if (out.value.empty()) refuse(path + ".value", "must not be empty");
  if (out.origin.empty()) refuse(path + ".origin", "must not be empty");
  return out;
}

}  // namespace

std::string contents_json_text(const std::map<std::string, planner::DataVersion>& contents) {
  std::string out = "{";
  for (const auto& [id, v] : contents) out += (out.size() > 1 ? "," : "") + json(id).dump() + ":" + planner::to_json(v);
  return out + "}";
}

std::map<std::string, planner::DataVersion> contents_at(const json& object, const std::string& parent,
                                                        const std::string& key) {
  return map_at<planner::DataVersion>(object, parent, key, content_value, Need::optional);
}

json wave_info_to_json(const WaveInfo& wave) {
  return {{"wave_protocol", kWaveProtocolVersion}, {"number", wave.number}, {"last", wave.last}, {"why", wave.why}};
}

void check_wave_protocol(const json& object, const std::string& path) {
  const int version = integer_at(object, path, "wave_protocol");
  if (version != kWaveProtocolVersion)
    refuse(path_of(path, "wave_protocol"), "version " + std::to_string(version) +
                                               " is not spoken here (this side speaks " +
                                               std::to_string(kWaveProtocolVersion) + ")");
}

WaveInfo wave_info_at(const json& object, const std::string& parent, const std::string& key) {
  const json& w = object_at(object, parent, key);
  const std::string path = path_of(parent, key);
  check_wave_protocol(w, path);
  WaveInfo out;
  out.number = integer_at(w, path, "number");
  if (out.number < 1) refuse(path + ".number", "must be 1 or more");
  out.last = bool_at(w, path, "last");
  out.why = string_at(w, path, "why", Need::optional);
  return out;
}

std::string cutoff_mode_at(const json& object, const std::string& key) {
  std::string mode = string_at(object, "", key);
  if (mode != "auto" && mode != "always" && mode != "off")
    refuse(key, "'" + mode + "' is not one of auto, always, off");
  return mode;
}

}  // namespace ods::callback::detail
