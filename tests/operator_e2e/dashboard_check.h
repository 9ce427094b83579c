#pragma once
// The check that the chart's Grafana dashboard shows the runs: every query of
// helm/ods/dashboards/ods.json (dashboard_queries.h) evaluated by a Prometheus that scraped the
// operator while the runs ran, each answer compared with what the runs did.
#include <string>

#include "dashboard_queries.h"
#include "harness/prometheus_server.h"

namespace ods::testing {

struct DashboardExpectations {
  std::string project;           // "analytics/shop": the only project that ran
  double last_reuse_ratio = 0;   // reused / total of the last run
  double seconds_saved = 0;      // the time saved the state store's ledger recorded for the runs
  std::string operator_metrics;  // the operator's /metrics at the end (its own counts)
};

// Evaluates every target at range.to (/api/v1/query) and, for time series panels, over the
// range every $__interval when it is shorter than the range (/api/v1/query_range, what Grafana draws); EXPECTs each
// answer to hold data matching `expected` (a panel nobody knows how to check fails too). Prints every query and its
// answer.
void expect_dashboard_shows_the_runs(const PrometheusServer& prometheus, const GrafanaTimeRange& range,
                                     const DashboardExpectations& expected);

}  // namespace ods::testing
