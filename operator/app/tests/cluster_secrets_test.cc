#include "cluster_secrets.h"

#include <gtest/gtest.h>

namespace ods::operator_app {
namespace {

using kube::ApiError;
using kube::ApiResult;
using kube::Json;

// A Client that holds one Secret; every other call is refused (not used by read_secret_value).
class OneSecretClient final : public kube::Client {
 public:
  explicit OneSecretClient(std::optional<Json> secret) : secret_(std::move(secret)) {}
  ApiResult<Json> get(const kube::Resource&, const kube::ObjectKey& key) override {
    if (!secret_ || key.name != "state")
      return std::unexpected(ApiError{404, "NotFound", "secrets \"" + key.name + "\" not found"});
    return *secret_;
  }
  ApiResult<std::optional<Json>> find(const kube::Resource&, const kube::ObjectKey&) override { return refused(); }
  ApiResult<Json> list(const kube::Resource&, const std::string&, const kube::ListOptions&) override {
    return refused();
  }
  ApiResult<Json> create(const kube::Resource&, const std::string&, const Json&) override { return refused(); }
  ApiResult<Json> replace(const kube::Resource&, const kube::ObjectKey&, const Json&, kube::Subresource) override {
    return refused();
  }
  ApiResult<Json> merge_patch(const kube::Resource&, const kube::ObjectKey&, const Json&, kube::Subresource) override {
    return refused();
  }
  ApiResult<Json> apply(const kube::Resource&, const kube::ObjectKey&, const Json&, const std::string&,
                        kube::Subresource) override {
    return refused();
  }
  ApiResult<bool> remove(const kube::Resource&, const kube::ObjectKey&) override { return refused(); }
  ApiResult<std::unique_ptr<kube::WatchStream>> watch(const kube::Resource&, const std::string&,
                                                      const kube::WatchOptions&) override {
    return refused();
  }

 private:
  static std::unexpected<ApiError> refused() { return std::unexpected(ApiError{405, "MethodNotAllowed", "not here"}); }
  std::optional<Json> secret_;
};

Json secret_with(Json data) { return {{"metadata", {{"name", "state"}, {"namespace", "ods"}}}, {"data", data}}; }

const SecretKeyRef kRef{"ods", "state", "dsn"};

TEST(ClusterSecrets, DecodesTheValueAndDropsATrailingNewline) {
  OneSecretClient client(
      secret_with({{"dsn", "aG9zdD0xMjcuMC4wLjEgZGJuYW1lPW9kcwo="}}));  // "host=127.0.0.1 dbname=ods\n"
  auto value = read_secret_value(client, kRef);
  ASSERT_TRUE(value) << value.error().message;
  EXPECT_EQ(*value, "host=127.0.0.1 dbname=ods");
}

TEST(ClusterSecrets, SaysWhatIsWrongWithoutTheValue) {
  struct Case {
    std::optional<Json> secret;
    std::string message_part;
  };
  const std::vector<Case> cases{
      {std::nullopt, "cannot read Secret ods/state: secrets \"state\" not found"},
      {secret_with({{"other", "eA=="}}), "Secret ods/state has no key 'dsn'"},
      {secret_with({{"dsn", "c2VjcmV0!!"}}), "key 'dsn' is not base64 data"},
      {secret_with({{"dsn", "Cg=="}}), "key 'dsn' is empty"},
  };
  for (const auto& c : cases) {
    OneSecretClient client(c.secret);
    auto value = read_secret_value(client, kRef);
    ASSERT_FALSE(value) << c.message_part;
    EXPECT_EQ(value.error().code, "secret");
    EXPECT_NE(value.error().message.find(c.message_part), std::string::npos) << value.error().message;
    EXPECT_EQ(value.error().message.find("c2VjcmV0"), std::string::npos) << "the value leaked into the message";
  }
}

TEST(ClusterSecrets, Base64) {
  EXPECT_EQ(decode_base64("b2Rz"), "ods");
  EXPECT_EQ(decode_base64("b2Q="), "od");
  EXPECT_EQ(decode_base64("bw=="), "o");
  EXPECT_EQ(decode_base64(""), "");
  EXPECT_FALSE(decode_base64("b2R"));
  EXPECT_FALSE(decode_base64("b=Rz"));
  EXPECT_FALSE(decode_base64("b2R*"));
}

}  // namespace
}  // namespace ods::operator_app
