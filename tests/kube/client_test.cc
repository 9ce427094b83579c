// The REST client (operator/kube, ods/kube/rest_client.h) on a real kube-apiserver: CRUD of
// ConfigMaps and DbtProjects, server-side apply, the status subresource, errors as ApiError values,
// calls from several threads, a server that is not there.
#include <gtest/gtest.h>

#include <thread>

#include "kube/kube_client_fixture.h"

namespace ods::testing {
namespace {

using kube::ApiError;
using kube::ObjectKey;
using kube::Subresource;
namespace resources = kube::resources;

class KubeRestClientTest : public KubeClientTest {};

TEST_F(KubeRestClientTest, ConfigMapCreateGetListReplacePatchAndRemove) {
  const std::string ns = make_namespace("crud");
  auto created = client().create(kConfigMaps, ns, config_map("a", "1", {{"app", "ods"}}));
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ((*created)["metadata"]["namespace"], ns);
  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("b", "2")));

  auto got = client().get(kConfigMaps, {ns, "a"});
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ((*got)["data"]["key"], "1");
  auto missing = client().find(kConfigMaps, {ns, "nothing"});
  ASSERT_TRUE(missing) << missing.error().message;
  EXPECT_FALSE(missing->has_value());

  auto all = client().list(kConfigMaps, ns, {});
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ((*all)["items"].size(), 2U);
  EXPECT_FALSE((*all)["metadata"].value("resourceVersion", "").empty());
  auto labelled = client().list(kConfigMaps, ns, {.label_selector = "app=ods", .field_selector = ""});
  ASSERT_TRUE(labelled) << labelled.error().message;
  ASSERT_EQ((*labelled)["items"].size(), 1U);
  EXPECT_EQ((*labelled)["items"][0]["metadata"]["name"], "a");

  Json changed = *got;
  changed["data"]["key"] = "replaced";
  auto replaced = client().replace(kConfigMaps, {ns, "a"}, changed);
  ASSERT_TRUE(replaced) << replaced.error().message;
  EXPECT_EQ((*replaced)["data"]["key"], "replaced");
  // The same resourceVersion again: the compare-and-swap loses.
  changed["data"]["key"] = "stale";
  auto stale = client().replace(kConfigMaps, {ns, "a"}, changed);
  ASSERT_FALSE(stale);
  EXPECT_TRUE(stale.error().conflict()) << stale.error().message;
  EXPECT_EQ(stale.error().reason, "Conflict");

  auto patched = client().merge_patch(kConfigMaps, {ns, "a"}, {{"data", {{"other", "x"}}}});
  ASSERT_TRUE(patched) << patched.error().message;
  EXPECT_EQ((*patched)["data"], Json({{"key", "replaced"}, {"other", "x"}}));

  auto removed = client().remove(kConfigMaps, {ns, "a"});
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_TRUE(*removed);
  auto again = client().remove(kConfigMaps, {ns, "a"});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_FALSE(*again);
  auto gone = client().get(kConfigMaps, {ns, "a"});
  ASSERT_FALSE(gone);
  EXPECT_TRUE(gone.error().not_found());
  EXPECT_EQ(gone.error().reason, "NotFound");
  EXPECT_EQ(gone.error().message,
            "GET /api/v1/namespaces/" + ns + "/configmaps/a: 404 NotFound: configmaps \"a\" not found");
}

TEST_F(KubeRestClientTest, ErrorsAreValuesWithStatusReasonVerbPathAndTheServersMessage) {
  const std::string ns = make_namespace("errors");
  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("a", "1")));
  auto duplicate = client().create(kConfigMaps, ns, config_map("a", "2"));
  ASSERT_FALSE(duplicate);
  EXPECT_EQ(duplicate.error().status, 409);
  EXPECT_EQ(duplicate.error().reason, "AlreadyExists");
  EXPECT_NE(duplicate.error().message.find("POST /api/v1/namespaces/" + ns + "/configmaps: 409 AlreadyExists"),
            std::string::npos)
      << duplicate.error().message;

  auto invalid = client().create(kConfigMaps, ns, config_map("Not_A_Name", "1"));
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().status, 422);
  EXPECT_EQ(invalid.error().reason, "Invalid");
  EXPECT_NE(invalid.error().message.find("Not_A_Name"), std::string::npos) << invalid.error().message;

  // A DbtProject the CEL rules refuse: 422 with the rule's message.
  Json project = example("shop-dbtproject.yaml", ns);
  project["spec"]["schedule"] = "every day";
  auto refused = client().create(resources::kDbtProjects, ns, project);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().status, 422);
  EXPECT_NE(refused.error().message.find("spec.schedule must be a 5-field cron expression"), std::string::npos)
      << refused.error().message;
}

