// A DbtRun made by hand (no owner reference) is adopted by its project on its first reconcile:
// a controller owner reference to the DbtProject, so the garbage collector deletes the run with
// the project. A run that already has a controller, or whose project is missing, is left as is.
#include <gtest/gtest.h>

#include "ods/control/run_reconciler.h"
#include "reconciler_world.h"
#include "test_objects.h"

namespace ods::control {
namespace {

using testing::any_token;
using testing::manual_run;
using testing::ReconcilerWorld;
using testing::shop_project;
using testing::store;
namespace res = kube::resources;

class RunAdoptionTest : public ::testing::Test, protected ReconcilerWorld {
 protected:
  Result<ReconcileResult> reconcile(const std::string& name) { return reconciler_.reconcile({"ns", name}); }
  Json run(const std::string& name) { return *client_.get(res::kDbtRuns, {"ns", name}); }

  DbtRunReconciler reconciler_{client_, clock_, events_, any_token,
                               RunJobOptions{.callback_url = "https://ods-operator.ods-system.svc:8443"}};
};

TEST_F(RunAdoptionTest, ARunMadeByHandIsAdoptedByItsProjectAndStarts) {
  const Json project = store(client_, res::kDbtProjects, shop_project());
  Json orphan = manual_run("by-hand");
  orphan["metadata"]["ownerReferences"] = Json::array(
      {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "keeps-it"}, {"uid", "cm-uid"}}});  // not a controller
  store(client_, res::kDbtRuns, orphan);

  auto adopted = reconcile("by-hand");
  ASSERT_TRUE(adopted) << adopted.error().message;
  const Json references = run("by-hand")["metadata"]["ownerReferences"];
  ASSERT_EQ(references.size(), 2u) << references.dump();
  EXPECT_EQ(references[0]["kind"], "ConfigMap");
  EXPECT_EQ(references[1]["kind"], "DbtProject");
  EXPECT_EQ(references[1]["name"], "shop");
  EXPECT_EQ(references[1]["uid"], project["metadata"]["uid"]);
  EXPECT_EQ(references[1]["controller"], true);
  EXPECT_EQ(references[1]["blockOwnerDeletion"], true);
  // The same reconcile goes on as for any run: the Job is made, the run is Pending.
  EXPECT_EQ(run("by-hand")["status"]["phase"], "Pending");
  EXPECT_TRUE(client_.get(res::kJobs, {"ns", "by-hand"}).has_value());

  ASSERT_TRUE(reconcile("by-hand"));
  EXPECT_EQ(run("by-hand")["metadata"]["ownerReferences"].size(), 2u);  // adopted once
}

TEST_F(RunAdoptionTest, ARunWithAControllerIsNotAdoptedAgain) {
  store(client_, res::kDbtProjects, shop_project());
  Json owned = manual_run("owned");
  const Json other = {{"apiVersion", "ods.dev/v1alpha1"},
                      {"kind", "DbtProject"},
                      {"name", "other"},
                      {"uid", "other-uid"},
                      {"controller", true}};
  owned["metadata"]["ownerReferences"] = Json::array({other});
  store(client_, res::kDbtRuns, owned);
  ASSERT_TRUE(reconcile("owned"));
  EXPECT_EQ(run("owned")["metadata"]["ownerReferences"], Json::array({other}));
}

TEST_F(RunAdoptionTest, ARunWhoseProjectIsMissingIsNotAdoptedAndFails) {
  store(client_, res::kDbtRuns, manual_run("lost", "nowhere"));
  ASSERT_TRUE(reconcile("lost"));
  EXPECT_FALSE(run("lost")["metadata"].contains("ownerReferences"));
  EXPECT_EQ(run("lost")["status"]["phase"], "Failed");
}

}  // namespace
}  // namespace ods::control
