// `ods state record` refuses everything that isn't a real build of the manifest's code and
// writes nothing; a damaged or newer state database is reported and left untouched.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "harness/shop_baseline.h"
#include "ods/base/sha256.h"
#include "ods/planner/fingerprint.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

class ShopRecord : public ::testing::Test {
 protected:
  ShopRecord() : project_(DbtProject::copy_of(shop_baseline())) {}

  std::string state_digest() const {
    return ods::sha256_hex(project_.read(".ods/state.db")) + ods::sha256_hex(project_.read(".ods/state.db-wal"));
  }
  std::size_t snapshot_count() const {
    auto r = project_.ods({"state", "history", "--format", "json", "--limit", "0"});
    EXPECT_EQ(r.exit_code, 0) << r.errors;
    return nlohmann::json::parse(r.output).at("snapshots").size();
  }
  // Asserts `ods state record` refuses with a message containing `words`, and no snapshot is added.
  void expect_refused(const std::string& words) {
    std::size_t before = snapshot_count();
    auto r = project_.ods({"state", "record"});
    EXPECT_EQ(r.exit_code, 1) << r.output << r.errors;
    EXPECT_NE(r.errors.find(words), std::string::npos) << r.errors;
    EXPECT_EQ(snapshot_count(), before) << "a refused record must write nothing";
  }

  DbtProject project_;
};

TEST_F(ShopRecord, RefusesResultsOfACommandThatBuildsNothing) {
  // The baseline ends with `dbt compile`: its run_results report every node as a success.
  expect_refused("compile");
}

TEST_F(ShopRecord, RefusesAnEmptyRun) {
  ODS_ASSERT_OK(project_.dbt({"build", "--empty", "--select", "stg_orders"}));
  expect_refused("--empty");
}

TEST_F(ShopRecord, RefusesAManifestFromAnotherInvocation) {
  ODS_ASSERT_OK(project_.dbt({"build", "--select", "stg_orders"}));
  ODS_ASSERT_OK(project_.dbt({"parse"}));  // rewrites manifest.json only
  expect_refused("invocation");
}

TEST_F(ShopRecord, RefusesARunAlreadyRecorded) {
  ODS_ASSERT_OK(project_.dbt({"build", "--select", "stg_orders"}));
  ODS_ASSERT_OK(project_.ods({"state", "record"}));
  expect_refused("already recorded");
}

TEST_F(ShopRecord, RefusesARunOlderThanTheState) {
  ODS_ASSERT_OK(project_.dbt({"build", "--select", "stg_orders"}));
  fs::copy(project_.dir() / "target", project_.dir() / "older", fs::copy_options::recursive);
  ODS_ASSERT_OK(project_.dbt({"build", "--select", "stg_orders"}));
  ODS_ASSERT_OK(project_.ods({"state", "record"}));
  fs::remove_all(project_.dir() / "target");
  fs::rename(project_.dir() / "older", project_.dir() / "target");
  expect_refused("before the recorded state");
}

TEST_F(ShopRecord, RefusesAManifestWithoutProjectName) {
  ODS_ASSERT_OK(project_.dbt({"build", "--select", "stg_orders"}));
  project_.replace_in("target/manifest.json", "\"project_name\": \"shop\"", "\"project_name\": null");
  expect_refused("project name");
}

TEST_F(ShopRecord, CorruptDatabaseIsReportedAndLeftUntouched) {
  fs::remove(project_.dir() / ".ods" / "state.db-wal");
  fs::remove(project_.dir() / ".ods" / "state.db-shm");
  project_.write(".ods/state.db", std::string(8192, 'x'));
  std::string before = state_digest();
  auto plan = project_.ods({"state", "plan"});
  EXPECT_EQ(plan.exit_code, 1);
  EXPECT_NE(plan.errors.find("damaged"), std::string::npos) << plan.errors;
  EXPECT_NE(plan.errors.find("state.db"), std::string::npos) << plan.errors;
  ODS_ASSERT_OK(project_.dbt({"build", "--select", "stg_orders"}));
  auto record = project_.ods({"state", "record"});
  EXPECT_EQ(record.exit_code, 1);
  auto doctor = project_.ods({"state", "doctor"});
  EXPECT_EQ(doctor.exit_code, 1);
  EXPECT_EQ(state_digest(), before) << "the damaged file must stay as it was";
}

TEST_F(ShopRecord, NewerSchemaDatabaseIsRefusedAndLeftUntouched) {
  auto bump = run_process({(venv_bin() / "python").string(), "-c",
                           "import sqlite3,sys\n"
                           "c=sqlite3.connect(sys.argv[1])\n"
                           "c.execute(\"insert into schema_migrations(version,name,applied_at) values (999,'from the "
                           "future','2030-01-01T00:00:00Z')\")\n"
                           "c.commit()\nc.execute('pragma wal_checkpoint(truncate)')\nc.close()\n",
                           (project_.dir() / ".ods" / "state.db").string()},
                          project_.dir());
  ODS_ASSERT_OK(bump);
  std::string before = state_digest();
  auto plan = project_.ods({"state", "plan"});
  EXPECT_EQ(plan.exit_code, 1);
  EXPECT_NE(plan.errors.find("newer"), std::string::npos) << plan.errors;
  EXPECT_EQ(state_digest(), before);
}

