// The Informer's cache without a server: what it keeps of an object (strip_unread_members) and its
// indexes (by_index) through list, watch events (add, an update that changes the indexed field,
// delete) and a relist after 410 Gone. The server is a scripted kube::Client: list answers what the
// test set, watch streams what the test sends.
#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>

#include "harness/eventually.h"
#include "ods/kube/informer.h"

namespace ods::kube {
namespace {

using ods::testing::eventually;
constexpr auto kLimit = std::chrono::seconds(30);
constexpr const char* kIndex = "spec.projectRef.name";

const Resource kRuns{"ods.dev", "v1alpha1", "dbtruns"};

Json run(const std::string& ns, const std::string& name, const std::string& project, int version) {
  return {{"metadata",
           {{"namespace", ns},
            {"name", name},
            {"resourceVersion", std::to_string(version)},
            {"managedFields", Json::array({{{"manager", "kubectl"}, {"fieldsV1", {{"f:spec", Json::object()}}}}})},
            {"annotations",
             {{"kubectl.kubernetes.io/last-applied-configuration", "{\"a whole\":\"copy\"}"}, {"team", "data"}}}}},
          {"spec", {{"projectRef", {{"name", project}}}}}};
}

// One watch at a time; events the test sends, then (on close()) the end of the stream.
class ScriptedClient final : public Client {
 public:
  void set_listed(std::vector<Json> items, int version) {
    std::lock_guard lock(mutex_);
    listed_ = std::move(items);
    list_version_ = version;
  }
  void send(WatchEvent event) {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
    ready_.notify_all();
  }
  int lists() const {
    std::lock_guard lock(mutex_);
    return lists_;
  }

  ApiResult<Json> list(const Resource&, const std::string&, const ListOptions&) override {
    std::lock_guard lock(mutex_);
    ++lists_;
    return Json{{"items", listed_}, {"metadata", {{"resourceVersion", std::to_string(list_version_)}}}};
  }
  ApiResult<std::unique_ptr<WatchStream>> watch(const Resource&, const std::string&, const WatchOptions&) override {
    return std::unique_ptr<WatchStream>(new Stream(*this));
  }
  ApiResult<Json> get(const Resource&, const ObjectKey&) override { return unsupported(); }
  ApiResult<std::optional<Json>> find(const Resource&, const ObjectKey&) override { return unsupported(); }
  ApiResult<Json> create(const Resource&, const std::string&, const Json&) override { return unsupported(); }
  ApiResult<Json> replace(const Resource&, const ObjectKey&, const Json&, Subresource) override {
    return unsupported();
  }
  ApiResult<Json> merge_patch(const Resource&, const ObjectKey&, const Json&, Subresource) override {
    return unsupported();
  }
  ApiResult<Json> apply(const Resource&, const ObjectKey&, const Json&, const std::string&, Subresource) override {
    return unsupported();
  }
  ApiResult<bool> remove(const Resource&, const ObjectKey&) override { return unsupported(); }

 private:
  static std::unexpected<ApiError> unsupported() {
    return std::unexpected(ApiError{501, "NotImplemented", "scripted"});
  }

  class Stream final : public WatchStream {
   public:
    explicit Stream(ScriptedClient& client) : client_(client) {}
    ApiResult<std::optional<WatchEvent>> next() override {
      std::unique_lock lock(client_.mutex_);
      client_.ready_.wait(lock, [&] { return cancelled_ || !client_.events_.empty(); });
      if (cancelled_) return std::optional<WatchEvent>{};
      WatchEvent event = std::move(client_.events_.front());
      client_.events_.pop_front();
      return std::optional<WatchEvent>{std::move(event)};
    }
    void cancel() override {
      std::lock_guard lock(client_.mutex_);
      cancelled_ = true;
      client_.ready_.notify_all();
    }

   private:
    ScriptedClient& client_;
    bool cancelled_ = false;
  };

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<Json> listed_;
  int list_version_ = 0;
  std::deque<WatchEvent> events_;
  int lists_ = 0;
};

// The names by_index answers, in order; "none" when the informer has no such index.
std::string names(const std::optional<std::vector<Json>>& objects) {
  if (!objects) return "none";
  std::string out;
  for (const Json& object : *objects) out += (out.empty() ? "" : ",") + key_of(object).str();
  return out;
}

class InformerCacheTest : public ::testing::Test {
 protected:
  InformerOptions options() const {
    InformerOptions o;
    o.resource = kRuns;
    o.min_backoff = std::chrono::milliseconds(1);
    o.max_backoff = std::chrono::milliseconds(10);
    o.indexes.emplace(kIndex, index_by_field("/spec/projectRef/name"));
    return o;
  }
  std::string runs_of(const Informer& informer, const std::string& project, const std::string& ns = "shop") const {
    return names(informer.by_index(kIndex, project, ns));
  }

