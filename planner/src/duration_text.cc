#include "ods/planner/duration_text.h"

namespace ods::planner {

std::string describe_duration(std::int64_t seconds) {
  if (seconds < 0) seconds = -seconds;
  const std::int64_t d = seconds / 86400, h = seconds / 3600 % 24, m = seconds / 60 % 60, s = seconds % 60;
  std::string out;
  auto add = [&out](std::int64_t v, const char* unit) {
    if (out.size() >= 6) return;  // two units are enough for a sentence
    if (!out.empty()) out += ' ';
    out += std::to_string(v) + unit;
  };
  if (d) add(d, "d");
  if (h) add(h, "h");
  if (m && !d) add(m, "m");
  if ((s && !d && !h) || (!d && !h && !m)) add(s, "s");
  return out;
}

}  // namespace ods::planner
