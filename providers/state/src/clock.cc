#include "ods/state/clock.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace ods::state {

Clock system_clock() {
  return [] {
    const auto now = std::chrono::system_clock::now();
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
    const std::time_t seconds = static_cast<std::time_t>(micros / 1'000'000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[96];  // roomy: the compiler can't bound tm's fields
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06uZ", utc.tm_year + 1900, utc.tm_mon + 1,
                  utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<unsigned>(micros % 1'000'000));
    return std::string(text);
  };
}

}  // namespace ods::state
