#pragma once
// Internal: bytes a JSON string scan stops at ('"', '\\', control characters, non-ASCII).
#include <array>

namespace ods::json::internal {

inline constexpr std::array<bool, 256> kStringSpecial = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
  return t;
}();

}  // namespace ods::json::internal
