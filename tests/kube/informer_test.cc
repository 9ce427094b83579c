// The Informer on a real kube-apiserver: it lists, then follows creates, updates and deletes;
// after a watch outage during which etcd was compacted it gets 410, relists, tells the handler
// what it missed, and its cache ends equal to the server's list.
#include "ods/kube/informer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>

#include "kube/kube_client_fixture.h"

namespace ods::testing {
namespace {

using kube::ApiResult;
using kube::Informer;
using kube::WatchEvent;

// The real client, with watches that can be cut: while down, open watches end and new ones fail
// as Unreachable (a network outage between the operator and the API server).
class CuttableClient final : public kube::Client {
 public:
  explicit CuttableClient(kube::Client& real) : real_(real) {}
  void set_down(bool down) {
    std::lock_guard lock(mutex_);
    down_ = down;
    if (down)
      for (kube::WatchStream* stream : open_) stream->cancel();
  }

  ApiResult<Json> get(const kube::Resource& r, const kube::ObjectKey& k) override { return real_.get(r, k); }
  ApiResult<std::optional<Json>> find(const kube::Resource& r, const kube::ObjectKey& k) override {
    return real_.find(r, k);
  }
  ApiResult<Json> list(const kube::Resource& r, const std::string& ns, const kube::ListOptions& o) override {
    return real_.list(r, ns, o);
  }
  ApiResult<Json> create(const kube::Resource& r, const std::string& ns, const Json& o) override {
    return real_.create(r, ns, o);
  }
  ApiResult<Json> replace(const kube::Resource& r, const kube::ObjectKey& k, const Json& o,
                          kube::Subresource s) override {
    return real_.replace(r, k, o, s);
  }
  ApiResult<Json> merge_patch(const kube::Resource& r, const kube::ObjectKey& k, const Json& p,
                              kube::Subresource s) override {
    return real_.merge_patch(r, k, p, s);
  }
  ApiResult<Json> apply(const kube::Resource& r, const kube::ObjectKey& k, const Json& o, const std::string& m,
                        kube::Subresource s) override {
    return real_.apply(r, k, o, m, s);
  }
  ApiResult<bool> remove(const kube::Resource& r, const kube::ObjectKey& k) override { return real_.remove(r, k); }
  ApiResult<std::unique_ptr<kube::WatchStream>> watch(const kube::Resource& r, const std::string& ns,
                                                      const kube::WatchOptions& o) override {
    {
      std::lock_guard lock(mutex_);
      if (down_) return std::unexpected(kube::ApiError{0, "Unreachable", "the test cut the watches"});
    }
    auto stream = real_.watch(r, ns, o);
    if (!stream) return stream;
    return std::unique_ptr<kube::WatchStream>(std::make_unique<Tracked>(*this, std::move(*stream)));
  }

 private:
  class Tracked final : public kube::WatchStream {
   public:
    Tracked(CuttableClient& owner, std::unique_ptr<kube::WatchStream> inner) : owner_(owner), inner_(std::move(inner)) {
      std::lock_guard lock(owner_.mutex_);
      owner_.open_.insert(this);
      if (owner_.down_) inner_->cancel();
    }
    ~Tracked() override {
      std::lock_guard lock(owner_.mutex_);
      owner_.open_.erase(this);
    }
    ApiResult<std::optional<WatchEvent>> next() override { return inner_->next(); }
    void cancel() override { inner_->cancel(); }

   private:
    CuttableClient& owner_;
    std::unique_ptr<kube::WatchStream> inner_;
  };

