// The fake client behaves like the API server where the reconcilers rely on it.
#include "fake_client.h"

#include <gtest/gtest.h>

namespace ods::control::testing {
namespace {

namespace res = kube::resources;

TEST(FakeClient, ReplaceIsACompareAndSwapOnTheResourceVersion) {
  FakeClient client;
  auto created = client.create(res::kSecrets, "ns", {{"metadata", {{"name", "s"}}}, {"data", {{"a", "b"}}}});
  ASSERT_TRUE(created);
  Json stale = *created;
  ASSERT_TRUE(client.replace(res::kSecrets, {"ns", "s"}, *created, kube::Subresource::none));
  auto conflict = client.replace(res::kSecrets, {"ns", "s"}, stale, kube::Subresource::none);
  ASSERT_FALSE(conflict);
  EXPECT_TRUE(conflict.error().conflict());
  auto again = client.create(res::kSecrets, "ns", {{"metadata", {{"name", "s"}}}});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().reason, "AlreadyExists");
}

TEST(FakeClient, StatusAndSpecAreWrittenThroughTheirOwnEndpoints) {
  FakeClient client;
  ASSERT_TRUE(client.create(res::kDbtRuns, "ns",
                            {{"metadata", {{"generateName", "run-"}}}, {"spec", {{"a", 1}}}, {"status", {{"x", 1}}}}));
  const Json run = client.objects(res::kDbtRuns, "ns").at(0);
  const kube::ObjectKey key{"ns", run["metadata"]["name"]};
  EXPECT_TRUE(run["metadata"]["name"].get<std::string>().starts_with("run-"));
  EXPECT_FALSE(run.contains("status"));  // dropped on create
  auto status = client.merge_patch(res::kDbtRuns, key, {{"status", {{"phase", "Pending"}}}, {"spec", {{"a", 2}}}},
                                   kube::Subresource::status);
  ASSERT_TRUE(status);
  EXPECT_EQ((*status)["spec"]["a"], 1);  // the status endpoint ignores spec
  EXPECT_EQ((*status)["metadata"]["generation"], 1);
  auto spec =
      client.merge_patch(res::kDbtRuns, key, {{"spec", {{"a", 2}}}, {"status", nullptr}}, kube::Subresource::none);
  ASSERT_TRUE(spec);
  EXPECT_EQ((*spec)["status"]["phase"], "Pending");  // the main endpoint ignores status
  EXPECT_EQ((*spec)["metadata"]["generation"], 2);
}

TEST(FakeClient, AWatchFromAListsVersionSeesEveryLaterWrite) {
  FakeClient client;
  auto listed = client.list(res::kJobs, "ns", {});
  ASSERT_TRUE(client.create(res::kJobs, "ns", {{"metadata", {{"name", "j"}}}}));
  kube::WatchOptions options;
  options.resource_version = (*listed)["metadata"]["resourceVersion"];
  auto stream = client.watch(res::kJobs, "ns", options);
  ASSERT_TRUE(stream);
  ASSERT_TRUE(client.remove(res::kJobs, {"ns", "j"}));
  auto first = (*stream)->next();
  auto second = (*stream)->next();
  ASSERT_TRUE(first && first->has_value() && second && second->has_value());
  EXPECT_EQ((*first)->type, kube::WatchEvent::Type::added);
  EXPECT_EQ((*second)->type, kube::WatchEvent::Type::deleted);
  (*stream)->cancel();
  auto ended = (*stream)->next();
  ASSERT_TRUE(ended);
  EXPECT_FALSE(ended->has_value());
}

}  // namespace
}  // namespace ods::control::testing
