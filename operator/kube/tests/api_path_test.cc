// REST paths, query strings and watch lines (operator/kube/src: api_path, watch_stream).
#include "api_path.h"

#include <gtest/gtest.h>

#include "watch_stream.h"

namespace ods::kube::detail {
namespace {

TEST(ApiPathTest, CoreAndGroupResourcesNamespacedOrNot) {
  EXPECT_EQ(collection_path(resources::kSecrets, "ns"), "/api/v1/namespaces/ns/secrets");
  EXPECT_EQ(collection_path(resources::kSecrets, ""), "/api/v1/secrets");
  EXPECT_EQ(object_path(resources::kDbtRuns, {"ns", "r1"}, Subresource::status),
            "/apis/ods.dev/v1alpha1/namespaces/ns/dbtruns/r1/status");
  const Resource namespaces{"", "v1", "namespaces", false};
  EXPECT_EQ(object_path(namespaces, {"ignored", "team-a"}), "/api/v1/namespaces/team-a");
  EXPECT_EQ(api_version(resources::kLeases), "coordination.k8s.io/v1");
}

TEST(ApiPathTest, QueryEncodesValuesAndSkipsEmptyOnes) {
  EXPECT_EQ(query({}), "");
  EXPECT_EQ(query({{"labelSelector", ""}}), "");
  EXPECT_EQ(query({{"labelSelector", "app=ods,run in (a b)"}, {"force", "true"}}),
            "?labelSelector=app%3Dods%2Crun%20in%20%28a%20b%29&force=true");
}

TEST(WatchEventTest, LinesBecomeEventsAndOtherLinesAreErrors) {
  auto added = parse_watch_event(R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})", "/p");
  ASSERT_TRUE(added);
  EXPECT_EQ(added->type, WatchEvent::Type::added);
  EXPECT_EQ(added->object["metadata"]["name"], "a");
  auto gone = parse_watch_event(R"({"type":"ERROR","object":{"kind":"Status","code":410}})", "/p");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->type, WatchEvent::Type::error);
  EXPECT_EQ(gone->object["code"], 410);
  auto bookmark = parse_watch_event(R"({"type":"BOOKMARK","object":{}})", "/p");
  ASSERT_TRUE(bookmark);
  EXPECT_EQ(bookmark->type, WatchEvent::Type::bookmark);
  auto broken = parse_watch_event("not json", "/p");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().reason, "BadEvent");
  auto unknown = parse_watch_event(R"({"type":"RENAMED","object":{}})", "/p");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("RENAMED"), std::string::npos);
}

TEST(ApiErrorTest, StatusObjectsGiveReasonAndMessage) {
  const ApiError e = error_from_reply(
      "GET", "/api/v1/namespaces/a/configmaps/x",
      {404,
       R"({"kind":"Status","status":"Failure","message":"configmaps \"x\" not found","reason":"NotFound","code":404})"});
  EXPECT_TRUE(e.not_found());
  EXPECT_EQ(e.reason, "NotFound");
  EXPECT_EQ(e.message, R"(GET /api/v1/namespaces/a/configmaps/x: 404 NotFound: configmaps "x" not found)");
  const ApiError plain = error_from_reply("POST", "/x", {503, "overloaded"});
  EXPECT_EQ(plain.reason, "Status503");
  EXPECT_NE(plain.message.find("overloaded"), std::string::npos);
}

}  // namespace
}  // namespace ods::kube::detail
