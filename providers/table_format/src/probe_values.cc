#include "ods/table_format/probe_values.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace ods::table_format {

std::string column(const contracts::ProbeRow& row, const std::string& name) {
  auto it = row.find(name);
  return it == row.end() ? "" : it->second;
}

std::map<std::string, std::string> text_map(const contracts::ProbeRow& row, const std::string& name) {
  std::map<std::string, std::string> out;
  auto it = row.find(name);
  if (it == row.end()) return out;
  auto j = nlohmann::json::parse(it->second, nullptr, false);
  if (!j.is_object()) return out;
  for (const auto& [key, value] : j.items()) {
    if (value.is_null()) continue;
    out[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return out;
}

std::optional<long long> as_count(const std::string& text) {
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace ods::table_format
