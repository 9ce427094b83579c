// The parse's fast path in a runner pod (issue 41 item 4; docs/kubernetes.md, "Nothing changed in
// a runner pod"): examples/shop on a real PostgreSQL (the `pg` target), `ods pod` against the
// controller's callback server in this process with the PostgreSQL state store, and a packages
// cache folder. Each pod starts as a runner pod does, without target/ (the Job's emptyDir): the
// head step gives it the state its run continues, the kept parse of the run's scope comes from
// the cache, and a run where nothing changed starts no dbt process at all, with dbt made
// unusable. An edited model declines (saying why) and builds; a failed run does not replace the
// kept parse of the last successful one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "callback_fixture.h"
#include "harness/logging_dbt_venv.h"
#include "harness/postgres_shop.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLoaded = "pod_fast_path_loaded";
constexpr const char* kFastLine = "the kept parse stands, dbt not started";
constexpr const char* kReused = "nodes reused; dbt build not started";

class PodParseFastPath : public PostgresShopFixture {
 protected:
  PodParseFastPath() : PostgresShopFixture(kLoaded, {"ODS_DIGEST_KEY=pod-fast-path-test-key-0123456789abcdef"}) {}

  static void SetUpTestSuite() { load_shop_raw_tables(kLoaded); }

  void SetUp() override {
    PostgresShopFixture::SetUp();
    if (HasFatalFailure()) return;
    venv_ = std::make_unique<LoggingDbtVenv>(project_->dir().parent_path());
    store_ = fresh_postgres_store();
    ASSERT_NE(store_, nullptr);
    server_ = start_test_server(runs_, log_, *store_);
    ASSERT_NE(server_, nullptr);
    cache_ = project_->dir().parent_path() / "packages-cache";
  }

  void TearDown() override {
    server_.reset();
    venv_.reset();
    std::error_code ec;
    if (!cache_.empty()) fs::remove_all(cache_, ec);
    PostgresShopFixture::TearDown();
  }

  // `ods pod` for a new run `name` in a fresh pod: the project without target/, dbt from the
  // logging venv, the `pg` target, the packages cache.
  ProcessResult pod(const std::string& name) {
    fs::remove_all(project_->dir() / "target");
    fs::remove(venv_->starts());
    const std::string uid = "uid-" + name;
    runs_.add("shop", name, uid, "pg");
    std::vector<std::string> args = pod_args(*project_, *server_, "shop", name, uid);
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--dbt") args[i + 1] = (venv_->bin() / "dbt").string();
    args.insert(args.end(), {"--target", "pg", "--packages-cache", cache_.string()});
    return project_->ods(args);
  }

  static std::string said(const ProcessResult& r) { return r.output + r.errors; }

  // Pods until one builds nothing (the first builds everything); what that one said.
  std::string build_until_steady() {
    std::string last;
    for (int i = 0; i < 3; ++i) {
      ProcessResult r = pod("steady-" + std::to_string(i));
      EXPECT_EQ(r.exit_code, 0) << said(r);
      last = said(r);
      if (last.find(kReused) != std::string::npos) return last;
    }
    ADD_FAILURE() << "no pod reached a run that builds nothing:\n" << last;
    return last;
  }

  // The kept parse's recorded parse-inputs digest in the cache's one slot.
  std::string kept_inputs_digest() const {
    for (const auto& entry : fs::directory_iterator(cache_ / "kept-parse")) {
      if (entry.path().filename().string().starts_with(".")) continue;
      std::ifstream in(entry.path() / "parse" / "ods-parse" / "parse_inputs.sha256");
      std::string digest;
      std::getline(in, digest);
      return digest;
    }
    return "";
  }

  std::unique_ptr<LoggingDbtVenv> venv_;
  std::unique_ptr<contracts::StateStore> store_;
  TestRuns runs_;
  PhaseLog log_;
  std::unique_ptr<callback::CallbackServer> server_;
  fs::path cache_;
};