  kube::Client& real_;
  std::mutex mutex_;
  bool down_ = false;
  std::set<kube::WatchStream*> open_;
};

// What the handler heard, as "<type> <name>" lines.
class Recorder {
 public:
  Informer::Handler handler() {
    return [this](WatchEvent::Type type, const Json& object) {
      static const char* kNames[] = {"added", "modified", "deleted", "bookmark", "error"};
      std::lock_guard lock(mutex_);
      heard_.push_back(std::string(kNames[int(type)]) + " " + object["metadata"]["name"].get<std::string>());
    };
  }
  bool heard(const std::string& line) const {
    std::lock_guard lock(mutex_);
    return std::find(heard_.begin(), heard_.end(), line) != heard_.end();
  }
  std::vector<std::string> all() const {
    std::lock_guard lock(mutex_);
    return heard_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> heard_;
};

class KubeInformerTest : public KubeClientTest {
 protected:
  // name -> data.key of the cache and of the server.
  static std::map<std::string, std::string> summary(const std::vector<Json>& objects) {
    std::map<std::string, std::string> out;
    for (const Json& o : objects) out[o["metadata"]["name"]] = o["data"].value("key", "");
    return out;
  }
  static std::map<std::string, std::string> server_summary(const std::string& ns) {
    auto listed = client().list(kConfigMaps, ns, {});
    EXPECT_TRUE(listed) << listed.error().message;
    if (!listed) return {};
    return summary((*listed)["items"].get<std::vector<Json>>());
  }
  static kube::InformerOptions options(const std::string& ns) {
    kube::InformerOptions o;
    o.resource = kConfigMaps;
    o.namespace_name = ns;
    o.watch_timeout = std::chrono::seconds(3);
    o.min_backoff = std::chrono::milliseconds(50);
    o.max_backoff = std::chrono::milliseconds(500);
    return o;
  }
};

TEST_F(KubeInformerTest, ListsThenFollowsCreatesUpdatesAndDeletes) {
  const std::string ns = make_namespace("informer");
  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("existing", "0")));
  Recorder recorder;
  Informer informer(client(), options(ns), recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(std::chrono::seconds(30))) << informer.last_error();
  EXPECT_TRUE(recorder.heard("added existing"));
  ASSERT_TRUE(informer.get({ns, "existing"}).has_value());

  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("a", "1")));
  ASSERT_TRUE(client().merge_patch(kConfigMaps, {ns, "a"}, {{"data", {{"key", "2"}}}}));
  ASSERT_TRUE(client().remove(kConfigMaps, {ns, "existing"}));
  ASSERT_TRUE(eventually([&] { return recorder.heard("deleted existing"); })) << Json(recorder.all()).dump();
  const std::vector<std::string> expected = {"added existing", "added a", "modified a", "deleted existing"};
  EXPECT_EQ(recorder.all(), expected);
  EXPECT_FALSE(informer.get({ns, "existing"}).has_value());
  EXPECT_EQ(informer.get({ns, "a"}).value()["data"]["key"], "2");
  EXPECT_EQ(summary(informer.list()), server_summary(ns));
  // The watches end every 3-5 s (watch_timeout) and are opened again from the last version.
  ASSERT_TRUE(eventually([&] { return informer.reconnects() >= 1; })) << informer.last_error();
  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("after-reconnect", "3")));
  ASSERT_TRUE(eventually([&] { return recorder.heard("added after-reconnect"); }));
  EXPECT_EQ(informer.relists(), 0U) << informer.last_error();
  informer.stop();
}

TEST_F(KubeInformerTest, AfterAnOutageAnd410ItRelistsAndReportsWhatItMissed) {
  const std::string ns = make_namespace("relist");
  for (const char* name : {"stays", "changes", "goes"})
    ASSERT_TRUE(client().create(kConfigMaps, ns, config_map(name, "0")));
  CuttableClient cuttable(client());
  Recorder recorder;
  Informer informer(cuttable, options(ns), recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(std::chrono::seconds(30))) << informer.last_error();

  cuttable.set_down(true);
  ASSERT_TRUE(eventually([&] { return informer.last_error().find("the test cut the watches") != std::string::npos; }));
  const std::string version_before = informer.resource_version();
  ASSERT_TRUE(client().merge_patch(kConfigMaps, {ns, "changes"}, {{"data", {{"key", "1"}}}}));
  ASSERT_TRUE(client().remove(kConfigMaps, {ns, "goes"}));
  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("new", "1")));
  ASSERT_FALSE(compact_etcd().empty());  // the informer's resourceVersion is now too old
  cuttable.set_down(false);

  ASSERT_TRUE(eventually([&] { return informer.relists() >= 1 && recorder.heard("added new"); }))
      << "relists " << informer.relists() << ", last error " << informer.last_error();
  EXPECT_NE(version_before, informer.resource_version());
  EXPECT_TRUE(recorder.heard("modified changes"));
  EXPECT_TRUE(recorder.heard("deleted goes"));
  EXPECT_FALSE(recorder.heard("modified stays")) << "an unchanged object is not reported again";
  EXPECT_EQ(summary(informer.list()), server_summary(ns));

  // And it follows the server again.
  ASSERT_TRUE(client().create(kConfigMaps, ns, config_map("later", "2")));
  ASSERT_TRUE(eventually([&] { return recorder.heard("added later"); }));
  EXPECT_EQ(summary(informer.list()), server_summary(ns));
  EXPECT_GE(informer.reconnects(), 1U);
}

}  // namespace
}  // namespace ods::testing
