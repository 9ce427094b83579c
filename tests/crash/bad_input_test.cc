// The bad-input corpus: every command and flag with malformed values, each artifact truncated
// at sixteen points and with fields of the wrong type, state databases with damaged pages.
// Each input gets an exit code from the documented set (1 refused or failed, 2 usage; never a
// crash), a message saying what and where, and changes nothing: the state database's bytes
// are the same before and after. Each suite prints how many inputs it tried.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>

#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(const fs::path& file) { return fs::exists(file) ? read_text_file(file) : "(absent)"; }

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override { project_.emplace(DbtProject::copy_of(shop_baseline())); }
  fs::path state_db() const { return project_->dir() / ".ods" / "state.db"; }

  // Runs ods with `args`; checks the exit code is `want_exit`, stderr holds `says`, and the
  // state database (and its WAL) is byte for byte as before. `what` names the input.
  void expect_refused(const std::string& what, const std::vector<std::string>& args, int want_exit,
                      const std::string& says) {
    const std::string before = bytes_of(state_db());
    const std::string wal_before = bytes_of(state_db().string() + "-wal");
    ProcessResult r = project_->ods(args);
    ++tried_;
    EXPECT_EQ(r.exit_code, want_exit) << what << "\nstdout:\n" << r.output << "\nstderr:\n" << r.errors;
    EXPECT_NE(r.errors.find(says), std::string::npos) << what << ": stderr does not say '" << says << "':\n"
                                                      << r.errors;
    EXPECT_TRUE(r.errors.starts_with("ods")) << what << ": " << r.errors;
    EXPECT_TRUE(bytes_of(state_db()) == before) << what << ": the state database changed";
    EXPECT_TRUE(bytes_of(state_db().string() + "-wal") == wal_before) << what << ": the state's WAL changed";
  }

  std::optional<DbtProject> project_;
  int tried_ = 0;
};

struct CliCase {
  std::vector<std::string> args;
  int exit_code;
  std::string says;
};

