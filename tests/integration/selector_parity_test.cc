// Every dbt selector works in ODS as in dbt (issue 39): on a built and recorded copy of
// examples/shop (DuckDB, real dbt), for dbt's selector shapes — graph operators (+a, a+, N+a,
// @a), intersections, unions, --exclude, a --selector from selectors.yml, resource_type:, tag:,
// path:, package:, config.materialized:, source: — the nodes `ods state plan` and
// `ods state run --dry-run` plan are the nodes `dbt ls` prints for the same flags, run by this
// test on the same project (restricted to the nodes ODS plans at all: no ephemeral model, test or
// source). The methods ODS answers itself (state:, result:, source_status:) are refused before
// any dbt call: no target/ is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using Flags = std::vector<std::string>;
using Ids = std::set<std::string>;

const char kSelectors[] = R"(selectors:
  - name: marts_but_daily
    description: "the marts without orders_daily, by a union and an exclude"
    definition:
      union:
        - method: path
          value: models/marts
        - method: resource_type
          value: seed
        - exclude:
            - method: fqn
              value: orders_daily
  - name: upstream_of_facts
    definition:
      method: fqn
      value: fct_orders
      parents: true
  - name: staged_tables
    definition:
      intersection:
        - tag: staging_layer
        - method: selector
          value: upstream_of_facts
  - name: changed
    definition:
      method: state
      value: modified
)";

// dbt ls for each flag set in one Python process (dbt's own runner): the unique ids it prints.
std::vector<Ids> dbt_ls(const DbtProject& p, const std::vector<Flags>& shapes) {
  const std::string script = R"(import json, sys
from dbt.cli.main import dbtRunner
d, shapes = sys.argv[1], json.loads(sys.argv[2])
runner, out = dbtRunner(), []
for flags in shapes:
    r = runner.invoke(["ls", "--quiet", "--no-write-json", "--output", "json", "--output-keys", "unique_id",
                       "--project-dir", d, "--profiles-dir", d] + flags)
    if not r.success:
        sys.exit("dbt ls failed for %s: %s" % (flags, r.exception))
    out.append([json.loads(line)["unique_id"] for line in r.result])
print(json.dumps(out))
)";
  ProcessResult r =
      run_process({(p.venv() / "python").string(), "-c", script, p.dir().string(), nlohmann::json(shapes).dump()},
                  p.dir(), {"DBT_SEND_ANONYMOUS_USAGE_STATS=false", "DO_NOT_TRACK=1"});
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  std::vector<Ids> out;
  std::string last = r.output;  // the script's document is its last line (dbt prints the ids before it)
  while (!last.empty() && last.back() == '\n') last.pop_back();
  const auto doc = nlohmann::json::parse(last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1),
                                         nullptr, false);
  EXPECT_TRUE(doc.is_array()) << r.output;
  if (!doc.is_array()) return out;
  for (const auto& ids : doc) out.push_back(ids.get<Ids>());
  return out;
}

Ids planned_ids(const nlohmann::json& plan) {
  Ids ids;
  for (const auto& e : plan.at("entries")) ids.insert(e.at("id").get<std::string>());
  return ids;
}

std::string shown(const Flags& flags) {
  std::string s;
  for (const auto& f : flags) s += (s.empty() ? "" : " ") + f;
  return s;
}

class SelectorParity : public ::testing::Test {
 protected:
  void SetUp() override {
    project_.emplace(DbtProject::copy_of(shop_baseline()));
    project_->replace_in("dbt_project.yml", "    staging:\n      +materialized: view",
                         "    staging:\n      +materialized: view\n      +tags: [\"staging_layer\"]");
    project_->replace_in("dbt_project.yml", "    marts:\n      +materialized: table",
                         "    marts:\n      +materialized: table\n      +tags: [\"mart\"]");
    project_->write("selectors.yml", kSelectors);
    refresh_and_compile(*project_);
  }

