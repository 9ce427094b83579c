// `ods state run` stands on an earlier parse's manifest when dbt's partial parsing found nothing
// changed (cli/src/shared/parse_reuse.h, docs/compile-key.md "Parsing"), with real dbt and
// DuckDB on a small project: a seed, two models, a model whose config reads an env var at parse
// time. The second run writes no manifest; a model edit, a changed env var, a tampered or
// missing copy, a deleted partial-parse state each make the next run parse and write again, and
// every run's plan is the one a full compile gives. Without the driver, or with dbt's
// partial-parse state read from another file, it parses and writes as before.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/dbt_project.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kProject = R"(name: parses
version: "1.0.0"
config-version: 2
profile: parses
model-paths: ["models"]
seed-paths: ["seeds"]
flags:
  send_anonymous_usage_stats: false
)";

constexpr const char* kProfiles = R"(parses:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: parses.duckdb
      threads: 2
)";

// What `ods state run` prints when it stood on the earlier parse.
constexpr const char* kStood = "its manifest stands, none written";

struct RunOutput {
  int code = -1;
  json doc;
  std::string errors;
  bool stood() const { return errors.find(kStood) != std::string::npos; }
};

// node name -> its fingerprint in an `ods state run --format json` document.
std::map<std::string, std::string> fingerprints(const json& doc) {
  std::map<std::string, std::string> out;
  if (!doc.contains("plan")) return out;
  for (const auto& e : doc.at("plan").at("entries"))
    for (const auto& ev : e.at("evidence"))
      if (ev.value("kind", "") == "fingerprint") out[e.at("name").get<std::string>()] = ev.value("value", "");
  return out;
}

class ParseReuse : public ::testing::Test {
 protected:
  void SetUp() override {
    project_.emplace(DbtProject::empty("parses"));
    project_->use_duckdb_file("parses.duckdb");
    // dbt's own partial parsing decides here: the parse's fast path, which would start no dbt
    // when nothing changed, has its own tests (parse_fast_path_test.cc, cli's parse_reuse_test.cc).
    project_->add_env({"ODS_PARSE_FAST_PATH=off"});
    for (const char* dir : {"seeds", "models"}) fs::create_directories(project_->dir() / dir);
    project_->write("dbt_project.yml", kProject);
    project_->write("profiles.yml", kProfiles);
    project_->write("seeds/raw_items.csv", "id,price\n1,10\n2,20\n");
    project_->write("models/stg_items.sql", "select id, price from {{ ref('raw_items') }}\n");
    project_->write("models/priced.sql", "select id, price * 2 as doubled from {{ ref('stg_items') }}\n");
    project_->write(
        "models/tagged.sql",
        "{{ config(meta={'tag': env_var('PARSE_TAG', 'none')}) }}\nselect id from {{ ref('stg_items') }}\n");
  }

  RunOutput run(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", project_->dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = project_->ods(args);
    RunOutput out{r.exit_code, json::parse(r.output, nullptr, false), r.errors};
    if (out.doc.is_discarded()) out.doc = json::object();
    return out;
  }

  // The plan of a dry run that compiles the whole project: the fingerprints every run must give.
  std::map<std::string, std::string> full_compile_fingerprints() const {
    RunOutput full = run({"--dry-run", "--compile", "all"});
    EXPECT_EQ(full.code, 0) << full.errors;
    return fingerprints(full.doc);
  }

  fs::path copy() const { return project_->dir() / "target" / "ods-parse" / "manifest.json"; }
  fs::path digest() const { return project_->dir() / "target" / "ods-parse" / "partial_parse.msgpack.sha256"; }

  // The meta tag of `tagged` in the parse's copy of the manifest.
  std::string copied_tag() const {
    json manifest = json::parse(read_text_file(copy()), nullptr, false);
    if (manifest.is_discarded()) return "unreadable";
    return manifest.at("nodes").at("model.parses.tagged").at("config").at("meta").value("tag", "absent");
  }

  std::optional<DbtProject> project_;
};

