// The shop_baseline ctest fixture (tests/CMakeLists.txt): builds examples/shop's baseline once per
// ctest run into $ODS_SHOP_BASELINE, where every suite that requires the fixture copies it from
// (harness/shop_baseline.h) instead of building its own.
#include <gtest/gtest.h>

#include <cstdlib>

#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

TEST(ShopBaselineFixture, BuildsTheBaselineTheSuitesCopy) {
  const char* dir = std::getenv("ODS_SHOP_BASELINE");
  ASSERT_TRUE(dir && *dir) << "ODS_SHOP_BASELINE names the directory of the fixture's copy";
  write_shop_baseline(dir);
  ASSERT_FALSE(HasFailure());
  const DbtProject copy = DbtProject::copy_of_directory(dir);
  EXPECT_TRUE(std::filesystem::exists(copy.dir() / ".ods" / "state.db"));
  EXPECT_TRUE(std::filesystem::exists(copy.dir() / "target" / "manifest.json"));
}

}  // namespace
}  // namespace ods::testing