TEST_F(BadInput, EveryCommandAndFlagWithMalformedValues) {
  const std::string dir = project_->dir().string();
  const std::vector<CliCase> cases{
      {{"frobnicate"}, 2, "unknown command 'frobnicate'"},
      {{"state", "frobnicate"}, 2, "unknown command 'state frobnicate'"},
      {{"state", "plan", "--bogus"}, 2, "unknown option '--bogus'"},
      {{"state", "plan", "--format="}, 2, "--format"},
      {{"state", "plan", "--format", "xml"}, 2, "--format must be text, json or markdown, not 'xml'"},
      {{"state", "plan", "--select", ""}, 2, "--select needs a non-empty value"},
      {{"state", "plan", "--select", "state:modified+"}, 2, "selector 'state:modified+' is not for ODS"},
      {{"state", "plan", "--select", "+++"}, 2, "criterion '+++' does not match any enabled nodes"},
      {{"state", "plan", "--select", "no_such_node"}, 2, "--select 'no_such_node' selects nothing"},
      {{"state", "plan", "--selector", "nosuch"}, 2, "Could not find selector named nosuch"},
      {{"state", "plan", "--target", ""}, 2, "--target needs a non-empty value"},
      {{"state", "plan", "--target-path", "/no/such/dir"}, 1, "/no/such/dir/manifest.json: not found"},
      {{"state", "plan", "--state", "ftp://x"}, 1, "Unknown state store URL scheme 'ftp'"},
      {{"state", "plan", "--state", "sqlite:"}, 1, "names no database file"},
      {{"state", "plan", "--summary", "/no/such/dir/s.md"}, 2, "/no/such/dir"},
      {{"state", "plan", "--json-file", "/no/such/dir/p.json"}, 2, "/no/such/dir"},
      {{"state", "run", "--dry-run=yes"}, 2, "--dry-run takes no value"},
      {{"state", "run", "--exclude", "result:error"}, 2, "--exclude: selector 'result:error' is not for ODS"},
      {{"state", "run", "--dbt", "/no/such/dbt"}, 1, "/no/such/dbt"},
      {{"state", "test", "--select", "tag:x,source_status:fresher+"}, 2, "'source_status:fresher+' is not for ODS"},
      {{"state", "record", "--target-path", "/no/such/dir"}, 1, "/no/such/dir"},
      {{"state", "explain"}, 2, "usage: ods state explain NODE"},
      {{"state", "explain", "a", "b"}, 2, "usage: ods state explain NODE"},
      {{"state", "explain", "no_such_node"}, 1, "no node named 'no_such_node'"},
      {{"state", "history", "--limit", "abc"}, 2, "--limit must be a number, not 'abc'"},
      {{"state", "history", "--limit", "-1"}, 2, "--limit must be a number, not '-1'"},
      {{"state", "history", "--limit", "12abc"}, 2, "--limit must be a number, not '12abc'"},
      {{"state", "history", "--limit", "99999999999999999999999"}, 2, "--limit must be a number"},
      {{"state", "reset"}, 2, "--yes"},
      {{"state", "reset", "--yes=no"}, 2, "--yes takes no value"},
      {{"state", "backup"}, 2, "usage: ods state backup FILE"},
      {{"state", "copy"}, 2, "usage: ods state copy"},
      {{"state", "copy", "--to", "bogus:x"}, 1, "Unknown state store URL scheme 'bogus'"},
      {{"state", "copy", "--to", "memory:", "--scope", "noslash"}, 2, "--scope must be PROJECT/TARGET"},
      {{"state", "copy", "--to", "memory:", "--scope", "shop/"}, 2, "--scope must be PROJECT/TARGET"},
      {{"state", "copy", "--to", "memory:", "--scope", "a/b", "--all"}, 2, "give --scope or --all, not both"},
      {{"pod"}, 2, "--callback (or $ODS_CALLBACK_URL) is required"},
      {{"pod", "--callback", "http://127.0.0.1:9/", "--run", "noslash", "--token-file", dir + "/dbt_project.yml"},
       2,
       "--run (or $ODS_RUN) must be NAMESPACE/NAME, not 'noslash'"},
      {{"pod", "--callback", "http://127.0.0.1:9/", "--run", "a/b", "--token-file", "/no/such/token"},
       2,
       "/no/such/token"},
      {{"pod", "--callback", "http://127.0.0.1:9/", "--run", "a/b", "--token-file", dir + "/dbt_project.yml",
        "--retry-for", "-5"},
       2,
       "--retry-for must be a number of seconds, not '-5'"},
  };
  for (const auto& c : cases) {
    std::string what = "ods";
    for (const auto& a : c.args) what += " '" + a + "'";
    expect_refused(what, c.args, c.exit_code, c.says);
  }
  for (const std::string bad : {"0", "17", "3x", "-1", " 2"}) {  // how many probe calls at once
    project_->add_env({"ODS_PROBE_PARTS=" + bad});               // the last entry of a name wins
    for (const char* command : {"run", "test"})
      expect_refused("ODS_PROBE_PARTS='" + bad + "' ods state " + command, {"state", command}, 2,
                     "ODS_PROBE_PARTS is '" + bad + "'");
  }
  project_->add_env({"ODS_PROBE_PARTS=1"});
  for (const std::string bad :
       {"10MB", "-1", "1e9", " 5", "Unlimited"}) {  // the largest source scanned (docs/warehouses.md)
    project_->add_env({"ODS_CONTENT_MAX_BYTES=" + bad});
    expect_refused("ODS_CONTENT_MAX_BYTES='" + bad + "' ods state run", {"state", "run"}, 2,
                   "ODS_CONTENT_MAX_BYTES is '" + bad + "'");
  }
  project_->add_env({"ODS_CONTENT_MAX_BYTES=1000"});
  for (const std::string bad : {"hash_agg(*); drop table t", "hash_agg(*) -- x", "/* x */ hash_agg(*)", "   "}) {
    project_->add_env({"ODS_SNOWFLAKE_CONTENT_HASH=" + bad});
    expect_refused("ODS_SNOWFLAKE_CONTENT_HASH='" + bad + "' ods state run", {"state", "run"}, 2,
                   "ODS_SNOWFLAKE_CONTENT_HASH is '" + bad + "'");
  }
  project_->add_env({"ODS_SNOWFLAKE_CONTENT_HASH="});
  for (const std::string bad : {"false", "OFF", "0", "exists"}) {  // on or off (docs/cli.md)
    project_->add_env({"ODS_RELATION_IDENTITY=" + bad});
    expect_refused("ODS_RELATION_IDENTITY='" + bad + "' ods state run", {"state", "run"}, 2,
                   "ODS_RELATION_IDENTITY is '" + bad + "'");
  }
  std::cout << "bad-input corpus: " << tried_ << " malformed command lines tried" << std::endl;
}

