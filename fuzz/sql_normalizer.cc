// Fuzz target: the SQL normaliser (planner/sql_normalizer.h). Beyond "no crash":
//   - giving up returns the input unchanged with a reason;
//   - normalising is idempotent: the normalised text normalises to itself (or, for a word
//     beginning or ending in `.` beside another token, gives up on that rule alone, returning
//     the same text);
//   - the token stream survives: the normalised text has the same tokens as the input (by an
//     independent tokenizer below), so two texts with different token streams never map to
//     one text (if N(a) == N(b) then tokens(a) == tokens(N(a)) == tokens(N(b)) == tokens(b));
//     an input holding a NUL byte is also split there and the halves compared directly.
#include "ods/planner/sql_normalizer.h"

#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}
bool is_operator(char c) { return std::string_view("=<>+-*/%|:!").find(c) != std::string_view::npos; }

// The tokens of a text the normaliser accepted, read independently of it (coarser classes: a
// word never includes an exponent's sign, which only makes this oracle stricter).
std::vector<std::string_view> tokens_of(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (is_space(c)) {
      ++i;
    } else if (s.substr(i, 2) == "--") {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.substr(i, 2) == "/*") {
      const std::size_t close = s.find("*/", i + 2);
      const std::size_t end = close == std::string_view::npos ? s.size() : close + 2;
      if (s.substr(i, 3) == "/*+") out.push_back(s.substr(i, end - i));
      i = end;
    } else if (c == '\'' || c == '"' || c == '`') {
      const std::size_t close = s.find(c, i + 1);
      const std::size_t end = close == std::string_view::npos ? s.size() : close + 1;
      out.push_back(s.substr(i, end - i));
      i = end;
    } else if (is_word(c)) {
      std::size_t j = i;
      while (j < s.size() && is_word(s[j])) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else if (is_operator(c)) {
      std::size_t j = i + 1;
      while (j < s.size() && is_operator(s[j]) && s.substr(j, 2) != "--" && s.substr(j, 2) != "/*") ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else {
      out.push_back(s.substr(i++, 1));  // ( ) , ;
    }
  }
  return out;
}

std::string show(const std::vector<std::string_view>& tokens) {
  std::string text;
  for (const std::string_view t : tokens) text.append("[").append(t).append("]");
  return text;
}

// Checks one text; returns its normalisation.
ods::planner::NormalizedSql check(std::string_view sql) {
  ods::planner::NormalizedSql once = ods::planner::normalize_sql(sql);
  if (!once.normalised) {
    ods::fuzz::require(once.text == sql, "giving up must return the input unchanged");
    ods::fuzz::require(!once.give_up.empty(), "giving up must say why");
    return once;
  }
  ods::fuzz::require(once.give_up.empty(), "a normalised text has no give-up reason");
  // The output joins every two tokens with a space, so a word that starts or ends with '.'
  // next to another token (`"db"."t".x` -> `"db" . "t" .x`) meets the documented
  // "'.' next to whitespace" give-up when normalised again: the text is the same either way
  // (giving up returns it unchanged), and no other reason to give up is allowed.
  const ods::planner::NormalizedSql twice = ods::planner::normalize_sql(once.text);
  const bool dot_rule = !twice.normalised && twice.give_up.starts_with("'.' next to whitespace");
  ods::fuzz::require(
      (twice.normalised || dot_rule) && twice.text == once.text, "normalising is not idempotent",
      "input: " + std::string(sql) + "\nonce:  " + once.text + "\ntwice: " + twice.text + "\nwhy:   " + twice.give_up);
  const auto in_tokens = tokens_of(sql);
  const auto out_tokens = tokens_of(once.text);
  ods::fuzz::require(in_tokens == out_tokens, "normalising changed the token stream",
                     "input: " + show(in_tokens) + "\noutput: " + show(out_tokens));
  return once;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = ods::fuzz::as_text(data, size);
  check(text);
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const std::string_view a = text.substr(0, nul);
    const std::string_view b = text.substr(nul + 1);
    const auto na = check(a);
    const auto nb = check(b);
    if (na.normalised && nb.normalised && na.text == nb.text) {
      ods::fuzz::require(tokens_of(a) == tokens_of(b), "two token streams normalise to one text",
                         "a: " + show(tokens_of(a)) + "\nb: " + show(tokens_of(b)));
    }
  }
  return 0;
}
