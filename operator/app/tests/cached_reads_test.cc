// CachedReads answers the project reconciler's "runs of this project" list (a field selector on
// spec.projectRef.name) from the runs informer's index, without asking the API server; a field it
// has no index of goes to the server, which filters as the real one does.
#include "cached_reads.h"

#include <gtest/gtest.h>

#include "fake_client.h"
#include "harness/eventually.h"
#include "ods/control/objects.h"

namespace ods::operator_app {
namespace {

using control::testing::FakeClient;
using kube::Json;
using ods::testing::eventually;
const kube::Resource& kRuns = kube::resources::kDbtRuns;

Json run(const std::string& name, const std::string& project) {
  return {{"apiVersion", "ods.dev/v1alpha1"},
          {"kind", "DbtRun"},
          {"metadata", {{"name", name}, {"namespace", "shop"}}},
          {"spec", {{"projectRef", {{"name", project}}}}}};
}

std::string names(const kube::ApiResult<Json>& listed) {
  if (!listed) return "error: " + listed.error().message;
  std::string out;
  for (const Json& item : (*listed)["items"])
    out += (out.empty() ? "" : ",") + item["metadata"]["name"].get<std::string>();
  return out;
}

class CachedReadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [name, project] : {std::pair{"a1", "a"}, {"a2", "a"}, {"b1", "b"}})
      ASSERT_TRUE(api.create(kRuns, "shop", run(name, project)));
    kube::InformerOptions options;
    options.resource = kRuns;
    options.indexes.emplace(std::string(control::kProjectRefField),
                            kube::index_by_field(std::string(control::kProjectRefPointer)));
    informer = std::make_unique<kube::Informer>(api, options, [](kube::WatchEvent::Type, const Json&) {});
    informer->start();
    ASSERT_TRUE(informer->wait_for_sync(std::chrono::seconds(30))) << informer->last_error();
  }
  void TearDown() override { informer->stop(); }

  FakeClient api;
  std::unique_ptr<kube::Informer> informer;
};

TEST_F(CachedReadsTest, TheRunsOfAProjectComeFromTheIndex) {
  CachedReads reads(api, {{kRuns, informer.get()}});
  const int lists_before = api.calls("list", kRuns);
  EXPECT_EQ(names(reads.list(kRuns, "shop", control::runs_of_project_options("a"))), "a1,a2");
  EXPECT_EQ(names(reads.list(kRuns, "shop", control::runs_of_project_options("b"))), "b1");
  EXPECT_EQ(names(reads.list(kRuns, "elsewhere", control::runs_of_project_options("a"))), "");
  EXPECT_EQ(api.calls("list", kRuns), lists_before) << "answered from the cache";

  ASSERT_TRUE(api.create(kRuns, "shop", run("a3", "a")));
  ASSERT_TRUE(eventually(std::chrono::seconds(30), [&] {
    return names(reads.list(kRuns, "shop", control::runs_of_project_options("a"))) == "a1,a2,a3";
  }));
}

TEST_F(CachedReadsTest, AFieldWithoutAnIndexGoesToTheApiServer) {
  CachedReads reads(api, {{kRuns, informer.get()}});
  const int lists_before = api.calls("list", kRuns);
  const kube::ListOptions by_name{.label_selector = {}, .field_selector = "metadata.name=b1"};
  EXPECT_EQ(names(reads.list(kRuns, "shop", by_name)), "b1");
  const kube::ListOptions two_fields{.label_selector = {}, .field_selector = "spec.projectRef.name=a,metadata.name=a2"};
  EXPECT_EQ(names(reads.list(kRuns, "shop", two_fields)), "a2");
  EXPECT_EQ(api.calls("list", kRuns), lists_before + 2);
}

}  // namespace
}  // namespace ods::operator_app
