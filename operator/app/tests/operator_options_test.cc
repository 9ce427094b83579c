#include "operator_options.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/source_paths.h"

namespace ods::operator_app {
namespace {

std::vector<std::string> required(std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"--state-secret",       "ods/state",      "--callback-key-secret",
                                "ods/callback:signing", "--callback-url", "http://127.0.0.1:8081"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(OperatorOptions, DefaultsAndRequiredFlags) {
  auto o = parse_operator_options(required());
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->state_secret.namespace_name, "ods");
  EXPECT_EQ(o->state_secret.name, "state");
  EXPECT_EQ(o->state_secret.key, "dsn");
  EXPECT_EQ(o->callback_key.key, "signing");
  EXPECT_EQ(o->callback_listen.port, 8081);
  EXPECT_EQ(o->metrics_listen.port, 8080);
  EXPECT_TRUE(o->leader_elect);
  EXPECT_EQ(o->lease_namespace, "ods");
  EXPECT_EQ(o->lease_name, "ods-operator");
  EXPECT_FALSE(o->identity.empty());
  EXPECT_EQ(o->lease_duration, std::chrono::seconds(15));
}

TEST(OperatorOptions, ParsesEveryFlag) {
  auto o = parse_operator_options(required({"--kubeconfig=/k",
                                            "--namespace",
                                            "team",
                                            "--metrics-listen",
                                            "127.0.0.1:0",
                                            "--callback-listen",
                                            ":9000",
                                            "--no-leader-elect",
                                            "--lease",
                                            "sys/lock",
                                            "--identity",
                                            "a",
                                            "--lease-duration",
                                            "4s",
                                            "--renew-deadline",
                                            "3s",
                                            "--retry-period",
                                            "500ms",
                                            "--workers",
                                            "3",
                                            "--log-level",
                                            "debug"}));
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->kubeconfig, "/k");
  EXPECT_EQ(o->watch_namespace, "team");
  EXPECT_EQ(o->metrics_listen.host, "127.0.0.1");
  EXPECT_EQ(o->metrics_listen.port, 0);
  EXPECT_EQ(o->callback_listen.host, "0.0.0.0");
  EXPECT_EQ(o->callback_listen.port, 9000);
  EXPECT_FALSE(o->leader_elect);
  EXPECT_EQ(o->lease_namespace, "sys");
  EXPECT_EQ(o->lease_name, "lock");
  EXPECT_EQ(o->retry_period, std::chrono::milliseconds(500));
  EXPECT_EQ(o->workers, 3);
}

struct BadCase {
  std::vector<std::string> args;
  std::string message_part;
};

TEST(OperatorOptions, TheRunnerAllowListsAreCommaSeparatedAndAddUp) {
  auto none = parse_operator_options(required());
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->allowed_images.empty());
  EXPECT_TRUE(none->allowed_service_accounts.empty());
  auto o = parse_operator_options(required({"--allowed-images=ghcr.io/ods-dev/ods-runner:*, registry.corp/a/*",
                                            "--allowed-images", "x", "--allowed-service-accounts", "dbt-runner"}));
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->allowed_images, (std::vector<std::string>{"ghcr.io/ods-dev/ods-runner:*", "registry.corp/a/*", "x"}));
  EXPECT_EQ(o->allowed_service_accounts, std::vector<std::string>{"dbt-runner"});
}

TEST(OperatorOptions, ThePackagesCacheIsAHostPathOrAClaim) {
  auto none = parse_operator_options(required());
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->packages_cache_host_path.empty());
  EXPECT_TRUE(none->packages_cache_claim.empty());
  auto host = parse_operator_options(required({"--packages-cache-host-path=/var/cache/ods-packages"}));
  ASSERT_TRUE(host) << host.error().message;
  EXPECT_EQ(host->packages_cache_host_path, "/var/cache/ods-packages");
  auto claim = parse_operator_options(required({"--packages-cache-claim", "dbt-packages"}));
  ASSERT_TRUE(claim) << claim.error().message;
  EXPECT_EQ(claim->packages_cache_claim, "dbt-packages");
}

