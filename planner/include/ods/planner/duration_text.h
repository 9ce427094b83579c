#pragma once
// Durations for the planner's sentences. Pure and thread-safe.
#include <cstdint>
#include <string>

namespace ods::planner {

// "2h 5m", "3d 4h", "45s": at most two units, the sign dropped.
std::string describe_duration(std::int64_t seconds);

}  // namespace ods::planner
