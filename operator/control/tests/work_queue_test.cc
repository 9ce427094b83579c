#include "ods/control/work_queue.h"

#include <gtest/gtest.h>

#include <thread>

#include "fake_clock.h"
#include "harness/eventually.h"

namespace ods::control {
namespace {

using namespace std::chrono_literals;
using ods::testing::eventually;
using testing::FakeClock;

TEST(WorkQueue, AKeyAddedSeveralTimesIsQueuedOnce) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.add("ns/a");
  queue.add("ns/b");
  queue.add("ns/a");
  EXPECT_EQ(queue.depth(), 2u);
  EXPECT_EQ(queue.adds_total(), 2u);
  EXPECT_EQ(queue.try_get(), "ns/a");
  EXPECT_EQ(queue.try_get(), "ns/b");
  EXPECT_EQ(queue.try_get(), std::nullopt);
}

TEST(WorkQueue, AKeyBeingProcessedIsNotHandedOutAgainButRequeuedWhenDone) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.add("ns/a");
  ASSERT_EQ(queue.try_get(), "ns/a");
  queue.add("ns/a");  // changed while a worker processes it
  EXPECT_EQ(queue.try_get(), std::nullopt);
  EXPECT_EQ(queue.depth(), 0u);
  queue.done("ns/a");
  EXPECT_EQ(queue.try_get(), "ns/a");
  queue.done("ns/a");
  EXPECT_EQ(queue.try_get(), std::nullopt);  // not added again meanwhile: not requeued
}

TEST(WorkQueue, RateLimitedAddsBackOffExponentiallyUpToTheCap) {
  FakeClock clock;
  WorkQueue queue(clock);
  std::vector<std::chrono::milliseconds> delays;
  delays.reserve(20);
  for (int i = 0; i < 20; ++i) delays.push_back(queue.add_rate_limited("ns/a"));
  EXPECT_EQ(delays[0], 5ms);
  EXPECT_EQ(delays[1], 10ms);
  EXPECT_EQ(delays[2], 20ms);
  EXPECT_EQ(delays[10], 5120ms);
  EXPECT_EQ(delays[19], 1000s);
  EXPECT_EQ(queue.failures("ns/a"), 20);
  EXPECT_EQ(queue.retries_total(), 20u);
  queue.forget("ns/a");
  EXPECT_EQ(queue.failures("ns/a"), 0);
  EXPECT_EQ(queue.add_rate_limited("ns/a"), 5ms);
}

TEST(WorkQueue, AnOverallBucketSpacesRetriesAfterABurst) {
  FakeClock clock;
  WorkQueue queue(clock);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(queue.add_rate_limited("ns/k" + std::to_string(i)), 5ms);
  EXPECT_EQ(queue.add_rate_limited("ns/k100"), 100ms);  // the bucket is empty: 10 a second
  EXPECT_EQ(queue.add_rate_limited("ns/k101"), 200ms);
  clock.advance(10s);  // refilled
  EXPECT_EQ(queue.add_rate_limited("ns/k102"), 5ms);
}

TEST(WorkQueue, ARateLimitedKeyComesBackOnlyAfterItsDelay) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.add_rate_limited("ns/a");
  queue.add_rate_limited("ns/a");  // the earlier due time (5 ms) wins
  EXPECT_EQ(queue.try_get(), std::nullopt);
  clock.advance(4ms);
  EXPECT_EQ(queue.try_get(), std::nullopt);
  clock.advance(1ms);
  EXPECT_EQ(queue.try_get(), "ns/a");
  queue.done("ns/a");
  clock.advance(10ms);
  EXPECT_EQ(queue.try_get(), std::nullopt);  // the 10 ms request merged into the 5 ms one
}

TEST(WorkQueue, AddAfterWaitsForTheDelayAndAnEarlierRequestWins) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.add_after("ns/a", 60s);
  queue.add_after("ns/a", 10s);
  queue.add_after("ns/b", 0ms);  // now
  EXPECT_EQ(queue.try_get(), "ns/b");
  clock.advance(9s);
  EXPECT_EQ(queue.try_get(), std::nullopt);
  clock.advance(1s);
  EXPECT_EQ(queue.depth(), 1u);
  EXPECT_EQ(queue.try_get(), "ns/a");
  queue.done("ns/a");
  clock.advance(60s);
  EXPECT_EQ(queue.try_get(), std::nullopt);
}

TEST(WorkQueue, ABlockedGetSeesADelayedKeyOnceTheClockMoves) {
  FakeClock clock;
  WorkQueue queue(clock, {.poll_interval = 5ms});
  queue.add_after("ns/a", 1h);
  std::optional<std::string> got;
  std::thread worker([&] { got = queue.get(); });
  clock.advance(1h);
  worker.join();
  EXPECT_EQ(got, "ns/a");
}

TEST(WorkQueue, ShutdownWakesWaitingWorkersAndIgnoresLaterAdds) {
  WorkQueue queue;
  std::vector<std::optional<std::string>> got(3, std::string("unset"));
  std::vector<std::thread> workers;
  workers.reserve(3);
  for (int i = 0; i < 3; ++i) workers.emplace_back([&, i] { got[static_cast<std::size_t>(i)] = queue.get(); });
  queue.shutdown();
  for (auto& worker : workers) worker.join();
  for (const auto& value : got) EXPECT_EQ(value, std::nullopt);
  queue.add("ns/a");
  EXPECT_TRUE(queue.shutting_down());
  EXPECT_EQ(queue.try_get(), std::nullopt);
}

TEST(WorkQueue, TwoWorkersNeverHoldTheSameKey) {
  WorkQueue queue;
  std::atomic<int> holding{0};
  std::atomic<bool> overlap{false};
  std::atomic<int> processed{0};
  auto work = [&] {
    while (auto key = queue.get()) {
      if (holding.fetch_add(1) != 0) overlap = true;
      std::this_thread::sleep_for(1ms);
      holding.fetch_sub(1);
      ++processed;
      queue.done(*key);
    }
  };
  std::thread first(work), second(work);
  for (int i = 0; i < 200; ++i) queue.add("ns/same");
  EXPECT_TRUE(eventually(30s, [&] { return queue.depth() == 0; })) << queue.depth() << " keys still queued";
  queue.shutdown();
  first.join();
  second.join();
  EXPECT_FALSE(overlap);
  EXPECT_GE(processed.load(), 1);
}

}  // namespace
}  // namespace ods::control
