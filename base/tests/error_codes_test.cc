// The list of error codes is the list: every code the product sources fail with is in it, once.
#include "ods/base/error_codes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "harness/source_paths.h"

namespace ods {
namespace {

TEST(ErrorCodes, SortedAndUnique) {
  for (std::size_t i = 1; i < error_codes().size(); ++i) {
    EXPECT_LT(error_codes()[i - 1].code, error_codes()[i].code) << "at " << error_codes()[i].code;
  }
  for (const ErrorCode& code : error_codes()) EXPECT_FALSE(code.meaning.empty()) << code.code;
  EXPECT_TRUE(is_known_error_code("io"));
  EXPECT_FALSE(is_known_error_code("io_error"));
}

// Scans the product sources (not tests, not benchmarks) for fail("code" and Error{"code".
TEST(ErrorCodes, EveryCodeTheProductFailsWithIsListed) {
  const std::regex failure(R"re((?:\bfail\(\s*|\bError\{\s*)"([a-z][a-z0-9_]*)")re");
  std::set<std::string> unknown;
  std::size_t files = 0, uses = 0;
  for (const char* component : {"base", "json", "planner", "providers", "runner", "operator"}) {
    const std::filesystem::path root = ods::testing::source_dir() / component;
    if (!std::filesystem::exists(root)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      const auto& path = entry.path();
      const auto ext = path.extension();
      if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
      const std::string where = path.string();
      if (where.find("/tests/") != std::string::npos || where.find("/bench/") != std::string::npos) continue;
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      const std::string source = text.str();
      ++files;
      for (std::sregex_iterator it(source.begin(), source.end(), failure), end; it != end; ++it) {
        ++uses;
        if (!is_known_error_code((*it)[1].str())) unknown.insert((*it)[1].str() + " (" + where + ")");
      }
    }
  }
  EXPECT_GT(files, 100u);
  EXPECT_GT(uses, 100u);
  for (const auto& code : unknown) ADD_FAILURE() << "error code not in ods/base/error_codes.h: " << code;
}

}  // namespace
}  // namespace ods
