// A change run of `ods state run` writes no target/manifest.json (issue 41 item 2): in the ods
// dbt driver the compile of the changed nodes writes no manifest and the driver hands over the
// nodes it compiled (target/ods-parse/compiled_nodes.json, read beside the parse's manifest); the
// build writes run_results.json only. With real dbt and DuckDB on copies of examples/shop: the
// run plans, builds and records exactly what a run with --write-manifest (dbt writing the
// manifest, and ODS reading the compile's, as before) does on an identical copy; it leaves no
// target/manifest.json; the run after it stands on its parse and reuses what it built; with
// --write-manifest the manifest is written by the build whose run_results.json is beside it; the
// commands that read the project after a run (`ods state plan`, `ods state record`) read the
// manifest the run read, with the nodes its build compiled, and say what they say after a run
// that wrote the manifest.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct RunOutput {
  int code = -1;
  json doc;
  std::string errors;
};

// node name -> "<action>:<first reason code> <fingerprint>" of a plan's entries.
std::map<std::string, std::string> plan_decisions(const json& plan) {
  std::map<std::string, std::string> out;
  for (const auto& e : plan.at("entries")) {
    std::string fingerprint;
    for (const auto& ev : e.at("evidence"))
      if (ev.value("kind", "") == "fingerprint") fingerprint = ev.value("value", "");
    out[e.at("name").get<std::string>()] = decision(e) + " " + fingerprint;
  }
  return out;
}

// The same of a run's JSON document.
std::map<std::string, std::string> decisions(const json& doc) { return plan_decisions(doc.at("plan")); }

std::string invocation_of(const fs::path& artifact) {
  const json doc = json::parse(read_text_file(artifact), nullptr, false);
  if (doc.is_discarded() || !doc.contains("metadata")) return "unreadable " + artifact.string();
  return doc.at("metadata").value("invocation_id", "none");
}

class ManifestHandover : public ::testing::Test {
 protected:
  void SetUp() override {
    // The baseline is recorded by `ods state record`; one run records the compile keys, the
    // next is the steady state every change run starts from.
    project_.emplace(DbtProject::copy_of(shop_baseline()));
    for (int i = 0; i < 2; ++i) {
      const RunOutput r = run(*project_, {"--write-manifest"});
      ASSERT_EQ(r.code, 0) << r.errors;
    }
  }

  static RunOutput run(const DbtProject& p, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", p.dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = p.ods(args);
    RunOutput out{r.exit_code, json::parse(r.output, nullptr, false), r.errors};
    if (out.doc.is_discarded()) out.doc = json::object();
    return out;
  }

  static fs::path manifest(const DbtProject& p) { return p.dir() / "target" / "manifest.json"; }

  // The change both copies get: a real edit of a staging model (its readers build too).
  static void edit(const DbtProject& p) {
    p.replace_in("models/staging/stg_orders.sql", "lower(status)", "lower(trim(status))");
  }

  std::optional<DbtProject> project_;
};

TEST_F(ManifestHandover, ChangeRunWritesNoManifestAndPlansAsTheManifestRunDoes) {
  DbtProject with_manifest = DbtProject::copy_of(*project_);
  edit(*project_);
  edit(with_manifest);

  // Before: dbt writes the manifest, ODS reads the compile's.
  const RunOutput before = run(with_manifest, {"--write-manifest"});
  ASSERT_EQ(before.code, 0) << before.errors;

  // After: no manifest written, none left behind (the earlier runs' are removed first).
  fs::remove(manifest(*project_));
  fs::remove(project_->dir() / "target" / "semantic_manifest.json");
  const RunOutput after = run(*project_);
  ASSERT_EQ(after.code, 0) << after.errors;
  EXPECT_FALSE(fs::exists(manifest(*project_))) << "a change run wrote target/manifest.json";
  EXPECT_FALSE(fs::exists(project_->dir() / "target" / "semantic_manifest.json"));
  EXPECT_TRUE(fs::exists(project_->dir() / "target" / "ods-parse" / "compiled_nodes.json"))
      << "the compiled nodes came from the driver";

  EXPECT_EQ(decisions(after.doc), decisions(before.doc)) << "the same plan, node by node, with the same fingerprints";
  EXPECT_EQ(after.doc.at("run").at("counts"), before.doc.at("run").at("counts"));
  EXPECT_EQ(decision(entry(after.doc.at("plan"), "stg_orders")), "build:fingerprint_changed");
  EXPECT_GT(after.doc.at("run").at("counts").value("built", 0), 1) << after.doc.at("plan").dump(2);
  EXPECT_GT(after.doc.at("run").at("counts").value("reused", 0), 0) << after.doc.at("plan").dump(2);
  // The build's run_results.json is there, recorded by this run.
  EXPECT_EQ(invocation_of(project_->dir() / "target" / "run_results.json"),
            after.doc.at("run").value("run_id", "none"));

  // The next run stands on that run's parse and plans as the manifest copy's next run does.
  const RunOutput next = run(*project_);
  ASSERT_EQ(next.code, 0) << next.errors;
  // (dbt's partial parse found nothing changed, or the parse's fast path started no dbt to parse)
  EXPECT_TRUE(next.errors.find("its manifest stands, none written") != std::string::npos ||
              next.errors.find("the kept parse stands, dbt not started") != std::string::npos)
      << next.errors;
  EXPECT_FALSE(fs::exists(manifest(*project_)));
  const RunOutput next_with_manifest = run(with_manifest, {"--write-manifest"});
  ASSERT_EQ(next_with_manifest.code, 0) << next_with_manifest.errors;
  EXPECT_EQ(decisions(next.doc), decisions(next_with_manifest.doc));
  for (const auto& e : next.doc.at("plan").at("entries")) {
    if (e.at("name") == "stg_orders" || e.at("name") == "fct_orders") {
      EXPECT_TRUE(decision(e).starts_with("reuse:")) << "what the change run built is reused: " << e.dump(2);
    }
  }
}

