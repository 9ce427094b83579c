// Metrics from every run (issue 26): `ods state run|test --metrics-file --pushgateway` on
// examples/shop with real dbt, pushed to a real Prometheus Pushgateway, scraped by a real
// Prometheus beside an operator's /metrics (ods::telemetry's OperatorMetrics and EndpointServer,
// for a project "analytics/shop"). The chart's dashboard (helm/ods/dashboards/ods.json) then shows
// the CI-run scope and the operator's project side by side: every headline and per-project panel
// is evaluated as Grafana sends it, and the per-step "Runs by outcome" adds up to the runs over
// the range where the windows of $__rate_interval, counted per step, would count each run again.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <regex>
#include <thread>

#include "dashboard_queries.h"
#include "harness/dbt_project.h"
#include "harness/loopback_port.h"
#include "harness/prometheus_server.h"
#include "harness/pushgateway_server.h"
#include "ods/telemetry/endpoint_server.h"
#include "ods/telemetry/operator_metrics.h"

namespace ods::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* kScope = "shop/dev";  // examples/shop's default target (issue 39: scopes name it)
constexpr const char* kOperatorProject = "analytics/shop";

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

// The value of the sample `series` ("name{labels}", labels as written) in a metrics text; -1 when absent.
double sample(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

// Polls Prometheus until `expr` answers `value`; false after 60 s.
bool eventually(const PrometheusServer& prometheus, const std::string& expr, double value) {
  for (int i = 0; i < 300; ++i) {
    auto now = prometheus.query(expr, unix_now());
    if (now && !(*now)["result"].empty() && std::stod((*now)["result"][0]["value"][1].get<std::string>()) == value)
      return true;
    std::this_thread::sleep_for(200ms);
  }
  return false;
}

// Polls Prometheus until it has scraped the target on 127.0.0.1:<port> at a moment after `t` (unix
// seconds); false after 60 s.
bool scraped_after(const PrometheusServer& prometheus, int port, double t) {
  const std::string expr = "timestamp(up{instance=\"127.0.0.1:" + std::to_string(port) + "\"}) > " + std::to_string(t);
  for (int i = 0; i < 300; ++i) {
    auto now = prometheus.query(expr, unix_now());
    if (now && !(*now)["result"].empty()) return true;
    std::this_thread::sleep_for(200ms);
  }
  return false;
}

// The one value of an instant answer, per `label` value ("" for an answer without the label).
std::map<std::string, double> values_by(const json& data, const std::string& label) {
  std::map<std::string, double> out;
  for (const auto& r : data["result"]) out[r["metric"].value(label, "")] = std::stod(r["value"][1].get<std::string>());
  return out;
}

bool near(double a, double b, double relative) { return std::fabs(a - b) <= 1e-6 + relative * std::fabs(b); }

TEST(CiRunMetrics, RunsPushedFromCiShowOnTheDashboardBesideAnOperatorsProject) {
  auto gateway = PushgatewayServer::start();
  ASSERT_TRUE(gateway) << gateway.error();
  telemetry::OperatorMetrics operator_metrics;
  operator_metrics.add_project(kOperatorProject);
  telemetry::EndpointOptions endpoint_options;
  endpoint_options.host = "127.0.0.1";
  auto port = free_loopback_port();
  ASSERT_TRUE(port) << port.error();
  endpoint_options.port = *port;
  auto endpoint = telemetry::EndpointServer::start(endpoint_options, operator_metrics.collectable());
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  PrometheusServer::Options prometheus_options;
  prometheus_options.job_name = "ods";
  prometheus_options.target_ports = {(*gateway)->port(), *port};
  prometheus_options.honor_labels = true;  // the pushed job label, as a Pushgateway's scrape config keeps it
  auto prometheus = PrometheusServer::start(prometheus_options);
  ASSERT_TRUE(prometheus) << prometheus.error();
  ASSERT_TRUE(eventually(**prometheus, "sum(up)", 2)) << (*prometheus)->log_tail();
  const double from = unix_now();
  // A scrape of the operator's counters at 0 inside the range.
  ASSERT_TRUE(scraped_after(**prometheus, *port, from)) << (*prometheus)->log_tail();

  // The operator's project: a first run builds 4 nodes, a second reuses 3 (saving 6 s).
  operator_metrics.count_nodes(kOperatorProject, telemetry::NodeAction::build, "never_built", 4);
  operator_metrics.record_run(kOperatorProject, "succeeded", 30);
  operator_metrics.count_build_seconds(kOperatorProject, 8, 0);
  operator_metrics.set_reuse_ratio(kOperatorProject, 0, 4);

  DbtProject p("shop");
  ASSERT_EQ(p.generate_data().exit_code, 0);
  const std::string dir = p.dir().string();
  auto run = [&](const std::string& command, int n, const std::string& gateway_url) {
    const std::string file = dir + "/metrics-" + std::to_string(n) + ".txt";
    ProcessResult r =
        p.ods({"state", command, "--profiles-dir", dir, "--metrics-file", file, "--pushgateway", gateway_url});
    EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
    return std::make_pair(read_text_file(file), r.errors);
  };
  // Each push is seen by Prometheus before the next run, so the scope's series starts at the first
  // run's values (a scrape that times out on a loaded machine would otherwise skip a push, and
  // increase() over the range would miss what that push added).
  const std::string ci_runs = std::string("sum(ods_runs_total{project=\"") + kScope + "\"})";
  const auto [first, first_err] = run("run", 1, (*gateway)->url());
  ASSERT_TRUE(eventually(**prometheus, ci_runs, 1)) << (*prometheus)->log_tail();
  const auto [second, second_err] = run("run", 2, (*gateway)->url());
  ASSERT_TRUE(eventually(**prometheus, ci_runs, 2)) << (*prometheus)->log_tail();
  operator_metrics.count_nodes(kOperatorProject, telemetry::NodeAction::reuse, "unchanged", 3);
  operator_metrics.count_nodes(kOperatorProject, telemetry::NodeAction::build, "fingerprint_changed", 1);
  operator_metrics.record_run(kOperatorProject, "succeeded", 10);
  operator_metrics.count_build_seconds(kOperatorProject, 2, 6);
  operator_metrics.set_reuse_ratio(kOperatorProject, 3, 4);
  // A Pushgateway that is down: the run is recorded and counted, the push only warned about.
  auto closed = free_loopback_port();
  ASSERT_TRUE(closed);
  const auto [third, third_err] = run("run", 3, "http://127.0.0.1:" + std::to_string(*closed));
  EXPECT_NE(third_err.find("ods: warning: metrics not pushed"), std::string::npos) << third_err;
  // `ods state test` counts no run and pushes the scope's totals, the third run's included.
  const auto [tested, tested_err] = run("test", 4, (*gateway)->url());

  const std::string runs_ok = std::string("ods_runs_total{project=\"") + kScope + "\",outcome=\"succeeded\"}";
  for (const auto& [text, n] : {std::pair{first, 1}, {second, 2}, {third, 3}, {tested, 3}}) {
    EXPECT_TRUE(text.ends_with("# EOF\n")) << text;
    EXPECT_NE(text.find("# TYPE ods_runs counter\n"), std::string::npos) << text;
    EXPECT_EQ(sample(text, runs_ok), n) << text;
  }
  const std::string reused =
      std::string("ods_nodes_total{project=\"") + kScope + "\",action=\"reuse\",reason=\"unchanged\"}";
  EXPECT_EQ(sample(first, reused), 0) << "every reason code is there from the first run, at 0";
  EXPECT_GT(sample(second, reused), 5) << second;
  const double ci_saved = sample(tested, std::string("ods_build_seconds_saved_total{project=\"") + kScope + "\"}");
  EXPECT_GT(ci_saved, 0) << tested;
  ProcessResult dry = p.ods({"state", "run", "--dry-run", "--profiles-dir", dir, "--metrics-file", dir + "/x.txt"});
  EXPECT_EQ(dry.exit_code, 2) << dry.errors;

  // Prometheus saw the last push and the operator's second run; then the windows move past them.
  ASSERT_TRUE(eventually(**prometheus, ci_runs, 3));
  ASSERT_TRUE(eventually(**prometheus, std::string("sum(ods_runs_total{project=\"") + kOperatorProject + "\"})", 2));
  // Then 6 s of scrapes of both targets (six at the 1 s interval), as Prometheus counts them:
  // the dashboard's windows ending at `to` hold the last values, however slow the machine.
  const double seen = unix_now();
  for (const int target : {(*gateway)->port(), *port})
    ASSERT_TRUE(scraped_after(**prometheus, target, seen + 6)) << (*prometheus)->log_tail();
  const double to = unix_now();

  double ci_nodes = 0, ci_reused = 0;
  std::istringstream lines(tested);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("ods_nodes_total{")) continue;
    const double v = std::stod(line.substr(line.rfind(' ') + 1));
    ci_nodes += v;
    if (line.find("action=\"reuse\"") != std::string::npos) ci_reused += v;
  }
  const double fleet_reuse = 100 * (ci_reused + 3) / (ci_nodes + 8);

  std::ifstream in(source_dir() / "helm" / "ods" / "dashboards" / "ods.json");
  const json dashboard = json::parse(in);
  const GrafanaTimeRange range{from, to, 1};
  std::map<std::string, int> checked;
  for (const auto& q : dashboard_queries(dashboard, range)) {
    SCOPED_TRACE(q.panel_title + ": " + q.expr);
    auto now = (*prometheus)->query(q.expr, to);
    ASSERT_TRUE(now) << now.error();
    std::cout << "  [" << q.panel_title << "] " << q.expr << "\n    now: " << (*now)["result"].dump() << "\n";
    const auto one = values_by(*now, "");
    const auto per_project = values_by(*now, "project");
    if (q.panel_title == "Projects reporting") {
      EXPECT_EQ(one.at(""), 2);
    } else if (q.panel_title == "Runs (fleet)") {
      EXPECT_TRUE(near(one.at(""), 5, 0.05)) << one.at("");
    } else if (q.panel_title == "Time saved (fleet)") {
      EXPECT_TRUE(near(one.at(""), ci_saved + 6, 0.05)) << one.at("") << " vs " << ci_saved + 6;
    } else if (q.panel_title == "Reuse % (fleet)") {
      EXPECT_TRUE(near(one.at(""), fleet_reuse, 0.05)) << one.at("") << " vs " << fleet_reuse;
    } else if (q.panel_title == "Reuse % per project (CI and operator)") {
      EXPECT_TRUE(near(per_project.at(kOperatorProject), 37.5, 0.05)) << (*now).dump();
      EXPECT_TRUE(near(per_project.at(kScope), 100 * ci_reused / ci_nodes, 0.05)) << (*now).dump();
    } else if (q.panel_title == "Time saved per project (CI and operator)") {
      EXPECT_TRUE(near(per_project.at(kOperatorProject), 6, 0.05)) << (*now).dump();
      EXPECT_TRUE(near(per_project.at(kScope), ci_saved, 0.05)) << (*now).dump() << " vs " << ci_saved;
    } else if (q.panel_title == "Reuse ratio per project (last run)") {
      EXPECT_TRUE(per_project.contains(kScope) && per_project.contains(kOperatorProject)) << (*now).dump();
    } else if (q.panel_title == "Runs by outcome") {
      // Drawn every $__interval: the points of the CI scope's succeeded runs add up to its 3 runs.
      const double start = to - std::floor((to - from) / q.interval) * q.interval;
      auto drawn = (*prometheus)->query_range(q.expr, start, to, q.interval);
      ASSERT_TRUE(drawn) << drawn.error();
      double total = 0;
      for (const auto& s : (*drawn)["result"])
        if (s["metric"].value("project", "") == kScope && s["metric"].value("outcome", "") == "succeeded")
          for (const auto& point : s["values"]) total += std::stod(point[1].get<std::string>());
      std::cout << "    points over the range add up to " << total << " runs (step " << q.interval << " s, window "
                << q.rate_interval << " s)\n";
      EXPECT_TRUE(near(total, 3, 0.25)) << total;
      // The same points as increase over the window count each run window/step times.
      std::string overlapping = std::regex_replace(q.expr, std::regex(R"(rate\((.*)\) \* \d+ / 1000)"), "increase($1)");
      auto counted = (*prometheus)->query_range(overlapping, start, to, q.interval);
      ASSERT_TRUE(counted) << counted.error();
      double twice = 0;
      for (const auto& s : (*counted)["result"])
        if (s["metric"].value("project", "") == kScope && s["metric"].value("outcome", "") == "succeeded")
          for (const auto& point : s["values"]) twice += std::stod(point[1].get<std::string>());
      std::cout << "    as increase over the window per step: " << twice << " (" << overlapping << ")\n";
      EXPECT_GT(twice, 2 * total);
    } else {
      continue;
    }
    ++checked[q.panel_title];
  }
  EXPECT_EQ(checked.size(), 8u) << "a panel this test checks is missing from the dashboard";
}

}  // namespace
}  // namespace ods::testing