// `text` cut at sixteen points spread over it (never empty, never whole).
std::vector<std::string> truncations(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 1; i <= 16; ++i) out.push_back(text.substr(0, text.size() * i / 17));
  return out;
}

// Copies of a JSON document with one field given a value of the wrong type each.
std::vector<std::pair<std::string, std::string>> wrong_types(const std::string& text,
                                                             const std::vector<nlohmann::json::json_pointer>& fields) {
  const auto doc = nlohmann::json::parse(text);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& field : fields) {
    const nlohmann::json& v = doc.at(field);
    const nlohmann::json wrong = v.is_string()   ? nlohmann::json(17)
                                 : v.is_object() ? nlohmann::json("an object?")
                                                 : nlohmann::json::object();
    auto mutated = doc;
    mutated[field] = wrong;
    out.emplace_back(field.to_string() + " as " + wrong.type_name(), mutated.dump());
  }
  return out;
}

// The first key of an object member (e.g. the first node's unique id).
std::string first_key(const std::string& text, const char* member) {
  return nlohmann::json::parse(text).at(member).begin().key();
}

TEST_F(BadInput, ArtifactsTruncatedAtSixteenPointsOrWithFieldsOfTheWrongTypeAreRefused) {
  using Ptr = nlohmann::json::json_pointer;
  // manifest.json and sources.json: `ods state plan` reads them.
  const std::string manifest = project_->read("target/manifest.json");
  const std::string node = first_key(manifest, "nodes");
  std::vector<std::pair<std::string, std::string>> manifests;
  for (auto& t : truncations(manifest)) manifests.emplace_back("cut at " + std::to_string(t.size()), t);
  for (auto& w : wrong_types(manifest, {Ptr("/metadata"), Ptr("/metadata/dbt_schema_version"), Ptr("/nodes"),
                                        Ptr("/sources"), Ptr("/nodes/" + node),
                                        Ptr("/nodes/" + node + "/resource_type"), Ptr("/nodes/" + node + "/depends_on"),
                                        Ptr("/nodes/" + node + "/config"), Ptr("/metadata/invocation_id")})) {
    manifests.push_back(std::move(w));
  }
  for (const auto& [how, text] : manifests) {
    project_->write("target/manifest.json", text);
    expect_refused("manifest.json " + how, {"state", "plan"}, 1, "manifest.json");
  }
  project_->write("target/manifest.json", manifest);

  const std::string sources = project_->read("target/sources.json");
  std::vector<std::pair<std::string, std::string>> sources_cases;
  for (auto& t : truncations(sources)) sources_cases.emplace_back("cut at " + std::to_string(t.size()), t);
  for (auto& w :
       wrong_types(sources, {Ptr("/metadata"), Ptr("/metadata/dbt_schema_version"), Ptr("/results"), Ptr("/results/0"),
                             Ptr("/results/0/max_loaded_at"), Ptr("/results/0/unique_id")})) {
    sources_cases.push_back(std::move(w));
  }
  for (const auto& [how, text] : sources_cases) {
    project_->write("target/sources.json", text);
    expect_refused("sources.json " + how, {"state", "plan"}, 1, "sources.json");
  }
  project_->write("target/sources.json", sources);

  // run_results.json: `ods state record` reads it. The baseline's last one is dbt compile's,
  // made a build's so that the intact document is one `record` accepts (checked last).
  auto results_doc = nlohmann::json::parse(project_->read("target/run_results.json"));
  results_doc["args"]["which"] = "build";
  const std::string results = results_doc.dump();
  std::vector<std::pair<std::string, std::string>> results_cases;
  for (auto& t : truncations(results)) results_cases.emplace_back("cut at " + std::to_string(t.size()), t);
  for (auto& w : wrong_types(results, {Ptr("/metadata"), Ptr("/metadata/dbt_schema_version"), Ptr("/results"),
                                       Ptr("/results/0"), Ptr("/results/0/status"), Ptr("/results/0/unique_id"),
                                       Ptr("/args"), Ptr("/metadata/invocation_id")})) {
    results_cases.push_back(std::move(w));
  }
  for (const auto& [how, text] : results_cases) {
    project_->write("target/run_results.json", text);
    expect_refused("run_results.json " + how, {"state", "record"}, 1, "run_results.json");
  }
  // The intact document is accepted: what was refused was the damage.
  project_->write("target/run_results.json", results);
  ODS_ASSERT_OK(project_->ods({"state", "record"}));
  std::cout << "bad-input corpus: " << tried_ << " damaged artifacts tried (" << manifests.size() << " manifest.json, "
            << sources_cases.size() << " sources.json, " << results_cases.size() << " run_results.json)" << std::endl;
}

