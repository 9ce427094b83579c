#include "ods/state/clock.h"

#include "ods/base/clock.h"

namespace ods::state {

Clock system_clock() {
  return [] { return format_iso8601(ods::system_clock().now()); };
}

}  // namespace ods::state
