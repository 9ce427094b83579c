// in_cluster_config() from a temp root, and the token re-read as it rotates.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "harness/temp_dir.h"
#include "ods/kube/config.h"

namespace ods::kube {
namespace {

namespace fs = std::filesystem;

class InClusterConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    account_ = root_ / "var/run/secrets/kubernetes.io/serviceaccount";
    fs::create_directories(account_);
    write("ca.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    write("token", "token-1\n");
    write("namespace", "ods-system");
  }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(account_ / name, std::ios::trunc) << text;
  }

  InClusterOptions options() {
    InClusterOptions o;
    o.root = root_;
    o.env = [this](const std::string& name) -> std::optional<std::string> {
      auto it = env_.find(name);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
    o.clock = [this] { return now_; };
    return o;
  }

  ods::testing::TempDir temp_{"in-cluster"};
  const fs::path root_ = temp_.path();
  fs::path account_;
  std::map<std::string, std::string> env_ = {{"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                             {"KUBERNETES_SERVICE_PORT", "443"}};
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
};

TEST_F(InClusterConfigTest, ServerCaTokenAndNamespaceOfThePod) {
  auto config = in_cluster_config(options());
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://10.0.0.1:443");
  EXPECT_EQ(config->certificate_authority.file, account_ / "ca.crt");
  ASSERT_NE(config->token, nullptr);
  EXPECT_EQ(config->token->token(), "token-1");
  EXPECT_EQ(config->namespace_name, "ods-system");
}

TEST_F(InClusterConfigTest, AnIpv6ServiceHostIsBracketed) {
  env_["KUBERNETES_SERVICE_HOST"] = "fd00::1";
  auto config = in_cluster_config(options());
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://[fd00::1]:443");
}

TEST_F(InClusterConfigTest, OutsideAPodOrWithoutTheAccountFilesItSaysWhatIsMissing) {
  env_.erase("KUBERNETES_SERVICE_PORT");
  auto no_env = in_cluster_config(options());
  ASSERT_FALSE(no_env);
  EXPECT_NE(no_env.error().message.find("KUBERNETES_SERVICE_PORT"), std::string::npos);

  env_["KUBERNETES_SERVICE_PORT"] = "443";
  fs::remove(account_ / "token");
  auto no_token = in_cluster_config(options());
  ASSERT_FALSE(no_token);
  EXPECT_NE(no_token.error().message.find((account_ / "token").string()), std::string::npos)
      << no_token.error().message;

  fs::remove(account_ / "ca.crt");
  auto no_ca = in_cluster_config(options());
  ASSERT_FALSE(no_ca);
  EXPECT_NE(no_ca.error().message.find("ca.crt"), std::string::npos) << no_ca.error().message;
}

TEST_F(InClusterConfigTest, TheTokenIsReReadAfterAMinuteOrWhenInvalidated) {
  auto config = in_cluster_config(options());
  ASSERT_TRUE(config) << config.error().message;
  auto& token = *config->token;
  write("token", "token-2\n");  // the kubelet rotated it
  now_ += std::chrono::seconds(59);
  EXPECT_EQ(token.token(), "token-1") << "re-read before a minute passed";
  now_ += std::chrono::seconds(1);
  EXPECT_EQ(token.token(), "token-2");

  write("token", "token-3\n");
  EXPECT_EQ(token.token(), "token-2");
  token.invalidate();  // what the client does on a 401
  EXPECT_EQ(token.token(), "token-3");

  write("token", "");  // a rotation caught half-written keeps the last good token
  token.invalidate();
  EXPECT_EQ(token.token(), "token-3");
}

TEST(TokenSourceTest, AFixedTokenNeverChanges) {
  auto token = TokenSource::fixed("t");
  token->invalidate();
  EXPECT_EQ(token->token(), "t");
  EXPECT_TRUE(token->file().empty());
}

}  // namespace
}  // namespace ods::kube