  ScriptedClient client;
  std::mutex heard_mutex;
  std::vector<Json> heard;  // every object the handler was given
  Informer::Handler handler = [this](WatchEvent::Type, const Json& object) {
    std::lock_guard lock(heard_mutex);
    heard.push_back(object);
  };
};

TEST_F(InformerCacheTest, TheIndexFollowsAddsUpdatesThatMoveAnObjectAndDeletes) {
  client.set_listed({run("shop", "a", "p", 1), run("shop", "b", "q", 2), run("other", "c", "p", 3)}, 3);
  Informer informer(client, options(), handler);
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(kLimit)) << informer.last_error();
  EXPECT_EQ(runs_of(informer, "p"), "shop/a");
  EXPECT_EQ(runs_of(informer, "p", ""), "other/c,shop/a") << "all namespaces";
  EXPECT_EQ(runs_of(informer, "q"), "shop/b");
  EXPECT_EQ(runs_of(informer, "nobody"), "");
  EXPECT_EQ(names(informer.by_index("metadata.name", "a", "shop")), "none") << "no such index";

  client.send({WatchEvent::Type::added, run("shop", "d", "p", 4)});
  ASSERT_TRUE(eventually(kLimit, [&] { return runs_of(informer, "p") == "shop/a,shop/d"; })) << runs_of(informer, "p");

  client.send({WatchEvent::Type::modified, run("shop", "d", "q", 5)});  // d moves from p to q
  ASSERT_TRUE(eventually(kLimit, [&] { return runs_of(informer, "q") == "shop/b,shop/d"; })) << runs_of(informer, "q");
  EXPECT_EQ(runs_of(informer, "p"), "shop/a");

  client.send({WatchEvent::Type::deleted, run("shop", "a", "p", 6)});
  ASSERT_TRUE(eventually(kLimit, [&] { return runs_of(informer, "p") == ""; })) << runs_of(informer, "p");
  EXPECT_EQ(runs_of(informer, "p", ""), "other/c");
  EXPECT_EQ(runs_of(informer, "q"), "shop/b,shop/d");

  Json no_project = run("shop", "e", "", 7);
  client.send({WatchEvent::Type::added, no_project});
  ASSERT_TRUE(eventually(kLimit, [&] { return informer.get({"shop", "e"}).has_value(); }));
  EXPECT_EQ(runs_of(informer, ""), "") << "an empty value is not filed";
  informer.stop();
}

TEST_F(InformerCacheTest, ARelistAfter410RebuildsTheIndexFromTheNewList) {
  client.set_listed({run("shop", "a", "p", 1), run("shop", "b", "q", 2)}, 2);
  Informer informer(client, options(), handler);
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(kLimit)) << informer.last_error();
  ASSERT_EQ(runs_of(informer, "p"), "shop/a");

  // Meanwhile on the server: a is gone, b moved to p, c is new under q.
  client.set_listed({run("shop", "b", "p", 10), run("shop", "c", "q", 11)}, 11);
  client.send({WatchEvent::Type::error, {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}}});
  ASSERT_TRUE(eventually(kLimit, [&] { return informer.relists() >= 1 && runs_of(informer, "q") == "shop/c"; }))
      << "relists " << informer.relists() << ", q: " << runs_of(informer, "q");
  EXPECT_EQ(runs_of(informer, "p"), "shop/b");
  EXPECT_FALSE(informer.get({"shop", "a"}).has_value());
  EXPECT_EQ(client.lists(), 2);
  informer.stop();
}