  // `ods state plan` (or `run --dry-run`) with `flags`: the ids of the nodes it plans.
  Ids ods_selects(const std::string& command, const Flags& flags) {
    Flags args{"state", command, "--format", "json", "--profiles-dir", project_->dir().string()};
    if (command == "run") args.push_back("--dry-run");
    args.insert(args.end(), flags.begin(), flags.end());
    ProcessResult r = project_->ods(args);
    EXPECT_EQ(r.exit_code, 0) << command << " " << shown(flags) << "\n" << r.output << r.errors;
    const auto doc = nlohmann::json::parse(r.output, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      ADD_FAILURE() << r.output << r.errors;
      return {};
    }
    return planned_ids(command == "run" ? doc.at("plan") : doc);
  }

  std::optional<DbtProject> project_;
};

TEST_F(SelectorParity, OdsPlansTheNodesDbtLsSelects) {
  const std::vector<Flags> shapes{
      {"--select", "+fct_orders"},
      {"--select", "stg_orders+"},
      {"--select", "1+fct_orders"},
      {"--select", "stg_customers+1"},
      {"--select", "@stg_customers"},
      {"--select", "tag:mart,config.materialized:table"},
      {"--select", "stg_orders stg_customers+"},
      {"--select", "path:models/marts", "--exclude", "fct_orders+"},
      {"--selector", "marts_but_daily"},
      {"--selector", "staged_tables"},
      {"--select", "resource_type:seed resource_type:snapshot"},
      {"--select", "tag:staging_layer"},
      {"--select", "path:models/staging/stg_orders.sql"},
      {"--select", "package:shop", "--exclude", "tag:mart"},
      {"--select", "config.materialized:view"},
      {"--select", "source:raw.orders+"},
      {"--exclude", "resource_type:model"},
  };
  const Ids all = ods_selects("plan", {});
  ASSERT_EQ(all.size(), 9u);
  const std::vector<Ids> listed = dbt_ls(*project_, shapes);
  ASSERT_EQ(listed.size(), shapes.size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    Ids expected;
    std::ranges::set_intersection(listed[i], all, std::inserter(expected, expected.begin()));
    EXPECT_FALSE(expected.empty()) << shown(shapes[i]) << ": a shape that selects nothing proves nothing";
    EXPECT_EQ(ods_selects("plan", shapes[i]), expected) << "ods state plan " << shown(shapes[i]);
  }
  // The same resolution in a run (its dbt ls on the parse the run holds).
  for (std::size_t i : {5u, 7u, 9u}) {
    Ids expected;
    std::ranges::set_intersection(listed[i], all, std::inserter(expected, expected.begin()));
    EXPECT_EQ(ods_selects("run", shapes[i]), expected) << "ods state run --dry-run " << shown(shapes[i]);
  }
}

TEST_F(SelectorParity, MethodsOdsAnswersItselfAreRefusedBeforeAnyDbtCall) {
  fs::remove_all(project_->dir() / "target");
  const std::vector<std::pair<Flags, std::string>> refused{
      {{"state", "run", "--select", "state:modified+"}, "selector 'state:modified+' is not for ODS: ODS decides"},
      {{"state", "run", "--dry-run", "--exclude", "result:error"}, "run_results.json"},
      {{"state", "test", "--select", "tag:mart,source_status:fresher+"}, "`dbt source freshness` runs"},
      {{"state", "plan", "--selector", "changed"}, "--selector changed (selectors.yml): selector 'state:modified'"},
  };
  for (const auto& [args, says] : refused) {
    Flags with = args;
    with.insert(with.end(), {"--profiles-dir", project_->dir().string()});
    ProcessResult r = project_->ods(with);
    EXPECT_EQ(r.exit_code, 2) << shown(args) << "\n" << r.output << r.errors;
    EXPECT_NE(r.errors.find(says), std::string::npos) << shown(args) << "\n" << r.errors;
    EXPECT_FALSE(fs::exists(project_->dir() / "target")) << shown(args) << ": dbt ran before the refusal";
  }
}

}  // namespace
}  // namespace ods::testing
