#pragma once
// What every reconciler test starts from: the fake API server, a clock the test sets and the
// event recorder that writes to that server. A fixture derives from it (after ::testing::Test)
// and adds its reconciler as a member, built from these three.
#include "fake_client.h"
#include "fake_clock.h"
#include "ods/control/events.h"

namespace ods::control::testing {

struct ReconcilerWorld {
  FakeClient client_;
  FakeClock clock_;
  EventRecorder events_{client_, clock_};
};

// The run reconciler's token issuer where the token's value does not matter.
inline std::string any_token(const Json& /*run*/) { return "token"; }

}  // namespace ods::control::testing
