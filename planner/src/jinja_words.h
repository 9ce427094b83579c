#pragma once
// Internal to the planner: the word-level helpers the two Jinja allow-lists share
// (jinja_purity.cc: the purity check; compile_key_names.cc: the compile key).
#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ods::planner::jinja {

// Whether `word` is one of `words`.
template <std::size_t N>
bool contains(const std::array<std::string_view, N>& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// 1-based line of byte `offset` of `text`.
inline std::size_t line_of(std::string_view text, std::size_t offset) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// The first maximal run of [A-Za-z0-9_] in `text` that is one of `words` (so `target_schema`
// is not `target`), or none. Case-sensitive, as Jinja names are; the whole text counts,
// comments included.
template <std::size_t N>
std::optional<std::string> first_listed_word(std::string_view text, const std::array<std::string_view, N>& words) {
  const auto is_word_byte = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_word_byte(text[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && is_word_byte(text[i])) ++i;
    const std::string_view word = text.substr(start, i - start);
    if (contains(words, word)) return std::string(word);
  }
  return std::nullopt;
}

}  // namespace ods::planner::jinja
