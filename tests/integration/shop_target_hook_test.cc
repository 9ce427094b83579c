// Issue 27 item 3 on examples/shop (DuckDB): a project-wide post-hook that writes to an audit
// table in the target's schema (`insert into {{ target.schema }}.audit_log ...`, with
// `{{ this }}`), as public projects have. The target's identity is read by the warehouse probe
// and fingerprinted, so without a digest key such nodes are reused when nothing changed; a
// hook that also reads env_var (dim_customers' pre-hook) still builds without a key, and one
// reading another target field (target.threads) keeps building.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "harness/shop_baseline.h"  // DbtProject, ODS_ASSERT_OK

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string decision(const json& plan, const std::string& name) {
  const json& e = entry(plan, name);
  return e.at("action").get<std::string>() + ":" + e.at("reasons").at(0).at("code").get<std::string>();
}

class ShopTargetHook : public ::testing::Test {
 protected:
  void SetUp() override {
    project_.emplace("shop");
    const fs::path config = project_->dir() / "config-home";
    fs::create_directories(config);
    project_->add_env({"XDG_CONFIG_HOME=" + config.string(), "ODS_DIGEST_KEY="});  // no digest key
    project_->replace_in("dbt_project.yml", "models:\n  shop:\n",
                         "on-run-start:\n  - \"create table if not exists {{ target.schema }}.audit_log (model "
                         "varchar, logged_at timestamp)\"\n\nmodels:\n  shop:\n    +post-hook: \"insert into {{ "
                         "target.schema }}.audit_log select '{{ this }}', now()\"\n");
    ODS_ASSERT_OK(project_->generate_data());
  }

  json run(int expected_code = 0) const {
    ProcessResult r = project_->ods({"state", "run", "--format", "json", "--profiles-dir", project_->dir().string()});
    EXPECT_EQ(r.exit_code, expected_code) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
    json doc = json::parse(r.output, nullptr, false);
    return doc.is_discarded() || !doc.contains("plan") ? json{{"plan", {{"entries", json::array()}}}} : doc;
  }

  long long audit_rows() const {
    const std::string script =
        "import duckdb,sys\ncon=duckdb.connect(sys.argv[1], read_only=True)\n"
        "print(con.execute('select count(*) from main.audit_log').fetchone()[0])\n";
    ProcessResult r = run_process({(project_->venv() / "python").string(), "-c", script, project_->duckdb_file()},
                                  project_->dir(), project_->env());
    EXPECT_EQ(r.exit_code, 0) << r.errors;
    return r.exit_code == 0 ? std::stoll(r.output) : -1;
  }

  std::optional<DbtProject> project_;
};

TEST_F(ShopTargetHook, NodesWhoseHooksReadOnlyTheTargetsIdentityAreReusedWithoutAKey) {
  const json first = run();
  EXPECT_EQ(decision(first.at("plan"), "stg_orders"), "build:never_built");
  EXPECT_GE(audit_rows(), 6) << "the post-hook ran for each model built";
  const long long settled = audit_rows();

  const json second = run();
  const json& plan = second.at("plan");
  for (const char* name : {"stg_orders", "stg_customers", "stg_payments", "fct_orders", "orders_daily"}) {
    EXPECT_EQ(decision(plan, name), "reuse:unchanged") << entry(plan, name).dump(2);
  }
  // dim_customers' own pre-hook reads env_var: without a key it builds, as before, saying how
  // to enable the digest; its target.schema post-hook is not what keeps it building.
  const json& dim = entry(plan, "dim_customers");
  EXPECT_EQ(decision(plan, "dim_customers"), "build:reads_run_context") << dim.dump(2);
  EXPECT_NE(dim.dump().find("pre-hook 1 reads env_var"), std::string::npos) << dim.dump(2);
  EXPECT_EQ(dim.dump().find("post-hook"), std::string::npos) << dim.dump(2);
  EXPECT_EQ(audit_rows(), settled + 1) << "only dim_customers' build logged";

  // A hook reading another target field keeps today's rule.
  project_->replace_in("models/staging/stg_orders.sql", "select",
                       "{{ config(post_hook=\"select {{ target.threads }} as t\") }}\nselect");
  const json third = run();
  EXPECT_EQ(decision(third.at("plan"), "stg_orders"), "build:fingerprint_changed");
  const json fourth = run();
  const json& threads = entry(fourth.at("plan"), "stg_orders");
  EXPECT_EQ(decision(fourth.at("plan"), "stg_orders"), "build:reads_run_context") << threads.dump(2);
  EXPECT_NE(threads.dump().find("target.threads is not fingerprinted"), std::string::npos) << threads.dump(2);
}

}  // namespace
}  // namespace ods::testing
