// The first hour as a new user meets it (issue 39): the README's tour and docs/ci.md's read-only
// credential, executed from the docs themselves as written. Each test takes the ```sh blocks of a
// section (harness/doc_blocks.h) and runs them with bash -e in a folder laid out as the
// repository is after `make demo` (examples/shop with its data generated, ./.venv, build/bin/ods),
// replacing only what names the reader's own world (the PostgreSQL port; the project folder),
// each replacement counted, so a doc edit that breaks a step fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "harness/doc_blocks.h"
#include "harness/postgres_server.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

// The README's tour, by what each block does.
struct Tour {
  std::string path_setup;  // ods and dbt on PATH, into examples/shop
  std::string path_only() const { return path_setup.substr(0, path_setup.find("cd examples/shop")); }
  std::string main_job;  // run --dry-run, run, test
  std::string postgres;  // the pg target
  std::string adoption;  // record beside the dbt runs you already do
};

// The block of `blocks` that contains `marker`; fails the test when none does.
std::string block_with(const std::vector<std::string>& blocks, const std::string& marker) {
  for (const auto& b : blocks)
    if (b.find(marker) != std::string::npos) return b;
  ADD_FAILURE() << "no ```sh block of the section contains \"" << marker << "\"";
  return "";
}

Tour readme_tour() {
  const auto blocks = sh_blocks_in_section(read_text_file(source_dir() / "README.md"), "## A short tour");
  return Tour{block_with(blocks, "export PATH="), block_with(blocks, "ods state run --dry-run"),
              block_with(blocks, "--target pg"), block_with(blocks, "ods state record")};
}

// A folder laid out as the repository after `make demo`: examples/shop (a copy, its data
// generated), .venv (the tests' venv) and build/bin (the ods under test).
class FirstHour : public ::testing::Test {
 protected:
  FirstHour() : shop_("shop"), root_(shop_.dir().parent_path() / "repository") {
    fs::create_directories(root_ / "examples");
    fs::create_directories(root_ / "build");
    fs::copy(shop_.dir(), root_ / "examples" / "shop", fs::copy_options::recursive);
    fs::create_directory_symlink(shop_.venv().parent_path(), root_ / ".venv");
    fs::create_directory_symlink(ods_binary().parent_path(), root_ / "build" / "bin");
  }

  fs::path shop_dir() const { return root_ / "examples" / "shop"; }

  void generate_data() const {
    ProcessResult data =
        run_process({(root_ / ".venv" / "bin" / "python").string(), "scripts/generate_data.py"}, shop_dir());
    ASSERT_EQ(data.exit_code, 0) << data.output << data.errors;
  }

  // `script` with bash -e (-o pipefail) in the repository's root.
  ProcessResult bash(const std::string& script, const std::vector<std::string>& env = {}) const {
    return run_process({"bash", "-e", "-o", "pipefail", "-c", script}, root_, env);
  }

  DbtProject shop_;
  fs::path root_;
};

TEST_F(FirstHour, TheTourRunsAsWrittenOnTheDemoProject) {
  generate_data();
  const Tour tour = readme_tour();
  ProcessResult r = bash(tour.path_setup + tour.main_job);
  ODS_ASSERT_OK(r);
  const std::string all = r.output + r.errors;
  EXPECT_NE(all.find("9 to build, 0 to reuse."), std::string::npos) << "the dry run plans every node\n" << all;
  EXPECT_NE(all.find("success: built 9, reused 0"), std::string::npos) << all;
  EXPECT_NE(all.find("dbt test not started"), std::string::npos) << "the checks passed in the run\n" << all;
  EXPECT_TRUE(fs::exists(shop_dir() / ".ods" / "state.db")) << "the run recorded into the default SQLite state";
}

