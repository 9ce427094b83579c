// The StateStore conformance suite against a real PostgreSQL server (one fresh database per test).
#include <memory>

#include "ods/state/stores.h"
#include "pg_fixture.h"
#include "state_store_conformance.h"

namespace ods::state {
namespace {

using conformance::ConformanceTarget;
using conformance::ConformanceTargetName;
using conformance::ReopeningHarness;
using conformance::SharedStoreConformance;
using conformance::StateStoreConformance;
using conformance::StoreHarness;

std::unique_ptr<StoreHarness> make_postgres_harness(const Clock& clock) {
  return std::make_unique<ReopeningHarness>(
      [dsn = ods::testing::fresh_database(), &clock] { return open_postgres_store(dsn, clock); });
}

INSTANTIATE_TEST_SUITE_P(Stores, StateStoreConformance,
                         ::testing::Values(ConformanceTarget{"postgres", make_postgres_harness}),
                         ConformanceTargetName());
INSTANTIATE_TEST_SUITE_P(Stores, SharedStoreConformance,
                         ::testing::Values(ConformanceTarget{"postgres", make_postgres_harness}),
                         ConformanceTargetName());

}  // namespace
}  // namespace ods::state
