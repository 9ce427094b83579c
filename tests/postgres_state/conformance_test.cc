// The StateStore conformance suite against a real PostgreSQL server (one fresh database per test).
#include <stdexcept>

#include "ods/state/stores.h"
#include "pg_fixture.h"
#include "state_store_conformance.h"

namespace ods::state {
namespace {

using conformance::ConformanceTarget;
using conformance::ConformanceTargetName;
using conformance::StateStoreConformance;
using conformance::StoreHarness;
using conformance::TestClock;

class PostgresHarness final : public StoreHarness {
 public:
  explicit PostgresHarness(TestClock clock) : clock_(std::move(clock)), dsn_(ods::testing::fresh_database()) {
    store_ = open();
  }
  ods::contracts::StateStore& store() override { return *store_; }
  std::unique_ptr<ods::contracts::StateStore> open_another() override { return open(); }

 private:
  std::unique_ptr<ods::contracts::StateStore> open() {
    auto opened = open_postgres_store(dsn_, clock_);
    if (!opened) throw std::runtime_error(opened.error().message);
    return std::move(*opened);
  }

  TestClock clock_;
  std::string dsn_;
  std::unique_ptr<ods::contracts::StateStore> store_;
};

INSTANTIATE_TEST_SUITE_P(Stores, StateStoreConformance,
                         ::testing::Values(ConformanceTarget{
                             "postgres",
                             [](TestClock clock) { return std::make_unique<PostgresHarness>(std::move(clock)); }}),
                         ConformanceTargetName());

}  // namespace
}  // namespace ods::state