TEST_F(InformerCacheTest, TheCacheAndTheHandlerGetObjectsWithoutWhatNoReconcilerReads) {
  client.set_listed({run("shop", "listed", "p", 1)}, 1);
  Informer informer(client, options(), handler);
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(kLimit)) << informer.last_error();
  client.send({WatchEvent::Type::added, run("shop", "watched", "p", 2)});
  ASSERT_TRUE(eventually(kLimit, [&] { return informer.get({"shop", "watched"}).has_value(); }));

  std::vector<Json> seen = informer.list();
  {
    std::lock_guard lock(heard_mutex);
    seen.insert(seen.end(), heard.begin(), heard.end());
  }
  ASSERT_EQ(seen.size(), 4U);  // two cached, two heard
  for (const Json& object : seen) {
    const Json& metadata = object["metadata"];
    EXPECT_FALSE(metadata.contains("managedFields")) << object.dump();
    EXPECT_FALSE(metadata["annotations"].contains("kubectl.kubernetes.io/last-applied-configuration"));
    EXPECT_EQ(metadata["annotations"].value("team", ""), "data") << "other annotations stay";
    EXPECT_EQ(object["spec"]["projectRef"]["name"], "p");
    EXPECT_FALSE(metadata.value("resourceVersion", "").empty());
  }
  informer.stop();
}

TEST_F(InformerCacheTest, WithoutATransformTheCacheKeepsObjectsWhole) {
  client.set_listed({run("shop", "a", "p", 1)}, 1);
  InformerOptions o = options();
  o.transform = nullptr;
  Informer informer(client, o, handler);
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(kLimit)) << informer.last_error();
  EXPECT_EQ(informer.get({"shop", "a"}).value(), run("shop", "a", "p", 1));
  informer.stop();
}

// The cache keeps objects encoded (CBOR), not as DOMs: every read gives back the object as it was
// listed or watched, value types included; a relist still tells the handler only of what changed.
TEST_F(InformerCacheTest, ObjectsReadBackAsTheyCameAndARelistHearsOnlyChangedVersions) {
  Json odd = run("shop", "odd", "p", 1);
  odd["status"] = {{"negative", -3},         {"big", 18446744073709551615ULL},
                   {"ratio", 0.1},           {"ok", true},
                   {"none", nullptr},        {"text", "caf\u00e9 \u2713 \"quoted\"\n"},
                   {"empty", Json::array()}, {"nested", {{"list", {1, "two", 3.5, Json::object()}}}}};
  client.set_listed({odd, run("shop", "same", "p", 2)}, 2);
  Informer informer(client, options(), handler);
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(kLimit)) << informer.last_error();
  Json stripped = odd;
  strip_unread_members(stripped);
  const Json got = informer.get({"shop", "odd"}).value();
  EXPECT_EQ(got, stripped) << got.dump();
  EXPECT_TRUE(got["status"]["negative"].is_number_integer());
  EXPECT_TRUE(got["status"]["big"].is_number_unsigned());
  EXPECT_TRUE(got["status"]["ratio"].is_number_float());
  EXPECT_EQ(informer.list().front(), stripped);
  EXPECT_EQ(informer.by_index(kIndex, "p", "shop").value().front(), stripped);

  // Relisted: odd changed (a new resourceVersion), same did not, zz is new (heard last: the
  // handler hears a relist's changes in key order).
  Json changed = odd;
  changed["metadata"]["resourceVersion"] = "3";
  client.set_listed({changed, run("shop", "same", "p", 2), run("shop", "zz", "p", 3)}, 3);
  {
    std::lock_guard lock(heard_mutex);
    heard.clear();
  }
  client.send({WatchEvent::Type::error, {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}}});
  auto heard_names = [&] {
    std::lock_guard lock(heard_mutex);
    return names(heard);
  };
  ASSERT_TRUE(eventually(kLimit, [&] { return heard_names().ends_with("shop/zz"); })) << heard_names();
  EXPECT_EQ(heard_names(), "shop/odd,shop/zz") << "same kept its resourceVersion: not heard";
  std::lock_guard lock(heard_mutex);
  EXPECT_EQ(heard.front()["metadata"]["resourceVersion"], "3");
}

TEST(StripUnreadMembers, LeavesOtherShapesAlone) {
  Json no_metadata = {{"kind", "Status"}};
  strip_unread_members(no_metadata);
  EXPECT_EQ(no_metadata, Json({{"kind", "Status"}}));
  Json odd = {{"metadata", {{"annotations", "not an object"}, {"managedFields", 1}}}};
  strip_unread_members(odd);
  EXPECT_EQ(odd, Json({{"metadata", {{"annotations", "not an object"}}}}));
  Json scalar = 3;
  strip_unread_members(scalar);
  EXPECT_EQ(scalar, 3);
}

}  // namespace
}  // namespace ods::kube
