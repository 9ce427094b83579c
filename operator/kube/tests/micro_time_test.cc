// micro_time(): the Lease's acquireTime/renewTime format (metav1.MicroTime).
#include <gtest/gtest.h>

#include "ods/kube/leader_election.h"

namespace ods::kube {
namespace {

TEST(MicroTimeTest, Rfc3339InUtcWithMicroseconds) {
  using namespace std::chrono;
  const system_clock::time_point t{seconds(1764469520) + microseconds(123456)};
  EXPECT_EQ(micro_time(t), "2025-11-30T02:25:20.123456Z");
  EXPECT_EQ(micro_time(system_clock::time_point{}), "1970-01-01T00:00:00.000000Z");
}

}  // namespace
}  // namespace ods::kube