// Issue 39, item 5: a plan against no state file would say every node never_built, as if a
// wrong --state or --project-dir were a first run: it is an error naming the path instead.
TEST_F(ShopRecord, PlanExplainAndHistoryWithoutAStateFileAreAnErrorNamingThePath) {
  fs::remove_all(project_.dir() / ".ods");
  const std::string path = (project_.dir() / ".ods" / "state.db").string();
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"state", "plan"}, {"state", "explain", "fct_orders"}, {"state", "history"}}) {
    auto r = project_.ods(command);
    EXPECT_EQ(r.exit_code, 1) << command[1] << ": " << r.output << r.errors;
    EXPECT_NE(r.errors.find("There is no state database at " + path), std::string::npos) << command[1] << r.errors;
    EXPECT_EQ(r.output.find("never_built"), std::string::npos) << command[1] << r.output;
  }
  EXPECT_FALSE(fs::exists(project_.dir() / ".ods")) << "a reading command created the store";
}

// `ods <args> --project-dir <p>` as a user who can't write what root made: as root (whom
// permissions don't stop) as nobody, through runuser; anyone else as they are.
ProcessResult ods_as_other_user(const DbtProject& p, const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  if (::geteuid() == 0) argv = {"runuser", "-u", "nobody", "--"};
  argv.push_back(ods_binary().string());
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--project-dir");
  argv.push_back(p.dir().string());
  return run_process(argv, p.dir(), {"HOME=/nonexistent"});
}

// Issue 39, item 5: a state file this user can't write. The commands that only read it work, in
// a folder they can't write either (where SQLite can't make the -shm a WAL database is read
// with); `ods state run` is refused before any dbt call (the dbt given leaves a mark when
// started) instead of building and then saying the build was not recorded.
TEST_F(ShopRecord, AStateFileThisUserCannotWriteIsReadAndARunIsRefusedBeforeDbt) {
  const fs::path folder = project_.dir() / ".ods";
  const fs::path db = folder / "state.db";
  // Every commit in the file itself (no -wal beside it), as after the last writer closed.
  ProcessResult checkpoint = run_process(
      {(project_.venv() / "python").string(), "-c",
       "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('pragma wal_checkpoint(truncate)'); c.close()",
       db.string()},
      project_.dir());
  ASSERT_EQ(checkpoint.exit_code, 0) << checkpoint.errors;
  ASSERT_FALSE(fs::exists(folder / "state.db-wal"));
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const auto reader_folder = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec;
  fs::permissions(folder, reader_folder);
  const std::string before = state_digest();
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"state", "plan"}, {"state", "history"}, {"state", "doctor"}}) {
    ProcessResult r = ods_as_other_user(project_, command);
    EXPECT_EQ(r.exit_code, 0) << command[1] << " on a read-only file in a read-only folder:\n" << r.output << r.errors;
  }
  EXPECT_EQ(state_digest(), before);

  // The folder writable (SQLite opens the file, quietly for reading only): a run is refused first.
  fs::permissions(folder, fs::perms::all);
  const fs::path mark = project_.dir() / "dbt-was-started";
  const fs::path dbt = project_.dir() / "marking-dbt";
  project_.write("marking-dbt", "#!/bin/sh\ntouch '" + mark.string() + "'\nexit 1\n");
  fs::permissions(dbt, fs::perms::all);
  ProcessResult run = ods_as_other_user(project_, {"state", "run", "--dbt", dbt.string()});
  EXPECT_EQ(run.exit_code, 1) << run.output << run.errors;
  EXPECT_NE(run.errors.find("can't be written"), std::string::npos) << run.errors;
  EXPECT_NE(run.errors.find(db.string()), std::string::npos) << run.errors;
  EXPECT_NE(run.errors.find("no dbt command ran"), std::string::npos) << run.errors;
  EXPECT_FALSE(fs::exists(mark)) << "ods state run started dbt";
  fs::permissions(folder, reader_folder);
  EXPECT_EQ(state_digest(), before);
}

TEST_F(ShopRecord, HistoryDoctorBackupAndReset) {
  auto history = project_.ods({"state", "history"});
  ODS_ASSERT_OK(history);
  EXPECT_NE(history.output.find("shop/dev"), std::string::npos) << history.output;  // the profile's default target
  ODS_ASSERT_OK(project_.ods({"state", "doctor"}));
  auto backup_path = (project_.dir() / "backup.db").string();
  ODS_ASSERT_OK(project_.ods({"state", "backup", backup_path}));
  EXPECT_TRUE(fs::exists(backup_path));
  auto refused = project_.ods({"state", "reset"});
  EXPECT_EQ(refused.exit_code, 2) << "reset needs --yes";
  EXPECT_EQ(snapshot_count(), 2u);
  ODS_ASSERT_OK(project_.ods({"state", "reset", "--yes"}));
  EXPECT_EQ(snapshot_count(), 0u);
  auto from_backup = project_.ods({"state", "history", "--format", "json", "--state", "sqlite:" + backup_path});
  ODS_ASSERT_OK(from_backup);
  EXPECT_EQ(nlohmann::json::parse(from_backup.output).at("snapshots").size(), 2u);
}

}  // namespace
}  // namespace ods::testing
