#include "ods/control/runner_policy.h"

#include <gtest/gtest.h>

namespace ods::control {
namespace {

nlohmann::json project(const std::string& image, const std::string& account = "") {
  nlohmann::json p = {{"metadata", {{"name", "shop"}}}, {"spec", {{"image", image}}}};
  if (!account.empty()) p["spec"]["runnerPodTemplate"]["serviceAccountName"] = account;
  return p;
}

TEST(RunnerPolicy, AnEmptyPolicyAllowsAnyImageAndAccount) {
  EXPECT_EQ(runner_policy_refusal({}, project("evil.example/miner:latest", "cluster-admin")), std::nullopt);
}

TEST(RunnerPolicy, ImagesMatchTheirPatternsWithStarsAcrossSlashes) {
  const RunnerPolicy policy{.image_patterns = {"ghcr.io/ods-dev/ods-runner:*", "registry.corp/analytics/*"}};
  EXPECT_EQ(runner_policy_refusal(policy, project("ghcr.io/ods-dev/ods-runner:0.1.0")), std::nullopt);
  EXPECT_EQ(runner_policy_refusal(policy, project("registry.corp/analytics/team-a/runner@sha256:ab")), std::nullopt);
  const auto refused = runner_policy_refusal(policy, project("ghcr.io/ods-dev/ods-runner-evil:1"));
  ASSERT_TRUE(refused);
  EXPECT_EQ(*refused,
            "spec.image 'ghcr.io/ods-dev/ods-runner-evil:1' is not allowed by this operator (--allowed-images: "
            "ghcr.io/ods-dev/ods-runner:*, registry.corp/analytics/*)");
  EXPECT_TRUE(runner_policy_refusal(policy, project("")));  // no image matches no pattern
}

TEST(RunnerPolicy, ServiceAccountsMustBeListedButNoneNamedIsTheDefaultsAndAllowed) {
  const RunnerPolicy policy{.service_accounts = {"dbt-runner"}};
  EXPECT_EQ(runner_policy_refusal(policy, project("any")), std::nullopt);
  EXPECT_EQ(runner_policy_refusal(policy, project("any", "dbt-runner")), std::nullopt);
  const auto refused = runner_policy_refusal(policy, project("any", "cluster-admin-sa"));
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("serviceAccountName 'cluster-admin-sa' is not allowed"), std::string::npos) << *refused;
  EXPECT_NE(refused->find("--allowed-service-accounts: dbt-runner"), std::string::npos) << *refused;
}

}  // namespace
}  // namespace ods::control
