#pragma once
// Internal: character classes shared by the reader and the writer.
#include <array>
#include <cstddef>

#include "ods/json/utf8.h"

namespace ods::json::internal {

// Bytes a JSON string scan stops at ('"', '\\', control characters, non-ASCII).
inline constexpr std::array<bool, 256> kStringSpecial = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
  return t;
}();

using ods::json::utf8_sequence_length;

}  // namespace ods::json::internal
