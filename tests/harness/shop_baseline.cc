#include "harness/shop_baseline.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>

namespace ods::testing {

namespace {

namespace fs = std::filesystem;

void check(const ProcessResult& r, const char* step) {
  if (r.exit_code != 0) {
    ADD_FAILURE() << step << " failed (" << r.exit_code << ")\nstdout:\n" << r.output << "\nstderr:\n" << r.errors;
  }
}

std::unique_ptr<DbtProject> build_baseline() {
  auto p = std::make_unique<DbtProject>("shop");
  check(p->generate_data(), "generate_data.py");
  for (int cycle = 0; cycle < 2; ++cycle) {
    check(p->dbt({"source", "freshness"}), "dbt source freshness");
    check(p->dbt({"build"}), "dbt build");
    check(p->ods({"state", "record"}), "ods state record");
  }
  refresh_and_compile(*p);
  return p;
}

// The marker beside a fixture's copy, written last: the copy is whole.
fs::path ready_marker(const fs::path& dir) { return fs::path(dir.string() + ".ready"); }

std::unique_ptr<DbtProject> baseline_of_this_run() {
  const char* fixture = std::getenv("ODS_SHOP_BASELINE");
  if (fixture && *fixture && fs::exists(ready_marker(fixture))) {
    return std::make_unique<DbtProject>(DbtProject::copy_of_directory(fixture));
  }
  return build_baseline();
}

}  // namespace

void refresh_and_compile(const DbtProject& p, const std::vector<std::string>& compile_args) {
  check(p.dbt({"source", "freshness"}), "dbt source freshness");
  std::vector<std::string> args{"compile"};
  args.insert(args.end(), compile_args.begin(), compile_args.end());
  check(p.dbt(args), "dbt compile");
}

const DbtProject& shop_baseline() {
  static std::unique_ptr<DbtProject> baseline = baseline_of_this_run();
  return *baseline;
}

void write_shop_baseline(const fs::path& dir) {
  fs::remove(ready_marker(dir));
  fs::remove_all(dir);
  const int failures_before = ::testing::UnitTest::GetInstance()->failed_test_count();
  std::unique_ptr<DbtProject> built = build_baseline();
  if (::testing::Test::HasFailure() || ::testing::UnitTest::GetInstance()->failed_test_count() != failures_before) {
    return;
  }
  fs::create_directories(dir.parent_path());
  fs::copy(built->dir(), dir, fs::copy_options::recursive);
  std::ofstream(ready_marker(dir)) << "built by the shop_baseline fixture\n";
}

}  // namespace ods::testing
