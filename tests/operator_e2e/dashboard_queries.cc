#include "dashboard_queries.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <stdexcept>

namespace ods::testing {

using nlohmann::json;

namespace {

// Grafana's rangeutil roundInterval: the raw interval (ms) to a round one.
double round_interval_ms(double ms) {
  struct Step {
    double below, to;
  };
  static const Step kSteps[] = {{15, 10},
                                {35, 20},
                                {75, 50},
                                {150, 100},
                                {250, 200},
                                {350, 300},
                                {450, 400},
                                {750, 500},
                                {1500, 1000},
                                {3500, 2000},
                                {7500, 5000},
                                {12500, 10000},
                                {17500, 15000},
                                {25000, 20000},
                                {45000, 30000},
                                {90000, 60000},
                                {150000, 120000},
                                {210000, 180000},
                                {450000, 300000},
                                {750000, 600000},
                                {1050000, 900000},
                                {1500000, 1200000},
                                {2700000, 1800000},
                                {5400000, 3600000},
                                {9000000, 7200000},
                                {16200000, 10800000},
                                {32400000, 21600000},
                                {86400000, 43200000},
                                {604800000, 86400000}};
  for (const auto& s : kSteps)
    if (ms < s.below) return s.to;
  return 604800000;
}

// "1d", "30s", "500ms", "5m", "1h" in seconds.
double parse_grafana_duration(const std::string& text) {
  static const std::regex kDuration(R"((\d+)(ms|s|m|h|d|w))");
  std::smatch m;
  if (!std::regex_match(text, m, kDuration)) throw std::invalid_argument("not a duration: '" + text + "'");
  const double n = std::stod(m[1]);
  const std::string unit = m[2];
  if (unit == "ms") return n / 1000;
  if (unit == "s") return n;
  if (unit == "m") return n * 60;
  if (unit == "h") return n * 3600;
  if (unit == "d") return n * 86400;
  return n * 604800;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

std::map<std::string, std::string> variable_values(const json& dashboard,
                                                   const std::map<std::string, std::string>& given) {
  std::map<std::string, std::string> values;
  for (const auto& v : dashboard["templating"]["list"]) {
    const std::string name = v.value("name", "");
    if (auto it = given.find(name); it != given.end()) {
      values[name] = it->second;
    } else if (v.value("type", "") == "datasource") {
      values[name] = "prometheus";
    } else {
      values[name] = v.value("allValue", ".*");
    }
  }
  return values;
}

void add_panel_queries(const json& panel, const GrafanaTimeRange& range,
                       const std::map<std::string, std::string>& variables, std::vector<DashboardQuery>& out) {
  for (const auto& child : panel.value("panels", json::array())) add_panel_queries(child, range, variables, out);
  for (const auto& target : panel.value("targets", json::array())) {
    DashboardQuery q;
    q.panel_id = panel.value("id", 0);
    q.panel_title = panel.value("title", "");
    q.panel_type = panel.value("type", "");
    q.ref_id = target.value("refId", "");
    q.instant = target.value("instant", false);
    const std::string min_step = target.value("interval", panel.value("interval", ""));
    const double scrape = min_step.empty() ? range.scrape_interval : parse_grafana_duration(min_step);
    q.range = range.to - range.from;
    q.interval = std::max(scrape, round_interval_ms(q.range * 1000 / range.max_data_points) / 1000);
    q.rate_interval = std::max(q.interval + scrape, 4 * scrape);
    std::string expr = target.value("expr", "");
    replace_all(expr, "$__rate_interval", prometheus_duration(q.rate_interval));
    replace_all(expr, "$__interval_ms", std::to_string(static_cast<long long>(std::llround(q.interval * 1000))));
    replace_all(expr, "$__interval", prometheus_duration(q.interval));
    replace_all(expr, "$__range", prometheus_duration(q.range));
    for (const auto& [name, value] : variables) {
      replace_all(expr, "${" + name + "}", value);
      replace_all(expr, "$" + name, value);
    }
    if (expr.find('$') != std::string::npos)
      throw std::invalid_argument("panel '" + q.panel_title + "' uses an unknown variable: " + expr);
    q.expr = expr;
    out.push_back(q);
  }
}

}  // namespace

std::string prometheus_duration(double seconds) {
  const double ms = std::round(seconds * 1000);
  char buf[32];
  if (std::fmod(ms, 1000) != 0) {
    std::snprintf(buf, sizeof buf, "%.0fms", ms);
  } else {
    std::snprintf(buf, sizeof buf, "%.0fs", ms / 1000);
  }
  return buf;
}

std::vector<DashboardQuery> dashboard_queries(const json& dashboard, const GrafanaTimeRange& range,
                                              const std::map<std::string, std::string>& variables) {
  const auto values = variable_values(dashboard, variables);
  std::vector<DashboardQuery> out;
  for (const auto& panel : dashboard["panels"]) add_panel_queries(panel, range, values, out);
  return out;
}

}  // namespace ods::testing