TEST_F(FirstHour, AdoptingBesideYourOwnDbtRunsRecordsPlansAndExplains) {
  generate_data();
  const Tour tour = readme_tour();
  std::string adoption = tour.adoption;
  ASSERT_TRUE(replace_once(adoption, "cd my-dbt-project", "cd .")) << adoption;
  ProcessResult r = bash(tour.path_setup + adoption);
  ODS_ASSERT_OK(r);
  EXPECT_NE(r.output.find("Recorded run "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("REUSE ("), std::string::npos) << "the plan reuses what the build recorded\n" << r.output;
  EXPECT_NE(r.output.find("\"entries\""), std::string::npos) << "the JSON plan\n" << r.output;
  EXPECT_NE(r.output.find("model.shop.fct_orders (model)\n  action: "), std::string::npos) << r.output;
}

TEST_F(FirstHour, ThePostgresTargetRunsAsWrittenOnAFreshServer) {
  PostgresServer::Options options;
  options.database = "scratch";  // not `shop`: the tour creates that one itself
  auto server = PostgresServer::start(options);
  ASSERT_TRUE(server) << server.error();
  const Tour tour = readme_tour();
  std::string postgres = tour.postgres;
  EXPECT_EQ(replace_all(postgres, "5432", std::to_string((*server)->port())), 3) << postgres;
  ProcessResult r = bash(tour.path_only() + postgres);
  ODS_ASSERT_OK(r);
  // 8 of the 9 nodes: the Python model runs on DuckDB only.
  EXPECT_NE((r.output + r.errors).find("success: built 8, reused 0, failed 0"), std::string::npos)
      << r.output << r.errors;
  ProcessResult tables =
      (*server)->psql("select count(*) from information_schema.tables where table_schema = 'main'", "shop");
  ASSERT_EQ(tables.exit_code, 0) << tables.errors;
  EXPECT_NE(tables.output, "0\n") << "the models were built in PostgreSQL's shop database";
}

// docs/ci.md: the read-only role for pull requests, made as the doc says, plans and is refused
// the writer's work; the writer's own URL is refused where a read-only one is asked for.
TEST_F(FirstHour, TheReadOnlyCredentialOfCiMdPlansAndCannotWrite) {
  auto server = PostgresServer::start();
  ASSERT_TRUE(server) << server.error();
  generate_data();
  const std::string writer = "postgresql://postgres@127.0.0.1:" + std::to_string((*server)->port()) + "/ods";
  const std::string reader = "postgresql://ods_pr_reader@127.0.0.1:" + std::to_string((*server)->port()) + "/ods";
  const Tour tour = readme_tour();
  ODS_ASSERT_OK(bash(tour.path_setup + "dbt build >/dev/null\nods state record --state \"$WRITER_URL\"\n",
                     {"WRITER_URL=" + writer}));

  const std::string grants = block_with(
      sh_blocks_in_section(read_text_file(source_dir() / "docs" / "ci.md"), "## State: the choices and what they cost"),
      "ods state grants");
  ODS_ASSERT_OK(bash(tour.path_only() + grants, {"WRITER_URL=" + writer}));

  ProcessResult plan =
      bash(tour.path_setup + "ods state plan --read-only-state --state \"$READER_URL\"\n", {"READER_URL=" + reader});
  ODS_ASSERT_OK(plan);
  EXPECT_NE(plan.output.find("REUSE ("), std::string::npos) << plan.output;
  ProcessResult record = bash(tour.path_setup + "ods state record --state \"$READER_URL\"\n", {"READER_URL=" + reader});
  EXPECT_EQ(record.exit_code, 1) << "the reader recorded\n" << record.output << record.errors;
  ProcessResult writer_as_reader =
      bash(tour.path_setup + "ods state plan --read-only-state --state \"$WRITER_URL\"\n", {"WRITER_URL=" + writer});
  EXPECT_EQ(writer_as_reader.exit_code, 1) << writer_as_reader.output;
  EXPECT_NE(writer_as_reader.errors.find("can write the ODS state"), std::string::npos) << writer_as_reader.errors;
}

}  // namespace
}  // namespace ods::testing
