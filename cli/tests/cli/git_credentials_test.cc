// The environment `ods pod` gives git for a private source (git_credentials.h): an HTTP header
// for https (Basic from password/username, or Bearer), an ssh command with a private copy of the
// key and strict host-key checking, and clear refusals that never quote a secret.
#include "git_credentials.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

class GitCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ods-git-credentials-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "secret");
    fs::create_directories(root_ / "scratch");
  }
  void TearDown() override { fs::remove_all(root_); }
  void key(const std::string& name, const std::string& value) { std::ofstream(root_ / "secret" / name) << value; }
  std::map<std::string, std::string> environment(const std::string& url) {
    auto made = git_credentials(root_ / "secret", url, root_ / "scratch");
    EXPECT_TRUE(made) << made.error().message;
    if (!made) return {};
    private_key_dir_ = made->private_key_dir;
    return {made->environment.begin(), made->environment.end()};
  }
  std::string refusal(const std::string& url) {
    auto made = git_credentials(root_ / "secret", url, root_ / "scratch");
    EXPECT_FALSE(made);
    return made ? "" : made.error().message;
  }
  fs::path root_, private_key_dir_;
};

TEST(Base64, EncodesWithPadding) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("ods:s3cret"), "b2RzOnMzY3JldA==");
}

TEST_F(GitCredentialsTest, APasswordBecomesABasicHeaderForThatUrlOnly) {
  key("username", "robot\n");
  key("password", "s3cret\n");
  auto env = environment("https://git.example/acme/shop.git");
  EXPECT_EQ(env["GIT_TERMINAL_PROMPT"], "0");
  EXPECT_EQ(env["GIT_CONFIG_COUNT"], "1");
  EXPECT_EQ(env["GIT_CONFIG_KEY_0"], "http.https://git.example/acme/shop.git.extraHeader");
  EXPECT_EQ(env["GIT_CONFIG_VALUE_0"], "Authorization: Basic " + base64("robot:s3cret"));
  fs::remove(root_ / "secret" / "username");
  EXPECT_EQ(environment("https://git.example/x.git")["GIT_CONFIG_VALUE_0"],
            "Authorization: Basic " + base64("git:s3cret"));
}

TEST_F(GitCredentialsTest, ABearerTokenBecomesABearerHeader) {
  key("bearerToken", "tok-123");
  EXPECT_EQ(environment("https://git.example/x.git")["GIT_CONFIG_VALUE_0"], "Authorization: Bearer tok-123");
}

TEST_F(GitCredentialsTest, APrivateCaIsTrustedAloneOrBesideACredential) {
  key("ca.crt", "-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n");
  auto alone = environment("https://git.corp/x.git");
  EXPECT_EQ(alone["GIT_SSL_CAINFO"], (root_ / "secret" / "ca.crt").string());
  EXPECT_EQ(alone.count("GIT_CONFIG_COUNT"), 0u) << "no credential, no header";
  key("password", "s3cret");
  auto both = environment("https://git.corp/x.git");
  EXPECT_EQ(both["GIT_SSL_CAINFO"], (root_ / "secret" / "ca.crt").string());
  EXPECT_EQ(both["GIT_CONFIG_VALUE_0"], "Authorization: Basic " + base64("git:s3cret"));
}

TEST_F(GitCredentialsTest, AnSshKeyIsCopiedForItsOwnerAndHostKeysAreCheckedStrictly) {
  key("identity", "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n");
  key("known_hosts", "git.example ssh-ed25519 AAAA\n");
  auto env = environment("git@git.example:acme/shop.git");
  const std::string command = env["GIT_SSH_COMMAND"];
  const fs::path copy = root_ / "scratch" / "ods-git-ssh" / "identity";
  EXPECT_NE(command.find("-i '" + copy.string() + "'"), std::string::npos) << command;
  EXPECT_NE(command.find("-o StrictHostKeyChecking=yes"), std::string::npos) << command;
  EXPECT_NE(command.find("-o UserKnownHostsFile='" + (root_ / "secret" / "known_hosts").string() + "'"),
            std::string::npos)
      << command;
  EXPECT_NE(command.find("BatchMode=yes"), std::string::npos) << command;
  EXPECT_EQ(command.find("abc"), std::string::npos) << "the key itself is not in the command";
  struct stat info {};
  ASSERT_EQ(::stat(copy.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  EXPECT_EQ(private_key_dir_, copy.parent_path());
}

TEST_F(GitCredentialsTest, MissingKeysAreRefusedNamingTheKeysNeverAValue) {
  key("identity", "the-private-key");
  const std::string no_hosts = refusal("ssh://git.example/acme/shop.git");
  EXPECT_NE(no_hosts.find("no known_hosts"), std::string::npos) << no_hosts;
  EXPECT_EQ(no_hosts.find("the-private-key"), std::string::npos);
  const std::string no_password = refusal("https://git.example/x.git");
  EXPECT_NE(no_password.find("neither password"), std::string::npos) << no_password;
  fs::remove_all(root_ / "secret");
  EXPECT_NE(refusal("https://git.example/x.git").find("is missing"), std::string::npos);
  auto none = git_credentials({}, "https://git.example/x.git", root_ / "scratch");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->environment, (std::vector<std::pair<std::string, std::string>>{{"GIT_TERMINAL_PROMPT", "0"}}));
}

}  // namespace
}  // namespace ods::cli
