#include "harness/shop_baseline.h"

#include <gtest/gtest.h>

#include <memory>

namespace ods::testing {

namespace {

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

}  // namespace

void refresh_and_compile(const DbtProject& p, const std::vector<std::string>& compile_args) {
  check(p.dbt({"source", "freshness"}), "dbt source freshness");
  std::vector<std::string> args{"compile"};
  args.insert(args.end(), compile_args.begin(), compile_args.end());
  check(p.dbt(args), "dbt compile");
}

const DbtProject& shop_baseline() {
  static std::unique_ptr<DbtProject> baseline = build_baseline();
  return *baseline;
}

}  // namespace ods::testing
