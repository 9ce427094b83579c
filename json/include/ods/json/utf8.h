#pragma once
// UTF-8 validation shared by every JSON reader and writer in ODS (json/, providers/dbt):
// JSON text is UTF-8 (RFC 8259), and nlohmann's dump, which the snapshots are written
// with, throws on anything else, so a reader must refuse invalid bytes where it reads them.
#include <cstddef>

namespace ods::json {

// The length of the valid UTF-8 sequence starting at p (< end, a byte >= 0x80), or 0 when it
// is not valid: overlong forms, surrogates, code points above U+10FFFF and truncated
// sequences are refused (RFC 3629).
inline std::size_t utf8_sequence_length(const char* p, const char* end) {
  const auto b0 = static_cast<unsigned char>(p[0]);
  std::size_t extra = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    extra = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    extra = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    extra = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (static_cast<std::size_t>(end - p) <= extra) return 0;
  for (std::size_t k = 1; k <= extra; ++k) {
    const auto b = static_cast<unsigned char>(p[k]);
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return 0;
  }
  return extra + 1;
}

}  // namespace ods::json