TEST_F(BadInput, StateDatabasesWithDamagedPagesAreReportedAndLeftAsTheyAre) {
  const std::string intact = read_text_file(state_db());
  ASSERT_FALSE(std::filesystem::exists(state_db().string() + "-wal") &&
               std::filesystem::file_size(state_db().string() + "-wal") > 0)
      << "the baseline's state is not checkpointed";
  const std::size_t page = 256U * static_cast<unsigned char>(intact.at(16)) + static_cast<unsigned char>(intact.at(17));
  ASSERT_GE(page, 512U);
  const std::size_t pages = intact.size() / page;
  ProcessResult plan_intact = project_->ods({"state", "plan"});
  ODS_ASSERT_OK(plan_intact);
  int refused_by_plan = 0;
  for (std::size_t n = 0; n < pages; ++n) {
    // Page n overwritten with a pattern that is no valid b-tree page (nor the file header).
    std::string damaged = intact;
    for (std::size_t i = 0; i < page; ++i) damaged[n * page + i] = static_cast<char>(0xA5 ^ (i * 7));
    {
      std::ofstream out(state_db(), std::ios::binary | std::ios::trunc);
      out << damaged;
    }
    // doctor reports on stdout, a "problem:" line for each thing damaged (a file it can't open
    // at all: on stderr, naming it).
    ProcessResult doctor = project_->ods({"state", "doctor"});
    ++tried_;
    EXPECT_EQ(doctor.exit_code, 1) << "page " << n + 1 << " damaged:\n" << doctor.output << doctor.errors;
    EXPECT_TRUE(doctor.output.find("problem:") != std::string::npos ||
                doctor.errors.find("state.db") != std::string::npos)
        << "page " << n + 1 << ":\n"
        << doctor.output << doctor.errors;
    EXPECT_TRUE(read_text_file(state_db()) == damaged) << "doctor changed the damaged page " << n + 1;
    // A plan either refuses the damaged store or decides exactly as on the intact one; never
    // something else (a page it does not read leaves its decisions alone).
    ProcessResult plan = project_->ods({"state", "plan"});
    ++tried_;
    EXPECT_TRUE(read_text_file(state_db()) == damaged) << "plan changed the damaged page " << n + 1;
    if (plan.exit_code == 1) {
      ++refused_by_plan;
      // Where: the file, or the snapshot whose document is damaged.
      EXPECT_TRUE(plan.errors.find("state.db") != std::string::npos ||
                  plan.errors.find("snapshot ") != std::string::npos)
          << plan.errors;
    } else {
      EXPECT_EQ(plan.exit_code, 0) << plan.errors;
      EXPECT_EQ(plan.output, plan_intact.output) << "page " << n + 1 << " damaged, and the plan differs";
    }
  }
  std::cout << "bad-input corpus: " << tried_ << " runs on " << pages << " state databases with one damaged page ("
            << refused_by_plan << " refused by plan, all by doctor)" << std::endl;
}

}  // namespace
}  // namespace ods::testing
