// Formatting-insensitive SQL (ADR-0013 #209). See sql_normalizer.h for the contract.
//
// Tokens, in one left-to-right pass (linear in the input):
//   word      a maximal run of [A-Za-z0-9_.]; a run whose last dot-separated part starts
//             with a digit and ends in e/E swallows a following +/- and digits (1e-5),
//             so an exponent's sign is never split from its number.
//   operator  a maximal run of = < > + - * / % | : ! that stops before a comment
//             start (-- or /*), so `>=` and `> =` stay different.
//   punct     one of ( ) , ; on its own.
//   quoted    '...', "..." or `...` kept verbatim (all three quote the same way here).
//   hint      /*+ ... */ kept verbatim.
// Whitespace and other comments only separate tokens. Splitting never happens inside
// something a SQL lexer reads as one token; it may join more than a lexer would, which
// only makes two texts differ (more builds), never equal.
#include "ods/planner/sql_normalizer.h"

#include <cstdio>

namespace ods::planner {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_byte(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_'; }
bool is_operator_byte(char c) {
  switch (c) {
    case '=':
    case '<':
    case '>':
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
    case '|':
    case ':':
    case '!':
      return true;
    default:
      return false;
  }
}
bool is_punct(char c) { return c == '(' || c == ')' || c == ',' || c == ';'; }
bool is_quote(char c) { return c == '\'' || c == '"' || c == '`'; }
// ' and " delimit strings in some dialect (MySQL, BigQuery, Spark); ` never does.
bool may_be_string_quote(char c) { return c == '\'' || c == '"'; }

// "'[' at offset 17", "byte 0x00 at offset 3", "non-ASCII byte 0xc3 at offset 5".
std::string describe_byte(char c, std::size_t offset) {
  const auto byte = static_cast<unsigned char>(c);
  char buf[64];
  if (byte >= 0x80) {
    std::snprintf(buf, sizeof buf, "non-ASCII byte 0x%02x at offset %zu", byte, offset);
  } else if (byte < 0x20 || byte == 0x7f) {
    std::snprintf(buf, sizeof buf, "byte 0x%02x at offset %zu", byte, offset);
  } else {
    std::snprintf(buf, sizeof buf, "'%c' at offset %zu", c, offset);
  }
  return buf;
}

std::string at_offset(std::string_view what, std::size_t offset) {
  return std::string(what) + " at offset " + std::to_string(offset);
}

// One normalisation run over `sql_`. Each scan_* consumes one construct starting at pos_
// and returns false after recording why it gave up in failure_.
class Normalizer {
 public:
  explicit Normalizer(std::string_view sql) : sql_(sql) { out_.reserve(sql.size()); }

  NormalizedSql run() {
    while (pos_ < sql_.size() && scan_next()) {
    }
    if (!failure_.empty()) return {false, std::string(sql_), failure_};
    return {true, std::move(out_), {}};
  }

 private:
  char at(std::size_t i) const { return i < sql_.size() ? sql_[i] : '\0'; }

  bool fail(std::string why) {
    failure_ = std::move(why);
    return false;
  }

  // Appends one token; `string_literal` marks '...' and "..." for the adjacency rule.
  void emit(std::string_view token, bool string_literal) {
    if (!out_.empty()) out_ += ' ';
    out_ += token;
    last_was_string_literal_ = string_literal;
  }

  bool scan_next() {
    const char c = sql_[pos_];
    if (c == '\r' && at(pos_ + 1) != '\n') return fail(at_offset("'\\r' not followed by '\\n'", pos_));
    if (is_space(c)) {
      ++pos_;
      return true;
    }
    if (c == '-' && at(pos_ + 1) == '-') return scan_line_comment();
    if (c == '/' && at(pos_ + 1) == '*') return scan_block_comment();
    if (c == '/' && at(pos_ + 1) == '/') return fail(at_offset("'//'", pos_));
    if (is_quote(c)) return scan_quoted();
    if (is_word_byte(c) || c == '.') return scan_word();
    if (is_operator_byte(c)) return scan_operator();
    if (is_punct(c)) {
      emit(sql_.substr(pos_++, 1), false);
      return true;
    }
    return fail(describe_byte(c, pos_));
  }

  // "-- " up to the end of the line (or input). "--" must be followed by whitespace.
  bool scan_line_comment() {
    if (!is_space(at(pos_ + 2))) return fail(at_offset("'--' without a following space", pos_));
    for (pos_ += 2; pos_ < sql_.size() && sql_[pos_] != '\n'; ++pos_) {
      if (sql_[pos_] == '\r' && at(pos_ + 1) != '\n') {
        return fail(at_offset("'\\r' not followed by '\\n'", pos_));
      }
    }
    return true;
  }

  // "/* ... */", or a hint "/*+ ... */" which is kept verbatim. Gives up on an opening
  // followed by anything but whitespace, *, -, = or +, on a nested "/*", on a lone \r and
  // on a missing "*/".
  bool scan_block_comment() {
    const std::size_t start = pos_;
    const char first = at(start + 2);
    const bool hint = first == '+';
    if (start + 2 >= sql_.size()) return fail(at_offset("unterminated block comment", start));
    if (!hint && !is_space(first) && first != '*' && first != '-' && first != '=') {
      return fail("block comment starting with " + describe_byte(first, start + 2));
    }
    for (std::size_t i = start + 2; i < sql_.size(); ++i) {
      const char c = sql_[i];
      if (c == '*' && at(i + 1) == '/') {
        pos_ = i + 2;
        if (hint) emit(sql_.substr(start, pos_ - start), last_was_string_literal_);
        return true;
      }
      if (c == '/' && at(i + 1) == '*') return fail(at_offset("nested block comment", i));
      if (c == '\r' && at(i + 1) != '\n') return fail(at_offset("'\\r' not followed by '\\n'", i));
    }
    return fail(at_offset("unterminated block comment", start));
  }

  // A quoted literal or identifier, kept verbatim. Gives up on a quote touching a word or
  // another quote, a triple quote, a backslash or lone \r inside, a missing closing quote,
  // and on two string literals with only whitespace or comments between them.
  bool scan_quoted() {
    const std::size_t start = pos_;
    const char quote = sql_[start];
    if (start > 0 && is_word_byte(sql_[start - 1])) return fail(at_offset("quote touching a word", start));
    if (at(start + 1) == quote && at(start + 2) == quote) return fail(at_offset("triple quote", start));
    if (may_be_string_quote(quote) && last_was_string_literal_) {
      return fail(at_offset("two literals separated only by whitespace", start));
    }
    std::size_t i = start + 1;
    for (; i < sql_.size() && sql_[i] != quote; ++i) {
      if (sql_[i] == '\\') return fail(at_offset("backslash in quotes", i));
      if (sql_[i] == '\r' && at(i + 1) != '\n') return fail(at_offset("'\\r' not followed by '\\n'", i));
    }
    if (i >= sql_.size()) return fail(at_offset("unterminated quote", start));
    pos_ = i + 1;
    if (is_quote(at(pos_))) return fail(at_offset("quote touching another quote", pos_));
    if (is_word_byte(at(pos_))) return fail(at_offset("quote touching a word", pos_));
    emit(sql_.substr(start, pos_ - start), may_be_string_quote(quote));
    return true;
  }

  // A word: [A-Za-z0-9_.]+ plus an exponent's sign. Gives up on a '.' next to whitespace.
  bool scan_word() {
    const std::size_t start = pos_;
    std::size_t part_start = start;  // first byte after the last '.'
    std::size_t i = start;
    while (i < sql_.size()) {
      const char c = sql_[i];
      if (c == '.') {
        if ((i > 0 && is_space(sql_[i - 1])) || is_space(at(i + 1))) {
          return fail(at_offset("'.' next to whitespace", i));
        }
        part_start = i + 1;
        ++i;
      } else if (is_word_byte(c)) {
        ++i;
      } else if ((c == '+' || c == '-') && is_digit(at(i + 1)) && i > part_start && is_digit(sql_[part_start]) &&
                 (sql_[i - 1] == 'e' || sql_[i - 1] == 'E')) {
        i += 2;  // the exponent's sign and first digit: 1e-5
      } else {
        break;
      }
    }
    pos_ = i;
    emit(sql_.substr(start, i - start), false);
    return true;
  }

  // A maximal operator run, ending before "--" or "/*"; "//" gives up.
  bool scan_operator() {
    const std::size_t start = pos_;
    std::size_t i = start;
    while (i < sql_.size() && is_operator_byte(sql_[i])) {
      const char next = at(i + 1);
      if (i > start && sql_[i] == '-' && next == '-') break;
      if (i > start && sql_[i] == '/' && next == '*') break;
      if (sql_[i] == '/' && next == '/') return fail(at_offset("'//'", i));
      ++i;
    }
    pos_ = i;
    emit(sql_.substr(start, i - start), false);
    return true;
  }

  std::string_view sql_;
  std::size_t pos_ = 0;
  std::string out_;
  std::string failure_;
  bool last_was_string_literal_ = false;  // last token a '...' or "..." literal
};

}  // namespace

NormalizedSql normalize_sql(std::string_view sql) { return Normalizer(sql).run(); }

}  // namespace ods::planner
