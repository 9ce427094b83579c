// Watches of the REST client on a real kube-apiserver: events in order from a list's
// resourceVersion, bookmarks, 410 from a compacted resourceVersion, the server's timeout, and
// cancel() from another thread.
#include <gtest/gtest.h>

#include <thread>

#include "kube/kube_client_fixture.h"

namespace ods::testing {
namespace {

using kube::WatchEvent;
using kube::WatchOptions;
using kube::WatchStream;

class KubeWatchTest : public KubeClientTest {
 protected:
  static std::string list_version(const kube::Resource& resource, const std::string& ns) {
    auto listed = client().list(resource, ns, {});
    EXPECT_TRUE(listed) << listed.error().message;
    return listed ? (*listed)["metadata"].value("resourceVersion", "") : "";
  }
  static std::unique_ptr<WatchStream> open(const kube::Resource& resource, const std::string& ns,
                                           const WatchOptions& options) {
    auto stream = client().watch(resource, ns, options);
    EXPECT_TRUE(stream) << stream.error().message;
    return stream ? std::move(*stream) : nullptr;
  }
};

TEST_F(KubeWatchTest, EventsArriveInOrderFromTheListsResourceVersion) {
  const std::string ns = make_namespace("watch");
  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("before", "0")));
  WatchOptions options;
  options.resource_version = list_version(kConfigMaps, ns);
  options.timeout = std::chrono::seconds(30);
  // Changes made before the watch opens, after the list: the watch still gets them.
  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("a", "1")));
  auto stream = open(kConfigMaps, ns, options);
  ASSERT_TRUE(stream);
  ASSERT_TRUE(client().merge_patch(kConfigMaps, {ns, "a"}, {{"data", {{"key", "2"}}}}));
  ASSERT_TRUE(client().remove(kConfigMaps, {ns, "a"}));

  std::vector<std::pair<WatchEvent::Type, std::string>> seen;
  while (seen.size() < 3) {
    auto next = stream->next();
    ASSERT_TRUE(next) << next.error().message;
    ASSERT_TRUE(next->has_value()) << "the stream ended after " << seen.size() << " events";
    if ((*next)->type == WatchEvent::Type::bookmark) continue;
    const Json& object = (*next)->object;
    seen.emplace_back((*next)->type,
                      object["metadata"]["name"].get<std::string>() + "=" + object["data"].value("key", ""));
  }
  const std::vector<std::pair<WatchEvent::Type, std::string>> expected = {
      {WatchEvent::Type::added, "a=1"}, {WatchEvent::Type::modified, "a=2"}, {WatchEvent::Type::deleted, "a=2"}};
  EXPECT_EQ(seen, expected);
}

TEST_F(KubeWatchTest, BookmarksArriveAndTheStreamEndsAtTheServersTimeout) {
  // DbtProjects have the watch cache, which sends bookmarks (2 s before the timeout at the
  // latest) once its resourceVersion has moved on: a DbtProject changes in another namespace.
  const std::string ns = make_namespace("bookmarks");
  const std::string elsewhere = make_namespace("bookmarks-elsewhere");
  WatchOptions options;
  options.resource_version = list_version(kube::resources::kDbtProjects, ns);
  options.timeout = std::chrono::seconds(5);
  auto stream = open(kube::resources::kDbtProjects, ns, options);
  ASSERT_TRUE(stream);
  ASSERT_TRUE(client().create(kube::resources::kDbtProjects, elsewhere, example("shop-dbtproject.yaml", elsewhere)));
  int bookmarks = 0;
  std::string bookmark_version;
  for (;;) {
    auto next = stream->next();
    ASSERT_TRUE(next) << next.error().message;
    if (!next->has_value()) break;  // the server's timeoutSeconds
    EXPECT_EQ((*next)->type, WatchEvent::Type::bookmark) << (*next)->object.dump();
    ++bookmarks;
    bookmark_version = (*next)->object["metadata"].value("resourceVersion", "");
  }
  EXPECT_GE(bookmarks, 1);
  EXPECT_NE(bookmark_version, options.resource_version);
  // A watch from the bookmark's resourceVersion works.
  options.resource_version = bookmark_version;
  options.timeout = std::chrono::seconds(1);
  auto resumed = open(kube::resources::kDbtProjects, ns, options);
  ASSERT_TRUE(resumed);
}

TEST_F(KubeWatchTest, AWatchFromACompactedResourceVersionGets410) {
  const std::string ns = make_namespace("expired");
  const std::string old_version = list_version(kConfigMaps, ns);
  // Two changes: etcd keeps the revision it compacts at, so the watch's first revision
  // (old_version + 1) must be older than that.
  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("a", "1")));
  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("b", "1")));
  ASSERT_FALSE(compact_etcd().empty());
  WatchOptions options;
  options.resource_version = old_version;
  options.timeout = std::chrono::seconds(10);
  auto opened = client().watch(kConfigMaps, ns, options);
  if (!opened) {  // the contract allows the 410 as the answer to the request itself
    EXPECT_TRUE(opened.error().gone()) << opened.error().message;
    return;
  }
  auto next = (*opened)->next();
  ASSERT_TRUE(next) << next.error().message;
  ASSERT_TRUE(next->has_value());
  EXPECT_EQ((*next)->type, WatchEvent::Type::error);
  EXPECT_EQ((*next)->object["code"], 410) << (*next)->object.dump();
  EXPECT_EQ((*next)->object["reason"], "Expired");
}

TEST_F(KubeWatchTest, CancelFromAnotherThreadEndsABlockedNext) {
  const std::string ns = make_namespace("cancel");
  WatchOptions options;
  options.resource_version = list_version(kConfigMaps, ns);
  options.timeout = std::chrono::seconds(300);
  auto stream = open(kConfigMaps, ns, options);
  ASSERT_TRUE(stream);
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stream->cancel();
  });
  auto next = stream->next();  // nothing happens in the namespace: blocks until cancel()
  canceller.join();
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_FALSE(next->has_value());
  auto after = stream->next();
  ASSERT_TRUE(after);
  EXPECT_FALSE(after->has_value());
}

}  // namespace
}  // namespace ods::testing
