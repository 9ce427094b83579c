// The chart's alert rules (helm/ods/alerts/ods-rules.yaml) as `helm template` renders them into
// the PrometheusRule (alerts.enabled), tested with Debian's promtool: `promtool check rules` on
// the rendered spec, then `promtool test rules` with tests/alerts/ods_rules_test.yaml (series
// that fire each alert and series that don't). Without alerts.enabled the chart renders none.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>

#include "harness/dbt_project.h"
#include "harness/kube_control_plane.h"
#include "harness/temp_dir.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

class AlertRulesTest : public ::testing::Test {
 protected:
  // helm template of the chart with `sets`, its cache and config in the test's directory.
  ProcessResult render(const std::vector<std::string>& sets) {
    auto helm = helm_binary();
    EXPECT_TRUE(helm) << helm.error();
    if (!helm) return {};
    std::vector<std::string> argv{helm->string(), "template",  "ods", (source_dir() / "helm" / "ods").string(),
                                  "--namespace",  "ods-system"};
    for (const auto& s : sets) argv.insert(argv.end(), {"--set", s});
    const fs::path home = dir_.path() / "helm-home";
    return run_process(
        argv, source_dir(),
        {"HELM_CACHE_HOME=" + (home / "cache").string(), "HELM_CONFIG_HOME=" + (home / "config").string(),
         "HELM_DATA_HOME=" + (home / "data").string()});
  }

  // The spec of the rendered PrometheusRule, as a rules file (`groups:`); "" when none.
  static std::string prometheus_rule_spec(const std::string& rendered) {
    for (const auto& doc : YAML::LoadAll(rendered)) {
      if (doc.IsMap() && doc["kind"] && doc["kind"].as<std::string>() == "PrometheusRule") {
        YAML::Emitter out;
        out << doc["spec"];
        return out.c_str();
      }
    }
    return "";
  }

  TempDir dir_{"alerts"};
};

TEST_F(AlertRulesTest, TheRenderedRulesPassPromtoolsUnitTests) {
  ProcessResult rendered = render({"alerts.enabled=true", "alerts.labels.release=kube-prometheus"});
  ASSERT_EQ(rendered.exit_code, 0) << rendered.errors;
  const std::string spec = prometheus_rule_spec(rendered.output);
  ASSERT_FALSE(spec.empty()) << rendered.output;
  EXPECT_NE(rendered.output.find("release: kube-prometheus"), std::string::npos) << rendered.output;
  std::ofstream(dir_.path() / "ods-rules.yaml") << spec;
  fs::copy_file(source_dir() / "tests" / "alerts" / "ods_rules_test.yaml", dir_.path() / "ods_rules_test.yaml");

  ProcessResult checked = run_process({"promtool", "check", "rules", "ods-rules.yaml"}, dir_.path());
  ASSERT_EQ(checked.exit_code, 0) << checked.output << checked.errors;
  EXPECT_NE(checked.output.find("SUCCESS: 5 rules found"), std::string::npos) << checked.output;
  ProcessResult tested = run_process({"promtool", "test", "rules", "ods_rules_test.yaml"}, dir_.path());
  EXPECT_EQ(tested.exit_code, 0) << tested.output << tested.errors;
  EXPECT_NE(tested.output.find("SUCCESS"), std::string::npos) << tested.output;
}

TEST_F(AlertRulesTest, EveryAlertOfTheRulesFileIsTested) {
  const YAML::Node rules = YAML::LoadFile((source_dir() / "helm" / "ods" / "alerts" / "ods-rules.yaml").string());
  const YAML::Node tests = YAML::LoadFile((source_dir() / "tests" / "alerts" / "ods_rules_test.yaml").string());
  std::map<std::string, std::pair<int, int>> cases;  // alert -> (evaluations expecting it, expecting none)
  for (const auto& t : tests["tests"]) {
    for (const auto& e : t["alert_rule_test"]) {
      auto& c = cases[e["alertname"].as<std::string>()];
      (e["exp_alerts"].size() > 0 ? c.first : c.second)++;
    }
  }
  int alerts = 0;
  for (const auto& group : rules["groups"]) {
    for (const auto& rule : group["rules"]) {
      const std::string name = rule["alert"].as<std::string>();
      ++alerts;
      EXPECT_GE(cases[name].first, 1) << name << " is never expected to fire";
      EXPECT_GE(cases[name].second, 1) << name << " is never expected to stay quiet";
    }
  }
  EXPECT_EQ(alerts, 5);
}

TEST_F(AlertRulesTest, WithoutAlertsEnabledTheChartRendersNoPrometheusRule) {
  ProcessResult rendered = render({});
  ASSERT_EQ(rendered.exit_code, 0) << rendered.errors;
  EXPECT_EQ(rendered.output.find("kind: PrometheusRule"), std::string::npos);
}

}  // namespace
}  // namespace ods::testing
