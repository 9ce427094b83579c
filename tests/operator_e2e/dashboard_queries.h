#pragma once
// The queries of a Grafana dashboard as Grafana sends them to Prometheus: every target's expr
// with the template variables and Grafana's interval variables substituted.
//
// For a time range from..to (Unix seconds), a target with Min step `interval` (else the data
// source's scrape interval, both "Scrape interval" below):
//   $__range         = to - from
//   $__interval      = max(Scrape interval, Grafana's rounding of (to - from) / max data points)
//   $__rate_interval = max($__interval + Scrape interval, 4 × Scrape interval)
//   $__interval_ms   = $__interval in milliseconds, a number
// (Grafana's Prometheus data source; $__range_s and friends are not used by the chart's
// dashboard and are refused). A multi-value variable set to All becomes its allValue.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ods::testing {

struct GrafanaTimeRange {
  double from = 0, to = 0;      // Unix seconds
  double scrape_interval = 15;  // the data source's "Scrape interval", seconds
  int max_data_points = 1000;   // a panel's width in pixels, Grafana's default
};

struct DashboardQuery {
  int panel_id = 0;
  std::string panel_title, panel_type, ref_id;
  std::string expr;      // substituted
  bool instant = false;  // the target asks for one value (bar gauges, stats: "instant": true)
  double interval = 0, rate_interval = 0, range = 0;  // seconds, as substituted
};

// A Prometheus duration for `seconds` ("4s", "250ms", "86400s").
std::string prometheus_duration(double seconds);

// Every target of every panel (rows' own panels included), in the dashboard's order.
// `variables` maps a variable name to its value ("project" -> "analytics/shop"); a variable
// of the dashboard missing from it takes its allValue (All). Throws std::invalid_argument
// on a variable the dashboard uses and nobody defines.
std::vector<DashboardQuery> dashboard_queries(const nlohmann::json& dashboard, const GrafanaTimeRange& range,
                                              const std::map<std::string, std::string>& variables = {});

}  // namespace ods::testing
