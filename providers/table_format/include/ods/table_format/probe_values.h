#pragma once
// Reading the probe's rows (values as text, structured values as JSON text) the way the
// table-format providers need them. Pure; thread-safe.
#include <map>
#include <optional>
#include <string>

#include "ods/contracts/relation_probe.h"

namespace ods::table_format {

// The value of `name` in `row`, or "" when the column is absent (NULL).
std::string column(const contracts::ProbeRow& row, const std::string& name);

// The members of a map column as text (a map comes back as JSON text: {"numOutputRows": "2"});
// {} when the column is absent or isn't a JSON object. Null members are left out; a member
// that isn't a string is its JSON text.
std::map<std::string, std::string> text_map(const contracts::ProbeRow& row, const std::string& name);

// A whole non-negative decimal number (a Delta version, an Iceberg counter), or nullopt.
std::optional<long long> as_count(const std::string& text);

}  // namespace ods::table_format
