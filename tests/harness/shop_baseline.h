#pragma once
// A built and recorded copy of examples/shop, made once per ctest run (the shop_baseline fixture,
// tests/harness/shop_baseline_fixture_test.cc) or, outside ctest, once per test binary, and
// copied per test. Steps: generate data; `dbt source freshness`; `dbt build`; `ods state record`;
// the same again (an incremental model's compiled SQL differs on its first build, so the second
// cycle is its steady state); then `dbt source freshness` + `dbt compile`, so a plan sees fresh
// evidence and compiled code.
#include <filesystem>

#include "harness/dbt_project.h"

namespace ods::testing {

// The shared baseline: a copy of the fixture's when $ODS_SHOP_BASELINE names one that is ready
// (ctest sets it for the suites that require the fixture), else built on first use. Fails the
// calling test when a step fails.
const DbtProject& shop_baseline();

// The fixture's side: builds the baseline and leaves a copy of it at `dir` (replacing what was
// there), marked ready only when every step passed. Fails the calling test otherwise.
void write_shop_baseline(const std::filesystem::path& dir);

// Fresh evidence then compiled code (freshness rewrites manifest.json without compiled code).
void refresh_and_compile(const DbtProject& p, const std::vector<std::string>& compile_args = {});

// Asserts a process succeeded, printing its output otherwise.
#define ODS_ASSERT_OK(result)                                                             \
  do {                                                                                    \
    const auto& r_ = (result);                                                            \
    ASSERT_EQ(r_.exit_code, 0) << "stdout:\n" << r_.output << "\nstderr:\n" << r_.errors; \
  } while (0)

}  // namespace ods::testing
