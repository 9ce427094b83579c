#pragma once
// Internal: members more than one protocol body has (a dbt build's report, measured
// contents, the wave a selection is), written and read in one place each.
#include <map>
#include <string>

#include "body_json.h"

namespace ods::callback::detail {

json build_report_to_json(const BuildReport& build);
// `build` (an object, at `path`) as a BuildReport.
BuildReport build_report_from(const json& build, const std::string& path);

// The contents as a JSON object's text (node id -> planner::to_json of its DataVersion, the one
// form of a data version), for splice_members: no DOM of text already written.
std::string contents_json_text(const std::map<std::string, planner::DataVersion>& contents);
// The optional member `key` of `object`: node id -> DataVersion; each value's exactness one
// of the planner's words, its value and origin non-empty.
std::map<std::string, planner::DataVersion> contents_at(const json& object, const std::string& parent,
                                                        const std::string& key);

// Refuses `object` (at `path`) unless its "wave_protocol" is kWaveProtocolVersion.
void check_wave_protocol(const json& object, const std::string& path);

json wave_info_to_json(const WaveInfo& wave);
// The object `key` of `object` as a WaveInfo, with "wave_protocol": kWaveProtocolVersion.
WaveInfo wave_info_at(const json& object, const std::string& parent, const std::string& key);

// The cutoff mode a pod asks for: "auto", "always" or "off"; refused otherwise.
std::string cutoff_mode_at(const json& object, const std::string& key);

}  // namespace ods::callback::detail
