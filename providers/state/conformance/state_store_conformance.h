#pragma once
// The StateStore conformance suite (contract state_store 0.6). Every implementation runs
// it: link ods::state_conformance and instantiate, e.g.
//
//   INSTANTIATE_TEST_SUITE_P(Sqlite, StateStoreConformance,
//                            ::testing::Values(ConformanceTarget{"sqlite", make_sqlite_harness}),
//                            ConformanceTargetName());
//
// A store whose data can be opened again by another handle (a file, a database) also
// instantiates SharedStoreConformance, the cross-handle tests, the same way.
//
// A harness owns one store under test (and whatever it lives in: a temp file, a database
// schema) and cleans it all up when destroyed.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>

#include "ods/base/clock.h"
#include "ods/contracts/state_store.h"

namespace ods::state::conformance {

class StoreHarness {
 public:
  virtual ~StoreHarness() = default;
  // The store under test: empty when the harness is made, stamping commits with the clock
  // the harness was made with. Owned by the harness.
  virtual ods::contracts::StateStore& store() = 0;
  // Another handle (connection) onto the same stored data, for SharedStoreConformance;
  // nullptr when the implementation has only one handle (the in-memory store), which then
  // instantiates only StateStoreConformance.
  virtual std::unique_ptr<ods::contracts::StateStore> open_another() = 0;
};

// The harness of a store kept somewhere it can be opened again (a file, a database): `open`
// returns a new handle onto the same data each time it is called. A failure to open throws
// std::runtime_error with the store's message. Whatever `open` captures (a temp directory)
// outlives every handle the harness holds.
class ReopeningHarness final : public StoreHarness {
 public:
  using Opener = std::function<ods::Result<std::unique_ptr<ods::contracts::StateStore>>()>;
  explicit ReopeningHarness(Opener open) : open_(std::move(open)), store_(open_store()) {}
  ods::contracts::StateStore& store() override { return *store_; }
  std::unique_ptr<ods::contracts::StateStore> open_another() override { return open_store(); }

 private:
  std::unique_ptr<ods::contracts::StateStore> open_store() {
    auto opened = open_();
    if (!opened) throw std::runtime_error(opened.error().message);
    return std::move(*opened);
  }

  Opener open_;
  std::unique_ptr<ods::contracts::StateStore> store_;  // destroyed before open_
};

struct ConformanceTarget {
  std::string name;  // a GoogleTest-safe name: letters, digits, underscores
  // Makes the harness over a store stamping with `clock`, which outlives the harness.
  std::function<std::unique_ptr<StoreHarness>(const ods::Clock& clock)> make_harness;
};

// GoogleTest prints a target by its name.
// NOLINTNEXTLINE(readability-identifier-naming): the name GoogleTest looks for
inline void PrintTo(const ConformanceTarget& target, std::ostream* out) { *out << target.name; }

// Names instantiated tests after ConformanceTarget::name.
struct ConformanceTargetName {
  std::string operator()(const ::testing::TestParamInfo<ConformanceTarget>& info) const { return info.param.name; }
};

class StateStoreConformance : public ::testing::TestWithParam<ConformanceTarget> {
 protected:
  void SetUp() override;
  ods::contracts::StateStore& store() { return harness_->store(); }
  StoreHarness& harness() { return *harness_; }
  // The timestamp the harness clock returns: a fixed one, so committed_at is checkable.
  static constexpr const char* kNow = "2026-10-04T12:00:00.000001Z";

 private:
  std::unique_ptr<StoreHarness> harness_;
};

// The cross-handle tests: concurrent committers on separate handles, one handle seeing
// another's commits. For stores whose harness's open_another() returns a handle.
class SharedStoreConformance : public StateStoreConformance {};

}  // namespace ods::state::conformance
