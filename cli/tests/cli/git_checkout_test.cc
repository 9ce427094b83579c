#include "git_checkout.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

class GitCheckoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ods-git-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "origin" / "shop");
    std::ofstream(root_ / "origin" / "shop" / "dbt_project.yml") << "name: shop\n";
    const std::string in = "cd '" + (root_ / "origin").string() + "' && ";
    const std::string git = "git -c user.name=ods -c user.email=ods@example.com ";
    ASSERT_EQ(std::system((in + "git init -q -b main && " + git + "add -A && " + git + "commit -qm one && " + git +
                           "tag v1 && echo two > shop/second.txt && " + git + "add -A && " + git + "commit -qm two")
                              .c_str()),
              0);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string url() const { return "file://" + (root_ / "origin").string(); }
  fs::path root_;
};

TEST_F(GitCheckoutTest, ChecksOutABranchOrATag) {
  std::ostringstream log;
  ASSERT_TRUE(checkout_git_source({url(), "main", root_ / "work" / "source"}, log));
  EXPECT_TRUE(fs::exists(root_ / "work" / "source" / "shop" / "dbt_project.yml"));
  EXPECT_TRUE(fs::exists(root_ / "work" / "source" / "shop" / "second.txt"));
  EXPECT_NE(log.str().find("checking out " + url() + " at main"), std::string::npos);
  ASSERT_TRUE(checkout_git_source({url(), "v1", root_ / "tagged"}, log));
  EXPECT_TRUE(fs::exists(root_ / "tagged" / "shop" / "dbt_project.yml"));
  EXPECT_FALSE(fs::exists(root_ / "tagged" / "shop" / "second.txt"));
}

TEST_F(GitCheckoutTest, AMissingRevisionOrANonEmptyFolderIsAClearError) {
  std::ostringstream log;
  auto missing = checkout_git_source({url(), "no-such-branch", root_ / "a"}, log);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "git_failed");
  EXPECT_NE(missing.error().message.find("git fetch of " + url() + " at no-such-branch failed"), std::string::npos)
      << missing.error().message;
  fs::create_directories(root_ / "b");
  std::ofstream(root_ / "b" / "x") << "x";
  auto busy = checkout_git_source({url(), "main", root_ / "b"}, log);
  ASSERT_FALSE(busy);
  EXPECT_NE(busy.error().message.find("is not empty"), std::string::npos);
}

TEST_F(GitCheckoutTest, GitMissingFromPathIsAClearError) {
  const std::string saved = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  fs::create_directories(root_ / "empty-bin");
  ::setenv("PATH", (root_ / "empty-bin").c_str(), 1);
  std::ostringstream log;
  auto result = checkout_git_source({url(), "main", root_ / "c"}, log);
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, "git_failed");
  EXPECT_NE(result.error().message.find("git init of " + url() +
                                        " at main failed (exit code 127): git was not found on PATH"),
            std::string::npos)
      << result.error().message;
}

TEST(GitCheckoutPath, TheCheckoutHoldsTheProjectPath) {
  EXPECT_EQ(checkout_of("/var/run/ods/work/source/examples/shop", "examples/shop"),
            fs::path("/var/run/ods/work/source"));
  EXPECT_EQ(checkout_of("/var/run/ods/work/source", ""), fs::path("/var/run/ods/work/source"));
}

}  // namespace
}  // namespace ods::cli