TEST_F(PodParseFastPath, ANothingChangedPodStartsNoDbtAndAnEditedModelDeclinesAndBuilds) {
  const std::string steady = build_until_steady();
  ASSERT_FALSE(HasFailure()) << steady;

  // Nothing changed, a fresh pod, dbt unusable: no dbt process, everything reused.
  std::ofstream(venv_->broken()) << "";
  ProcessResult fast = pod("nothing-changed");
  EXPECT_EQ(fast.exit_code, 0) << said(fast);
  EXPECT_NE(said(fast).find("kept parse restored from the cache"), std::string::npos) << said(fast);
  EXPECT_NE(said(fast).find(kFastLine), std::string::npos) << said(fast);
  EXPECT_NE(said(fast).find(", 0 compiled"), std::string::npos) << said(fast);
  EXPECT_NE(said(fast).find("native probe, no dbt process"), std::string::npos) << said(fast);
  EXPECT_NE(said(fast).find(kReused), std::string::npos) << said(fast);
  EXPECT_NE(said(fast).find("stood: not saved again"), std::string::npos) << said(fast);
  EXPECT_FALSE(venv_->started()) << said(fast);
  fs::remove(venv_->broken());

  // An edited model: the fast path declines with the reason, dbt parses and the model builds;
  // the new parse is kept, and the next pod stands on it without dbt.
  const std::string before_edit = kept_inputs_digest();
  project_->replace_in("models/staging/stg_orders.sql", "    loaded_at\n", "    loaded_at,\n    1 as edited_column\n");
  ProcessResult edited = pod("edited");
  EXPECT_EQ(edited.exit_code, 0) << said(edited);
  EXPECT_NE(said(edited).find("not the parse's fast path: something dbt's parse reads changed"), std::string::npos)
      << said(edited);
  EXPECT_EQ(said(edited).find(kReused), std::string::npos) << said(edited);
  EXPECT_NE(said(edited).find("building "), std::string::npos) << said(edited);
  EXPECT_NE(said(edited).find("kept parse saved to the cache"), std::string::npos) << said(edited);
  EXPECT_TRUE(venv_->started());
  EXPECT_NE(kept_inputs_digest(), before_edit);

  std::ofstream(venv_->broken()) << "";
  ProcessResult after = pod("after-edit");
  EXPECT_EQ(after.exit_code, 0) << said(after);
  EXPECT_NE(said(after).find(kFastLine), std::string::npos) << said(after);
  EXPECT_FALSE(venv_->started()) << said(after);
}

TEST_F(PodParseFastPath, AFailedRunDoesNotReplaceTheKeptParse) {
  build_until_steady();
  ASSERT_FALSE(HasFailure());
  const std::string kept = kept_inputs_digest();
  ASSERT_FALSE(kept.empty());
  // A model whose SQL dbt parses but the warehouse refuses: the run fails, its parse is not kept.
  project_->replace_in("models/staging/stg_orders.sql", "select", "select no_such_column_anywhere,");
  ProcessResult failed = pod("failing");
  EXPECT_NE(failed.exit_code, 0) << said(failed);
  EXPECT_EQ(said(failed).find("kept parse saved"), std::string::npos) << said(failed);
  EXPECT_EQ(kept_inputs_digest(), kept);
  // The edit reverted: the kept parse of the last successful run stands (no dbt parse); the
  // model whose checks the failed run left unpassed builds again, on that parse.
  project_->replace_in("models/staging/stg_orders.sql", "select no_such_column_anywhere,", "select");
  ProcessResult reverted = pod("reverted");
  EXPECT_EQ(reverted.exit_code, 0) << said(reverted);
  EXPECT_NE(said(reverted).find(kFastLine), std::string::npos) << said(reverted);
  EXPECT_NE(said(reverted).find(", 0 compiled"), std::string::npos) << said(reverted);
}

}  // namespace
}  // namespace ods::testing
