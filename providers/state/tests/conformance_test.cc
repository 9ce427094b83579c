// The StateStore conformance suite against the in-memory and SQLite stores.
#include <string>

#include "ods/state/stores.h"
#include "state_store_conformance.h"
#include "test_support.h"

namespace ods::state {
namespace {

using conformance::ConformanceTarget;
using conformance::ConformanceTargetName;
using conformance::StateStoreConformance;
using conformance::StoreHarness;
using conformance::TestClock;

class MemoryHarness final : public StoreHarness {
 public:
  explicit MemoryHarness(TestClock clock) : store_(make_memory_store(std::move(clock))) {}
  ods::contracts::StateStore& store() override { return *store_; }
  std::unique_ptr<ods::contracts::StateStore> open_another() override { return nullptr; }

 private:
  std::unique_ptr<ods::contracts::StateStore> store_;
};

class SqliteHarness final : public StoreHarness {
 public:
  explicit SqliteHarness(TestClock clock) : clock_(std::move(clock)), path_(dir_.file(".ods/state.db")) {
    store_ = open();
  }
  ods::contracts::StateStore& store() override { return *store_; }
  std::unique_ptr<ods::contracts::StateStore> open_another() override { return open(); }

 private:
  std::unique_ptr<ods::contracts::StateStore> open() {
    auto opened = open_sqlite_store(path_, clock_);
    if (!opened) throw std::runtime_error(opened.error().message);
    return std::move(*opened);
  }

  testing::TempDir dir_;
  TestClock clock_;
  std::string path_;
  std::unique_ptr<ods::contracts::StateStore> store_;  // destroyed before dir_
};

INSTANTIATE_TEST_SUITE_P(
    Stores, StateStoreConformance,
    ::testing::Values(
        ConformanceTarget{"memory", [](TestClock clock) { return std::make_unique<MemoryHarness>(std::move(clock)); }},
        ConformanceTarget{"sqlite", [](TestClock clock) { return std::make_unique<SqliteHarness>(std::move(clock)); }}),
    ConformanceTargetName());

}  // namespace
}  // namespace ods::state
