#pragma once
// Test helper: samples from Prometheus text (the exposition format /metrics serves).
#include <map>
#include <optional>
#include <sstream>
#include <string>

namespace ods::telemetry::testing {

// The value of the sample `series` (name and labels exactly as serialised, labels in name
// order, e.g. `ods_runs_total{outcome="succeeded",project="shop"}`), or nullopt when absent.
inline std::optional<double> sample(const std::string& text, const std::string& series) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return std::nullopt;
}

// The `# TYPE <name> <type>` line's type, or "" when the family is absent.
inline std::string family_type(const std::string& text, const std::string& name) {
  const std::string prefix = "# TYPE " + name + " ";
  const auto at = text.find(prefix);
  if (at == std::string::npos) return "";
  const auto end = text.find('\n', at);
  return text.substr(at + prefix.size(), end - at - prefix.size());
}

}  // namespace ods::telemetry::testing
