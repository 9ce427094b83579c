#pragma once
// The scan inside a JSON string of json/'s Reader, the one JSON tokenizer in ODS (providers/dbt's
// JsonReader pulls its tokens from it; ADR-0030): strings are most of an artifact's bytes, so
// this loop is most of the tokenizing time. Measured on the 50k-node manifest
// (docs/adr/0030-one-json-reader.md): 16 bytes at a time with SSE2 made json/'s validating skip
// 1.95x faster than a byte-table loop.
#include <cstddef>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ods::json {

// The first byte in [p, end) that ends a plain ASCII run inside a JSON string: '"', '\\', a
// control character (< 0x20) or a non-ASCII byte (>= 0x80, to be validated as UTF-8); `end`
// when there is none. 16 bytes at a time where SSE2 is available (every x86-64).
inline const char* find_string_special(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control_max = _mm_set1_epi8(0x1F);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i is_control = _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max);
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), is_control);
    const int mask = _mm_movemask_epi8(hit) | _mm_movemask_epi8(v);  // the second: bytes >= 0x80
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return p;
  }
  return end;
}

}  // namespace ods::json
