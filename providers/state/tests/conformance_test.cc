// The StateStore conformance suite against the in-memory and SQLite stores.
#include <memory>

#include "ods/state/stores.h"
#include "state_store_conformance.h"
#include "test_support.h"

namespace ods::state {
namespace {

using conformance::ConformanceTarget;
using conformance::ConformanceTargetName;
using conformance::ReopeningHarness;
using conformance::SharedStoreConformance;
using conformance::StateStoreConformance;
using conformance::StoreHarness;

class MemoryHarness final : public StoreHarness {
 public:
  explicit MemoryHarness(const Clock& clock) : store_(make_memory_store(clock)) {}
  ods::contracts::StateStore& store() override { return *store_; }
  std::unique_ptr<ods::contracts::StateStore> open_another() override { return nullptr; }

 private:
  std::unique_ptr<ods::contracts::StateStore> store_;
};

// The database file lives in a temp directory the opener owns, so it outlives every handle.
std::unique_ptr<StoreHarness> make_sqlite_harness(const Clock& clock) {
  auto dir = std::make_shared<testing::TempDir>();
  return std::make_unique<ReopeningHarness>(
      [dir, path = dir->file(".ods/state.db"), &clock] { return open_sqlite_store(path, clock); });
}

INSTANTIATE_TEST_SUITE_P(Stores, StateStoreConformance,
                         ::testing::Values(ConformanceTarget{"memory",
                                                             [](const Clock& clock) {
                                                               return std::make_unique<MemoryHarness>(clock);
                                                             }},
                                           ConformanceTarget{"sqlite", make_sqlite_harness}),
                         ConformanceTargetName());
INSTANTIATE_TEST_SUITE_P(Stores, SharedStoreConformance,
                         ::testing::Values(ConformanceTarget{"sqlite", make_sqlite_harness}), ConformanceTargetName());

}  // namespace
}  // namespace ods::state
