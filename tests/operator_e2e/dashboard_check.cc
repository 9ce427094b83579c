#include "dashboard_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <regex>
#include <set>
#include <sstream>

#include "harness/dbt_project.h"  // source_dir

namespace ods::testing {

using nlohmann::json;

namespace {

// One series of an answer: its labels and its values (one for an instant query).
struct Series {
  std::map<std::string, std::string> labels;
  std::vector<double> values;
  double max() const {
    double m = -std::numeric_limits<double>::infinity();
    for (double v : values)
      if (!std::isnan(v)) m = std::max(m, v);
    return m;
  }
};

std::vector<Series> series_of(const json& data) {
  std::vector<Series> out;
  for (const auto& r : data["result"]) {
    Series s;
    for (const auto& [k, v] : r["metric"].items()) s.labels[k] = v.get<std::string>();
    if (r.contains("value")) s.values.push_back(std::stod(r["value"][1].get<std::string>()));
    for (const auto& p : r.value("values", json::array())) s.values.push_back(std::stod(p[1].get<std::string>()));
    out.push_back(std::move(s));
  }
  return out;
}

const Series* find(const std::vector<Series>& all, const std::map<std::string, std::string>& labels) {
  for (const auto& s : all) {
    bool match = true;
    for (const auto& [k, v] : labels) match = match && s.labels.count(k) && s.labels.at(k) == v;
    if (match) return &s;
  }
  return nullptr;
}

std::string describe(const std::vector<Series>& all) {
  std::ostringstream out;
  out << "[";
  for (const auto& s : all) {
    out << " {";
    for (const auto& [k, v] : s.labels) out << k << "=" << v << ",";
    if (s.values.size() == 1) {
      out << "} " << s.values[0];
    } else {
      out << "} " << s.values.size() << " points, max " << s.max();
    }
  }
  out << " ]";
  return out.str();
}

// The operator's own samples of `family` whose labels include `labels`: label text -> value.
std::vector<std::pair<std::string, double>> samples(const std::string& text, const std::string& family,
                                                    const std::string& labels) {
  std::vector<std::pair<std::string, double>> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(family + "{", 0) != 0 || line.find(labels) == std::string::npos) continue;
    const auto space = line.rfind(' ');
    out.emplace_back(line.substr(0, space), std::stod(line.substr(space + 1)));
  }
  return out;
}