TEST_F(KubeRestClientTest, DbtProjectCrudServerSideApplyAndTheStatusSubresource) {
  const std::string ns = make_namespace("projects");
  const ObjectKey key{ns, "shop"};
  Json project = example("shop-dbtproject.yaml", ns);
  auto created = client().create(resources::kDbtProjects, ns, project);
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ((*created)["metadata"]["generation"], 1);

  // Server-side apply as a field manager: the fields it sets are its own.
  const Json applied_spec = {{"apiVersion", "ods.dev/v1alpha1"},
                             {"kind", "DbtProject"},
                             {"metadata", {{"name", "shop"}, {"namespace", ns}}},
                             {"spec", {{"suspend", true}}}};
  auto applied = client().apply(resources::kDbtProjects, key, applied_spec, "ods-test");
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ((*applied)["spec"]["suspend"], true);
  EXPECT_EQ((*applied)["spec"]["image"], project["spec"]["image"]) << "apply kept the other fields";
  bool managed = false;
  for (const Json& entry : (*applied)["metadata"]["managedFields"])
    if (entry["manager"] == "ods-test" && entry["operation"] == "Apply")
      managed = entry["fieldsV1"].dump().find("f:suspend") != std::string::npos;
  EXPECT_TRUE(managed) << (*applied)["metadata"]["managedFields"].dump();

  // The status goes through /status only: a status in the main resource is ignored.
  auto ignored = client().merge_patch(resources::kDbtProjects, key, {{"status", {{"observedGeneration", 7}}}});
  ASSERT_TRUE(ignored) << ignored.error().message;
  EXPECT_FALSE(ignored->contains("status") && (*ignored)["status"].contains("observedGeneration"));
  auto status = client().merge_patch(resources::kDbtProjects, key, {{"status", {{"observedGeneration", 2}}}},
                                     Subresource::status);
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ((*status)["status"]["observedGeneration"], 2);
  const Json status_apply = {{"apiVersion", "ods.dev/v1alpha1"},
                             {"kind", "DbtProject"},
                             {"metadata", {{"name", "shop"}, {"namespace", ns}}},
                             {"status", {{"observedGeneration", 3}}}};
  auto status_applied = client().apply(resources::kDbtProjects, key, status_apply, "ods-test", Subresource::status);
  ASSERT_TRUE(status_applied) << status_applied.error().message;
  EXPECT_EQ((*status_applied)["status"]["observedGeneration"], 3);

  auto removed = client().remove(resources::kDbtProjects, key);
  ASSERT_TRUE(removed && *removed);
  auto found = client().find(resources::kDbtProjects, key);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_FALSE(found->has_value());
}

TEST_F(KubeRestClientTest, CallsFromSeveralThreadsAtOnce) {
  const std::string ns = make_namespace("threads");
  std::vector<std::thread> threads;
  std::vector<std::string> failures(6);
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        const std::string name = "t" + std::to_string(t) + "-" + std::to_string(i);
        auto created = client().create(kConfigMaps, ns, config_map(name, name));
        auto got = client().get(kConfigMaps, {ns, name});
        if (!created || !got || (*got)["data"]["key"] != name)
          failures[t] = created ? (got ? "wrong object " + got->dump() : got.error().message) : created.error().message;
      }
    });
  for (auto& thread : threads) thread.join();
  for (const std::string& failure : failures) EXPECT_EQ(failure, "");
  auto all = client().list(kConfigMaps, ns, {});
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ((*all)["items"].size(), 60U);
}

TEST_F(KubeRestClientTest, AServerThatIsNotThereIsUnreachableNotAThrow) {
  auto config = kube::load_kubeconfig(plane().kubeconfig());
  ASSERT_TRUE(config);
  config->server = "https://127.0.0.1:1";  // nothing listens on port 1
  auto nowhere = kube::make_client(*config);
  ASSERT_TRUE(nowhere) << nowhere.error().message;
  auto got = (*nowhere)->get(kConfigMaps, {"default", "a"});
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().status, 0);
  EXPECT_EQ(got.error().reason, "Unreachable");
  EXPECT_NE(got.error().message.find("GET /api/v1/namespaces/default/configmaps/a"), std::string::npos)
      << got.error().message;
}

}  // namespace
}  // namespace ods::testing