TEST(OperatorOptions, RefusesBadFlagsNamingThem) {
  const std::vector<BadCase> cases{
      {{"--callback-key-secret", "ods/k", "--callback-url", "http://x"}, "--state-secret is required"},
      {required({"--bogus"}), "unknown flag '--bogus'"},
      {required({"--workers"}), "--workers needs a value"},
      {required({"--workers", "0"}), "--workers must be a whole number"},
      {required({"--metrics-listen", "8080"}), "--metrics-listen must be HOST:PORT"},
      {required({"--metrics-listen", "h:99999"}), "--metrics-listen must be HOST:PORT"},
      {required({"--lease-duration", "15"}), "--lease-duration: '15' is not a duration"},
      {required({"--renew-deadline", "20s"}), "--renew-deadline must be shorter than --lease-duration"},
      {required({"--log-level", "loud"}), "--log-level must be"},
      {required({"--lease", "x"}), "--lease must be NAMESPACE/NAME"},
      {required({"--allowed-images", "a/*,,b"}), "--allowed-images takes a comma-separated list without empty items"},
      {required({"--allowed-service-accounts="}), "--allowed-service-accounts takes a comma-separated list"},
      {required({"--packages-cache-host-path", "cache"}), "--packages-cache-host-path must be an absolute path"},
      {required({"--packages-cache-host-path", "/var/../etc"}), "--packages-cache-host-path must be an absolute path"},
      {required({"--packages-cache-claim", "Dbt_Packages"}), "--packages-cache-claim must be a PersistentVolumeClaim"},
      {required({"--packages-cache-host-path=/c", "--packages-cache-claim=c"}), "give one packages cache, not both"},
      {{"--state-secret", "state", "--callback-key-secret", "ods/k", "--callback-url", "http://x"},
       "--state-secret must be NAMESPACE/NAME"},
      {{"--state-secret", "a/b", "--callback-key-secret", "ods/k", "--callback-url", "ftp://x"},
       "--callback-url must start with http://"},
  };
  for (const auto& c : cases) {
    auto o = parse_operator_options(c.args);
    ASSERT_FALSE(o) << c.message_part;
    EXPECT_EQ(o.error().code, "usage");
    EXPECT_NE(o.error().message.find(c.message_part), std::string::npos) << o.error().message;
  }
}

// Every level the chart's values.schema.json offers starts the operator (its `warn` once made the
// operator exit 2 at start: a crash loop).
TEST(OperatorOptions, AcceptsEveryLogLevelTheChartOffers) {
  std::ifstream schema_file(ods::testing::source_dir() / "helm" / "ods" / "values.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(schema_file, nullptr, false);
  ASSERT_FALSE(schema.is_discarded()) << "helm/ods/values.schema.json";
  const nlohmann::json& levels = schema["properties"]["logLevel"]["enum"];
  ASSERT_TRUE(levels.is_array() && !levels.empty()) << schema["properties"]["logLevel"];
  for (const auto& level : levels) {
    auto o = parse_operator_options(required({"--log-level", level.get<std::string>()}));
    ASSERT_TRUE(o) << level << ": " << o.error().message;
    EXPECT_EQ(o->log_level, level.get<std::string>());
  }
}

std::string source_text(const std::filesystem::path& relative) {
  std::ifstream in(ods::testing::source_dir() / relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One callback port everywhere (issue 25: 9443 in the binary, 8081 in the Dockerfile's EXPOSE and
// the chart, 8080 in docs/cli.md): the binary's default is the chart's callback.port, the operator
// image EXPOSEs it, and the docs' example URLs use it.
TEST(OperatorOptions, TheCallbackPortIsTheSameInTheBinaryTheChartTheImageAndTheDocs) {
  const std::string port = std::to_string(OperatorOptions{}.callback_listen.port);
  const std::string values = source_text("helm/ods/values.yaml");
  const auto callback = values.find("\ncallback:\n");
  ASSERT_NE(callback, std::string::npos) << "helm/ods/values.yaml has no callback: section";
  const auto port_line = values.find("\n  port: ", callback);
  ASSERT_NE(port_line, std::string::npos);
  EXPECT_EQ(values.substr(port_line + 9, values.find('\n', port_line + 1) - port_line - 9), port)
      << "helm/ods/values.yaml callback.port";
  const std::string dockerfile = source_text("docker/operator.Dockerfile");
  const auto expose = dockerfile.find("\nEXPOSE ");
  ASSERT_NE(expose, std::string::npos) << "docker/operator.Dockerfile has no EXPOSE";
  const std::string exposed = dockerfile.substr(expose, dockerfile.find('\n', expose + 1) - expose) + " ";
  EXPECT_NE(exposed.find(" " + port + " "), std::string::npos) << "docker/operator.Dockerfile:" << exposed;
  for (const std::string doc : {"docs/cli.md", "docs/kubernetes.md"}) {
    const std::string text = source_text(doc);
    for (auto at = text.find(".svc:"); at != std::string::npos; at = text.find(".svc:", at + 1)) {
      const std::string url_port = text.substr(at + 5, text.find_first_not_of("0123456789", at + 5) - at - 5);
      EXPECT_EQ(url_port, port) << doc << ": a callback URL with port " << url_port;
    }
  }
}

TEST(OperatorOptions, Durations) {
  EXPECT_EQ(*parse_duration("1h30m"), std::chrono::minutes(90));
  EXPECT_EQ(*parse_duration("250ms"), std::chrono::milliseconds(250));
  EXPECT_FALSE(parse_duration(""));
  EXPECT_FALSE(parse_duration("1x"));
  EXPECT_FALSE(parse_duration("m"));
}

TEST(OperatorOptions, HelpStopsParsing) {
  auto o = parse_operator_options({"--help"});
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->help);
  EXPECT_NE(operator_usage().find("--state-secret"), std::string::npos);
}

}  // namespace
}  // namespace ods::operator_app