TEST_F(ManifestHandover, WriteManifestLetsTheBuildWriteIt) {
  edit(*project_);
  fs::remove(manifest(*project_));
  const RunOutput r = run(*project_, {"--write-manifest"});
  ASSERT_EQ(r.code, 0) << r.errors;
  ASSERT_TRUE(fs::exists(manifest(*project_))) << "--write-manifest: dbt writes target/manifest.json";
  EXPECT_EQ(invocation_of(manifest(*project_)), invocation_of(project_->dir() / "target" / "run_results.json"))
      << "the manifest is the build's, as dbt build writes it";
}

// The ChildSecrets scenario (tests/postgres_state): a change run that wrote no manifest, then
// `ods state plan`, which failed "target/manifest.json: not found" when it read target/ alone.
TEST_F(ManifestHandover, PlanAndRecordAfterARunReadTheManifestItRead) {
  DbtProject with_manifest = DbtProject::copy_of(*project_);
  edit(*project_);
  edit(with_manifest);
  const RunOutput before = run(with_manifest, {"--write-manifest"});
  ASSERT_EQ(before.code, 0) << before.errors;
  fs::remove(manifest(*project_));
  const RunOutput after = run(*project_);
  ASSERT_EQ(after.code, 0) << after.errors;
  ASSERT_FALSE(fs::exists(manifest(*project_)));

  const auto plan_of = [](const DbtProject& p) {
    ProcessResult r = p.ods({"state", "plan", "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << "ods state plan\nstdout:\n" << r.output << "\nstderr:\n" << r.errors;
    const json doc = json::parse(r.output, nullptr, false);
    return doc.is_discarded() || !doc.contains("entries") ? std::map<std::string, std::string>{} : plan_decisions(doc);
  };
  const auto expected = plan_of(with_manifest);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(plan_of(*project_), expected) << "the plan the manifest's build leaves, node by node";

  // ods state record reads the run's run_results.json with the build's invocation: already recorded.
  const ProcessResult recorded = project_->ods({"state", "record"});
  const ProcessResult recorded_with = with_manifest.ods({"state", "record"});
  EXPECT_EQ(recorded.exit_code, recorded_with.exit_code);
  EXPECT_NE(recorded.errors.find("is already recorded"), std::string::npos) << recorded.errors << recorded.output;
  EXPECT_NE(recorded_with.errors.find("is already recorded"), std::string::npos) << recorded_with.errors;

  // A dry run between (its parse stands, it builds nothing) leaves it so.
  const RunOutput dry = run(*project_, {"--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.errors;
  EXPECT_EQ(plan_of(*project_), expected);

  // A later dbt command's target/manifest.json takes over: a parse, whose nodes carry no compiled code.
  ASSERT_EQ(project_->dbt({"parse"}).exit_code, 0);
  ASSERT_TRUE(fs::exists(manifest(*project_)));
  ProcessResult parsed = project_->ods({"state", "plan"});
  EXPECT_EQ(parsed.exit_code, 0) << parsed.errors;
  EXPECT_NE(parsed.output.find("have no compiled code in target/manifest.json"), std::string::npos) << parsed.output;
}

}  // namespace
}  // namespace ods::testing
