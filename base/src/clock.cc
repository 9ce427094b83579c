#include "ods/base/clock.h"

#include "ods/base/iso8601.h"

namespace ods {
namespace {

class SystemClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::system_clock::now(); }
};

}  // namespace

Clock& system_clock() {
  static SystemClock* clock = new SystemClock();
  return *clock;
}

std::string format_iso8601(TimePoint time) {
  return format_iso8601_micros(std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count());
}

}  // namespace ods
