// ThreadedSink (internal; src/threaded_sink.h): entries prepared on several workers reach
// the consumer in stream order, each with what was prepared for it; a stop is honoured.
#include "threaded_sink.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace ods::dbt::internal {
namespace {

class RecordingSink final : public PreparingSink {
 public:
  explicit RecordingSink(std::size_t stop_at = SIZE_MAX, std::size_t throw_at = SIZE_MAX)
      : stop_at_(stop_at), throw_at_(throw_at) {}

  Keep keep_key(std::size_t, const EntrySoFar&, std::string_view) const override { return Keep::build; }
  std::any prepare(std::size_t, const std::string& key, const Json&, const RawMembers&) const override {
    if (std::stoul(key) == throw_at_) throw std::runtime_error("prepare failed");
    return "prepared " + key;
  }
  bool on_prepared(std::size_t, std::string&& key, Json&& entry, const RawMembers&, std::any&& prepared) override {
    delivered.push_back(key);
    prepared_for.push_back(std::any_cast<std::string>(prepared));
    values.push_back(entry.get<int>());
    return delivered.size() < stop_at_;
  }
  bool on_value(std::size_t, Json&& value) override {
    delivered.push_back("value " + value.dump());
    return true;
  }
  bool on_entry(std::size_t, std::string&&, Json&&, const RawMembers&) override { return false; }

  std::vector<std::string> delivered, prepared_for;
  std::vector<int> values;

 private:
  std::size_t stop_at_, throw_at_;
};

TEST(ThreadedSink, DeliversInStreamOrderWhatWasPreparedForEachEntry) {
  RecordingSink consumer;
  ThreadedSink sink(consumer, 2);
  EXPECT_TRUE(sink.on_value(0, Json("meta")));
  constexpr int kEntries = 5000;
  for (int i = 0; i < kEntries; ++i) ASSERT_TRUE(sink.on_entry(1, std::to_string(i), Json(i), {}));
  sink.finish();
  ASSERT_EQ(consumer.delivered.size(), kEntries + 1u);
  EXPECT_EQ(consumer.delivered[0], "value \"meta\"");
  for (int i = 0; i < kEntries; ++i) {
    ASSERT_EQ(consumer.delivered[i + 1], std::to_string(i));
    ASSERT_EQ(consumer.prepared_for[i], "prepared " + std::to_string(i));
    ASSERT_EQ(consumer.values[i], i);
  }
}

TEST(ThreadedSink, NothingIsDeliveredAfterTheConsumerStops) {
  RecordingSink consumer(/*stop_at=*/100);
  ThreadedSink sink(consumer, 2);
  bool accepted = true;
  for (int i = 0; i < 5000 && accepted; ++i) accepted = sink.on_entry(1, std::to_string(i), Json(i), {});
  sink.finish();
  EXPECT_FALSE(sink.on_entry(1, "late", Json(0), {}));
  ASSERT_EQ(consumer.delivered.size(), 100u);
  EXPECT_EQ(consumer.delivered.back(), "99");
}

TEST(ThreadedSink, AnExceptionWhilePreparingIsRethrownByFinish) {
  RecordingSink consumer(SIZE_MAX, /*throw_at=*/777);
  ThreadedSink sink(consumer, 2);
  for (int i = 0; i < 2000; ++i) {
    if (!sink.on_entry(1, std::to_string(i), Json(i), {})) break;
  }
  EXPECT_THROW(sink.finish(), std::runtime_error);
  EXPECT_LT(consumer.delivered.size(), 777u + 64u);
}

// The text before an offset is reported done only once every entry read before that offset
// was delivered, in order, never going back.
TEST(ThreadedSink, TextIsReportedDoneOnlyBehindWhatWasDelivered) {
  RecordingSink consumer;
  std::vector<std::pair<std::size_t, std::size_t>> done;  // (offset, entries delivered then)
  ThreadedSink sink(consumer, 2, [&](std::size_t offset) { done.emplace_back(offset, consumer.delivered.size()); });
  constexpr int kEntries = 3000;
  for (int i = 0; i < kEntries; ++i) {
    ASSERT_TRUE(sink.on_entry(1, std::to_string(i), Json(i), {}));
    sink.on_read_up_to(static_cast<std::size_t>(i + 1) * 100);  // entry i ends at byte (i + 1) * 100
  }
  sink.finish();
  ASSERT_FALSE(done.empty());
  std::size_t last = 0;
  for (const auto& [offset, delivered] : done) {
    EXPECT_GE(offset, last);
    last = offset;
    EXPECT_GE(delivered * 100, offset) << "reported done up to byte " << offset << " with " << delivered
                                       << " entries delivered";
  }
  EXPECT_EQ(done.back().first, kEntries * 100u);  // the last batch: everything
}

TEST(ThreadedSink, NoTextIsReportedDoneAfterTheConsumerStops) {
  RecordingSink consumer(/*stop_at=*/100);
  std::size_t calls_after_stop = 0;
  ThreadedSink sink(consumer, 2, [&](std::size_t) { calls_after_stop += consumer.delivered.size() >= 100 ? 1 : 0; });
  for (int i = 0; i < 1000; ++i) {
    if (!sink.on_entry(1, std::to_string(i), Json(i), {})) break;
    sink.on_read_up_to(static_cast<std::size_t>(i + 1) * 100);
  }
  sink.finish();
  EXPECT_EQ(calls_after_stop, 0u);
}

}  // namespace
}  // namespace ods::dbt::internal
