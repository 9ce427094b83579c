// Run tokens: HMAC-SHA256 of "<namespace>/<name>/<run uid>" under the controller key.
#include "ods/callback/run_token.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ods::callback {
namespace {

const std::string kKey = "controller-key-0123456789";

RunTokens tokens(const std::string& key = kKey) { return *RunTokens::from_key(key); }

TEST(RunTokens, IsTheHexHmacSha256OfNamespaceNameAndUid) {
  // printf 'team-a/nightly-1/5f0c' | openssl dgst -sha256 -hmac 'controller-key-0123456789'
  EXPECT_EQ(tokens().token_for("team-a", "nightly-1", "5f0c"),
            "2da73b014f0ecb9d3dd908eb53c007d35bd0561d0da49b2b8b7682f7c8c14a24");
}

TEST(RunTokens, AcceptsOnlyTheRunsOwnToken) {
  const RunTokens t = tokens();
  const std::string own = t.token_for("team-a", "run-1", "uid-1");
  EXPECT_TRUE(t.verify("team-a", "run-1", "uid-1", own));
  EXPECT_FALSE(t.verify("team-a", "run-2", "uid-1", own));  // another run's name
  EXPECT_FALSE(t.verify("team-b", "run-1", "uid-1", own));  // another namespace
  EXPECT_FALSE(t.verify("team-a", "run-1", "uid-2", own));  // the same name, recreated (new uid)
  EXPECT_FALSE(t.verify("team-a", "run-1", "uid-1", own.substr(0, 63)));
  EXPECT_FALSE(t.verify("team-a", "run-1", "uid-1", ""));
  std::string flipped = own;
  flipped[10] = flipped[10] == 'a' ? 'b' : 'a';
  EXPECT_FALSE(t.verify("team-a", "run-1", "uid-1", flipped));
  EXPECT_FALSE(tokens(kKey + "x").verify("team-a", "run-1", "uid-1", own));  // another controller key
}

TEST(RunTokens, RefusesAShortKey) {
  auto short_key = RunTokens::from_key("too-short");
  ASSERT_FALSE(short_key);
  EXPECT_EQ(short_key.error().code, "invalid_argument");
}

TEST(RunTokens, ReadsTheKeyFileWithoutItsTrailingNewline) {
  const auto path = std::filesystem::temp_directory_path() / ("ods-key-" + std::to_string(::getpid()));
  std::ofstream(path) << kKey << "\n";
  auto from_file = RunTokens::from_key_file(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(from_file) << from_file.error().message;
  EXPECT_EQ(from_file->token_for("n", "r", "u"), tokens().token_for("n", "r", "u"));

  auto missing = RunTokens::from_key_file(path);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "io");
  EXPECT_NE(missing.error().message.find(path.string()), std::string::npos);
}

}  // namespace
}  // namespace ods::callback