// The bounds any quantile of a histogram's observations lies within, from its buckets (the
// operator's /metrics): the largest `le` no observation is below, the smallest all are below.
std::pair<double, double> quantile_bounds(const std::string& text, const std::string& family,
                                          const std::string& labels) {
  const auto buckets = samples(text, family + "_bucket", labels);
  const auto counts = samples(text, family + "_count", labels);
  double total = 0;
  for (const auto& [l, v] : counts) total += v;
  std::map<double, double> cumulative;  // le -> count (summed over the matching series)
  const std::regex le(R"(le="([^"]+)\")");
  for (const auto& [l, v] : buckets) {
    std::smatch m;
    if (!std::regex_search(l, m, le)) continue;
    const double bound = m[1] == "+Inf" ? std::numeric_limits<double>::infinity() : std::stod(m[1]);
    cumulative[bound] += v;
  }
  double lower = 0, upper = std::numeric_limits<double>::infinity();
  for (const auto& [bound, count] : cumulative) {
    if (count == 0) lower = bound;
    if (count >= total && bound < upper) upper = bound;
  }
  return {lower, upper};
}

// The label value `label` of each sample of the operator's family.
std::set<std::string> label_values(const std::string& text, const std::string& family, const std::string& label) {
  std::set<std::string> out;
  const std::regex value(label + R"(="([^"]+)\")");
  for (const auto& [l, v] : samples(text, family, "")) {
    std::smatch m;
    if (std::regex_search(l, m, value)) out.insert(m[1]);
  }
  return out;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-6 + 1e-3 * std::fabs(b); }

}  // namespace

void expect_dashboard_shows_the_runs(const PrometheusServer& prometheus, const GrafanaTimeRange& range,
                                     const DashboardExpectations& want) {
  std::ifstream in(source_dir() / "helm" / "ods" / "dashboards" / "ods.json");
  const json dashboard = json::parse(in);
  const auto queries = dashboard_queries(dashboard, range);
  const std::string& ops = want.operator_metrics;
  const std::string in_project = "project=\"" + want.project + "\"";
  const std::set<std::string> sources = label_values(ops, "ods_probe_latency_seconds_count", "source");
  ASSERT_FALSE(sources.empty()) << ops;

  // What each panel's answers must show: (instant answer, range answer or empty for instant targets).
  using Check =
      std::function<void(const std::string& ref, const std::vector<Series>& now, const std::vector<Series>& over_time)>;
  auto quantiles_within = [&](const std::string& family, const std::string& label, std::set<std::string> expected) {
    return
        [&, family, label, expected](const std::string&, const std::vector<Series>&, const std::vector<Series>& over) {
          std::set<std::string> seen;
          for (const auto& s : over) {
            const std::string key = s.labels.count(label) ? s.labels.at(label) : "";
            seen.insert(key);
            const auto [lower, upper] = quantile_bounds(ops, family, label + "=\"" + key + "\"");
            int points = 0;
            for (double v : s.values) {
              if (std::isnan(v)) continue;
              ++points;
              EXPECT_GE(v, lower) << key;
              EXPECT_LE(v, upper) << key;
            }
            EXPECT_GT(points, 0) << key << " has no quantile at any step";
          }
          EXPECT_EQ(seen, expected);
        };
  };
  // The headline panels' figures from the operator's own counts.
  auto total_of = [&](const std::string& family, const std::string& labels) {
    double total = 0;
    for (const auto& [l, v] : samples(ops, family, labels)) total += v;
    return total;
  };
  const double reuse_percent =
      100 * total_of("ods_nodes_total", "action=\"reuse\"") / total_of("ods_nodes_total", in_project);
  auto one_value = [&](double expected) {
    return [expected](const std::string&, const std::vector<Series>& now, const std::vector<Series>&) {
      ASSERT_EQ(now.size(), 1U) << describe(now);
      EXPECT_TRUE(near(now[0].values.at(0), expected)) << now[0].values.at(0) << " vs " << expected;
    };
  };
  auto project_value = [&](double expected) {
    return [&, expected](const std::string&, const std::vector<Series>& now, const std::vector<Series>&) {
      const Series* s = find(now, {{"project", want.project}});
      ASSERT_TRUE(s) << describe(now);
      EXPECT_TRUE(near(s->values.at(0), expected)) << s->values.at(0) << " vs " << expected;
    };
  };
  const std::map<std::string, Check> checks{
      {"Reuse % (fleet)", one_value(reuse_percent)},
      {"Time saved (fleet)", one_value(want.seconds_saved)},
      {"Runs (fleet)", one_value(total_of("ods_runs_total", in_project))},
      {"Projects reporting", one_value(1)},
      {"Reuse % per project (CI and operator)", project_value(reuse_percent)},
      {"Time saved per project (CI and operator)", project_value(want.seconds_saved)},
      {"Runs by outcome",
       [&](const std::string&, const auto& now, const auto& over) {
         EXPECT_TRUE(find(now, {{"project", want.project}, {"outcome", "failed"}}));
         const Series* ok = find(over, {{"project", want.project}, {"outcome", "succeeded"}});
         ASSERT_TRUE(ok);
         EXPECT_GT(ok->max(), 0);
       }},
      {"Nodes built vs reused",
       [&](const std::string&, const auto&, const auto& over) {
         for (const char* action : {"build", "reuse"}) {
           const Series* s = find(over, {{"action", action}});
           ASSERT_TRUE(s) << action;
           EXPECT_GT(s->max(), 0) << action;
         }
       }},
      {"Reuse ratio per project (last run)",
       [&](const std::string&, const auto& now, const auto&) {
         const Series* s = find(now, {{"project", want.project}});
         ASSERT_TRUE(s);
         EXPECT_TRUE(near(s->values.at(0), want.last_reuse_ratio))
             << s->values.at(0) << " vs " << want.last_reuse_ratio;
       }},
      {"Why nodes were built",
       [&](const std::string&, const auto& now, const auto&) {
         std::map<std::string, double> counted;  // the operator's counts per reason
         for (const auto& [labels, v] : samples(ops, "ods_nodes_total", "action=\"build\""))
           if (v > 0) counted[std::regex_replace(labels, std::regex(R"re(.*reason="([^"]+)".*)re"), "$1")] += v;
         ASSERT_FALSE(counted.empty());
         EXPECT_EQ(now.size(), counted.size()) << describe(now);
         for (const auto& [reason, n] : counted) {
           const Series* s = find(now, {{"reason", reason}});
           ASSERT_TRUE(s) << reason;
           EXPECT_TRUE(near(s->values.at(0), n)) << reason << ": " << s->values.at(0) << " vs " << n;
         }
       }},
      {"Sources by exactness (last run)",
       [&](const std::string&, const auto& now, const auto&) {
         std::map<std::string, double> counted;  // the operator's gauge per exactness, this project's
         for (const auto& [labels, v] : samples(ops, "ods_run_sources", in_project))
           counted[std::regex_replace(labels, std::regex(R"re(.*exactness="([^"]+)".*)re"), "$1")] += v;
         ASSERT_FALSE(counted.empty()) << "the operator exports no ods_run_sources of " << want.project;
         double probed = 0;
         for (const auto& [exactness, n] : counted) {
           const Series* s = find(now, {{"exactness", exactness}});
           ASSERT_TRUE(s) << exactness << " in " << describe(now);
           EXPECT_TRUE(near(s->values.at(0), n)) << exactness << ": " << s->values.at(0) << " vs " << n;
           probed += n;
         }
         EXPECT_GT(probed, 0) << "the last run probed no source";
       }},
      {"Probe latency p50 per source", quantiles_within("ods_probe_latency_seconds", "source", sources)},
      {"Probe latency p95 per source", quantiles_within("ods_probe_latency_seconds", "source", sources)},
      {"Run duration p95", quantiles_within("ods_run_duration_seconds", "project", {want.project})},
      {"Unknown data versions",
       [&](const std::string&, const auto& now, const auto&) {
         const Series* s = find(now, {{"project", want.project}});
         ASSERT_TRUE(s);
         double total = 0;
         for (const auto& [l, v] : samples(ops, "ods_unknown_data_versions_total", in_project)) total += v;
         if (total == 0) {
           EXPECT_EQ(s->values.at(0), 0);
         }
       }},
      {"Reconcile errors",
       [&](const std::string&, const auto& now, const auto&) {
         for (const char* c : {"dbtproject", "dbtrun"}) EXPECT_TRUE(find(now, {{"controller", c}})) << c;
       }},
      {"Reconciles by result",
       [&](const std::string&, const auto&, const auto& over) {
         for (const char* c : {"dbtproject", "dbtrun"}) {
           double most = 0;  // a scheduled project's reconciles end requeue_after, a run's success
           for (const auto& s : over)
             if (s.labels.count("controller") && s.labels.at("controller") == c) most = std::max(most, s.max());
           EXPECT_GT(most, 0) << c;
         }
       }},
      {"Work queue depth",
       [&](const std::string& ref, const auto& now, const auto&) {
         for (const char* q : {"dbtproject", "dbtrun"}) {
           const Series* s = find(now, {{"name", q}});
           ASSERT_TRUE(s) << ref << " " << q;
           if (ref == "A") {
             EXPECT_EQ(s->values.at(0), 0) << "the queue " << q << " did not drain";
           }
         }
       }},
      {"Leader",
       [&](const std::string&, const auto& now, const auto&) {
         ASSERT_EQ(now.size(), 1U);
         EXPECT_EQ(now[0].values.at(0), 1);
       }},
      {"Time saved per day",
       [&](const std::string&, const auto& now, const auto&) {
         ASSERT_EQ(now.size(), 1U);
         EXPECT_TRUE(near(now[0].values.at(0), want.seconds_saved))
             << now[0].values.at(0) << " vs " << want.seconds_saved;
       }},
      {"Build time saved vs spent",
       [&](const std::string& ref, const auto&, const auto& over) {
         ASSERT_EQ(over.size(), 1U) << ref;
         EXPECT_GT(over[0].max(), 0) << ref;
       }},
      {"Top projects by time saved",
       [&](const std::string&, const auto& now, const auto&) {
         const Series* s = find(now, {{"project", want.project}});
         ASSERT_TRUE(s);
         EXPECT_TRUE(near(s->values.at(0), want.seconds_saved)) << s->values.at(0) << " vs " << want.seconds_saved;
       }},
      {"Builds by reason over time",
       [&](const std::string&, const auto&, const auto& over) {
         for (const char* reason : {"never_built", "new_upstream_data"})
           EXPECT_TRUE(find(over, {{"reason", reason}})) << reason;
       }},
  };

  std::cout << "dashboard queries over " << range.to - range.from << " s (scrape interval " << range.scrape_interval
            << " s), evaluated at " << std::fixed << range.to << ":\n";
  for (const auto& q : queries) {
    SCOPED_TRACE(q.panel_title + " " + q.ref_id + ": " + q.expr);
    auto now = prometheus.query(q.expr, range.to);
    ASSERT_TRUE(now) << now.error();
    std::vector<Series> instant = series_of(*now), over_time;
    // A time series panel is drawn from a range query every $__interval; a step as long as the
    // range (Time saved per day) draws at most the one bar the instant query gives.
    if (!q.instant && q.panel_type == "timeseries" && q.interval < q.range) {
      // The steps end at range.to, as the instant query is evaluated: with steps counted from
      // range.from the last could fall before the last runs' samples (CI saw a run's reasons in
      // the instant answer but not over the range).
      const double start = range.to - std::floor((range.to - range.from) / q.interval) * q.interval;
      auto drawn = prometheus.query_range(q.expr, start, range.to, q.interval);
      ASSERT_TRUE(drawn) << drawn.error();
      over_time = series_of(*drawn);
      EXPECT_FALSE(over_time.empty()) << "no data over the range";
    } else {
      EXPECT_FALSE(instant.empty()) << "no data";
    }
    std::cout << "  [" << q.panel_title << "] " << q.ref_id << ": " << q.expr << "\n    now: " << describe(instant)
              << (over_time.empty() ? "" : "\n    over the range: " + describe(over_time)) << "\n";
    auto check = checks.find(q.panel_title);
    ASSERT_NE(check, checks.end()) << "no check for the panel '" << q.panel_title << "': say what it must show";
    check->second(q.ref_id, instant, over_time);
  }
}

}  // namespace ods::testing