TEST_F(ParseReuse, NothingChangedStandsOnTheLastParseAndEveryChangeParsesAgain) {
  const RunOutput first = run();
  ASSERT_EQ(first.code, 0) << first.errors;
  EXPECT_FALSE(first.stood()) << first.errors;
  ASSERT_TRUE(fs::exists(copy())) << "the parse's manifest is written beside dbt's artifacts";
  ASSERT_TRUE(fs::exists(digest()));
  EXPECT_EQ(copied_tag(), "none");

  // Nothing changed: the same manifest stands, not written again, and every node is reused.
  const auto written_at = fs::last_write_time(copy());
  const RunOutput second = run();
  ASSERT_EQ(second.code, 0) << second.errors;
  EXPECT_TRUE(second.stood()) << second.errors;
  EXPECT_EQ(fs::last_write_time(copy()), written_at) << "a parse that changed nothing wrote the manifest";
  EXPECT_EQ(second.doc.at("run").at("counts").at("built"), 0) << second.doc.at("plan").dump(2);
  EXPECT_EQ(fingerprints(second.doc), full_compile_fingerprints());

  // A model edited: dbt parses it, the manifest is written again and the model is built.
  project_->write("models/priced.sql", "select id, price * 3 as tripled from {{ ref('stg_items') }}\n");
  const auto edited_plan = full_compile_fingerprints();
  const RunOutput edited = run();
  ASSERT_EQ(edited.code, 0) << edited.errors;
  EXPECT_FALSE(edited.stood()) << edited.errors;
  EXPECT_EQ(decision(entry(edited.doc.at("plan"), "priced")), "build:fingerprint_changed");
  EXPECT_EQ(decision(entry(edited.doc.at("plan"), "stg_items")), "reuse:unchanged");
  EXPECT_EQ(fingerprints(edited.doc), edited_plan);
  const RunOutput after_edit = run();
  EXPECT_TRUE(after_edit.stood()) << after_edit.errors;
  EXPECT_EQ(after_edit.doc.at("run").at("counts").at("built"), 0) << after_edit.doc.at("plan").dump(2);

  // An env var the parse read changed: dbt's partial parsing sees it, so does the manifest.
  project_->add_env({"PARSE_TAG=blue"});
  const RunOutput env_changed = run();
  ASSERT_EQ(env_changed.code, 0) << env_changed.errors;
  EXPECT_FALSE(env_changed.stood()) << env_changed.errors;
  EXPECT_EQ(copied_tag(), "blue");
  EXPECT_EQ(fingerprints(env_changed.doc), full_compile_fingerprints());
  EXPECT_TRUE(run().stood());

  // The recorded digest is not the state's (tampered, or left by another copy): written again.
  project_->write("target/ods-parse/partial_parse.msgpack.sha256", std::string(64, '0') + "\n");
  const RunOutput tampered = run();
  ASSERT_EQ(tampered.code, 0) << tampered.errors;
  EXPECT_FALSE(tampered.stood()) << tampered.errors;
  EXPECT_EQ(tampered.doc.at("run").at("counts").at("built"), 0) << tampered.doc.at("plan").dump(2);
  EXPECT_TRUE(run().stood());

  // The copy gone (its digest left): written again.
  fs::remove(copy());
  const RunOutput no_copy = run();
  ASSERT_EQ(no_copy.code, 0) << no_copy.errors;
  EXPECT_FALSE(no_copy.stood()) << no_copy.errors;
  EXPECT_TRUE(fs::exists(copy()));

  // dbt's partial-parse state gone: dbt parses from scratch, a new state, written again.
  fs::remove(project_->dir() / "target" / "partial_parse.msgpack");
  const RunOutput no_state = run();
  ASSERT_EQ(no_state.code, 0) << no_state.errors;
  EXPECT_FALSE(no_state.stood()) << no_state.errors;
  EXPECT_EQ(no_state.doc.at("run").at("counts").at("built"), 0) << no_state.doc.at("plan").dump(2);
  EXPECT_TRUE(run().stood());
}

TEST_F(ParseReuse, WithoutTheDriverOrWithAnotherPartialParseFileEveryRunParsesAndWrites) {
  project_->add_env({"ODS_DBT_DRIVER=off"});
  ASSERT_EQ(run().code, 0);
  const RunOutput no_driver = run();
  ASSERT_EQ(no_driver.code, 0) << no_driver.errors;
  EXPECT_FALSE(no_driver.stood()) << no_driver.errors;
  EXPECT_FALSE(fs::exists(copy())) << "a dbt process per command writes its own manifest";
  EXPECT_EQ(no_driver.doc.at("run").at("counts").at("built"), 0) << no_driver.doc.at("plan").dump(2);

  // dbt reads its partial-parse state from another file (which must exist): what is on disk in
  // target/ proves nothing.
  const fs::path state_file = project_->dir() / "elsewhere.msgpack";
  fs::copy_file(project_->dir() / "target" / "partial_parse.msgpack", state_file);
  project_->add_env({"ODS_DBT_DRIVER=on", "DBT_PARTIAL_PARSE_FILE_PATH=" + state_file.string()});
  ASSERT_EQ(run().code, 0);
  const RunOutput elsewhere = run();
  ASSERT_EQ(elsewhere.code, 0) << elsewhere.errors;
  EXPECT_FALSE(elsewhere.stood()) << elsewhere.errors;
  EXPECT_TRUE(fs::exists(copy()));
  EXPECT_EQ(elsewhere.doc.at("run").at("counts").at("built"), 0) << elsewhere.doc.at("plan").dump(2);
}

}  // namespace
}  // namespace ods::testing
