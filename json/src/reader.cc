#include "ods/json/reader.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "char_classes.h"
#include "ods/json/string_scan.h"
#include "ods/json/writer.h"

namespace ods::json {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

SyntaxError::SyntaxError(std::size_t offset, std::string path, const std::string& problem)
    : std::runtime_error("at byte " + std::to_string(offset) + (path.empty() ? "" : " (in " + path + ")") + ": " +
                         problem),
      offset_(offset),
      path_(std::move(path)),
      problem_(problem) {}

Reader::Reader(std::string_view text)
    : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), levels_(kMaxDepth + 1) {
  if (text.starts_with("\xEF\xBB\xBF")) p_ += 3;  // a UTF-8 byte order mark, skipped as nlohmann does
}

void Reader::reset(std::string_view text) {
  begin_ = p_ = text.data();
  end_ = text.data() + text.size();
  depth_ = 0;
  if (text.starts_with("\xEF\xBB\xBF")) p_ += 3;
}

void Reader::fail(const std::string& problem) const { throw SyntaxError(offset(), path(), problem); }

std::string Reader::path() const {
  std::string out;
  for (std::size_t d = 1; d <= depth_; ++d) {
    const Level& level = levels_[d];
    if (level.first) break;  // nothing read in it yet
    if (level.array) {
      out += "[" + std::to_string(level.index) + "]";
    } else {
      if (!out.empty()) out += '.';
      out += level.key;
    }
  }
  return out;
}

void Reader::ws() {
  while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
}

char Reader::next_char() {
  ws();
  return p_ < end_ ? *p_ : '\0';
}

void Reader::expect(char c, const char* what) {
  if (next_char() != c)
    fail(p_ < end_ ? std::string("expected ") + what : std::string("unexpected end of text, expected ") + what);
  ++p_;
}

Type Reader::peek() {
  switch (next_char()) {
    case '{':
      return Type::object;
    case '[':
      return Type::array;
    case '"':
      return Type::string;
    case 't':
    case 'f':
      return Type::boolean;
    case 'n':
      return Type::null;
    case '-':
      return Type::number;
    default:
      if (p_ < end_ && is_digit(*p_)) return Type::number;
      fail(p_ < end_ ? "expected a value" : "unexpected end of text, expected a value");
  }
}

void Reader::push(bool array) {
  if (depth_ + 1 >= levels_.size()) fail("nesting deeper than " + std::to_string(kMaxDepth));
  Level& level = levels_[++depth_];
  level.array = array;
  level.first = true;
  level.index = 0;
  level.key = {};
}

void Reader::begin_object() {
  expect('{', "an object");
  push(false);
}

void Reader::begin_array() {
  expect('[', "an array");
  push(true);
}

bool Reader::next_member(std::string_view& key) {
  Level& level = levels_[depth_];
  if (depth_ == 0 || level.array) fail("next_member outside an object");
  const char c = next_char();
  if (c == '}' && level.first) {
    ++p_;
    --depth_;
    return false;
  }
  if (!level.first) {
    if (c == '}') {
      ++p_;
      --depth_;
      return false;
    }
    if (c != ',') fail(p_ < end_ ? "expected ',' or '}'" : "unexpected end of text, expected ',' or '}'");
    ++p_;
    if (next_char() != '"') fail("expected a member name");
  } else if (c != '"') {
    fail(p_ < end_ ? "expected a member name or '}'" : "unexpected end of text, expected a member name or '}'");
  }
  std::string_view name = read_string_token();
  if (name.data() == scratch_.data() && !name.empty()) {  // decoded: keep a stable copy
    level.owned.assign(name);
    name = level.owned;
  }
  level.key = name;
  level.first = false;
  expect(':', "':'");
  key = name;
  return true;
}

bool Reader::next_element() {
  Level& level = levels_[depth_];
  if (depth_ == 0 || !level.array) fail("next_element outside an array");
  const char c = next_char();
  if (c == ']') {
    ++p_;
    --depth_;
    return false;
  }
  if (!level.first) {
    if (c != ',') fail(p_ < end_ ? "expected ',' or ']'" : "unexpected end of text, expected ',' or ']'");
    ++p_;
    ++level.index;
  }
  level.first = false;
  if (next_char() == ']') fail("expected a value after ','");
  return true;
}

std::string_view Reader::string_view() {
  if (next_char() != '"') fail(p_ < end_ ? "expected a string" : "unexpected end of text, expected a string");
  return read_string_token();
}

std::string_view Reader::read_string_token() {
  const char* start = ++p_;  // past the opening quote
  const char* p = start;
  for (;;) {  // fast path: no escapes
    p = find_string_special(p, end_);
    if (p >= end_) {
      p_ = p;
      fail("unterminated string");
    }
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"') {
      p_ = p + 1;
      return {start, static_cast<std::size_t>(p - start)};
    }
    if (c >= 0x80) {
      p_ = p;
      p = check_utf8(p);
      continue;
    }
    break;  // an escape or a control character
  }
  scratch_.assign(start, p);
  for (;;) {
    const char* run = p;
    p = find_string_special(p, end_);
    scratch_.append(run, p);
    p_ = p;
    if (p >= end_) fail("unterminated string");
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"') {
      p_ = p + 1;
      return scratch_;
    }
    if (c >= 0x80) {
      const char* after = check_utf8(p);
      scratch_.append(p, after);
      p = after;
    } else if (c == '\\') {
      decode_escape(scratch_);
      p = p_;
    } else {
      fail("control character in a string (must be escaped)");
    }
  }
}

const char* Reader::check_utf8(const char* p) {
  p_ = p;
  const std::size_t n = internal::utf8_sequence_length(p, end_);
  if (n == 0) fail("invalid UTF-8 in a string");
  return p + n;
}

unsigned Reader::read_hex4() {
  if (end_ - p_ < 4) fail("truncated \\u escape");
  unsigned v = 0;
  for (int i = 0; i < 4; ++i, ++p_) {
    const char c = *p_;
    v <<= 4;
    if (is_digit(c))
      v |= static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= static_cast<unsigned>(c - 'A' + 10);
    else
      fail("invalid \\u escape (expected 4 hex digits)");
  }
  return v;
}

void Reader::decode_escape(std::string& out) {
  ++p_;  // the backslash
  if (p_ >= end_) fail("unterminated string");
  const char c = *p_++;
  switch (c) {
    case '"':
      out.push_back('"');
      return;
    case '\\':
      out.push_back('\\');
      return;
    case '/':
      out.push_back('/');
      return;
    case 'b':
      out.push_back('\b');
      return;
    case 'f':
      out.push_back('\f');
      return;
    case 'n':
      out.push_back('\n');
      return;
    case 'r':
      out.push_back('\r');
      return;
    case 't':
      out.push_back('\t');
      return;
    case 'u': {
      unsigned cp = read_hex4();
      if (cp >= 0xDC00 && cp <= 0xDFFF) fail("lone low surrogate in a \\u escape");
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') fail("high surrogate without its low surrogate");
        p_ += 2;
        const unsigned low = read_hex4();
        if (low < 0xDC00 || low > 0xDFFF) fail("high surrogate without its low surrogate");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      }
      append_utf8(cp, out);
      return;
    }
    default:
      --p_;
      fail(std::string("invalid escape '\\") + c + "'");
  }
}

void Reader::read_literal(std::string_view word) {
  if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
    fail("invalid literal (expected " + std::string(word) + ")");
  p_ += word.size();
}

bool Reader::boolean() {
  const char c = next_char();
  if (c == 't') {
    read_literal("true");
    return true;
  }
  if (c == 'f') {
    read_literal("false");
    return false;
  }
  fail("expected true or false");
}

void Reader::null() {
  if (next_char() != 'n') fail("expected null");
  read_literal("null");
}

std::string_view Reader::number_text() {
  ws();
  const char* start = p_;
  const char* p = p_;
  if (p < end_ && *p == '-') ++p;
  if (p >= end_ || !is_digit(*p)) {
    p_ = p;
    fail("expected a number");
  }
  if (*p == '0') {
    ++p;
  } else {
    while (p < end_ && is_digit(*p)) ++p;
  }
  if (p < end_ && *p == '.') {
    ++p;
    if (p >= end_ || !is_digit(*p)) {
      p_ = p;
      fail("expected a digit after '.'");
    }
    while (p < end_ && is_digit(*p)) ++p;
  }
  bool exponent = false;
  if (p < end_ && (*p == 'e' || *p == 'E')) {
    exponent = true;
    ++p;
    if (p < end_ && (*p == '+' || *p == '-')) ++p;
    if (p >= end_ || !is_digit(*p)) {
      p_ = p;
      fail("expected a digit in the exponent");
    }
    while (p < end_ && is_digit(*p)) ++p;
  }
  const std::string_view text(start, static_cast<std::size_t>(p - start));
  // As nlohmann: a number beyond the range of a double (e.g. 1e400) is an error.
  if ((exponent || text.size() > 300) && std::isinf(std::strtod(std::string(text).c_str(), nullptr))) {
    p_ = start;
    fail("number out of range");
  }
  p_ = p;
  return text;
}

std::int64_t Reader::integer() {
  const char* start = (ws(), p_);
  const std::string_view text = number_text();
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    p_ = start;
    fail("expected an integer (int64)");
  }
  return v;
}

void Reader::skip() {
  switch (peek()) {
    case Type::object: {
      begin_object();
      std::string_view key;
      while (next_member(key)) skip();
      return;
    }
    case Type::array:
      begin_array();
      while (next_element()) skip();
      return;
    case Type::string:
      read_string_token();
      return;
    case Type::number:
      number_text();
      return;
    case Type::boolean:
      boolean();
      return;
    case Type::null:
      null();
      return;
  }
}

void Reader::finish() {
  if (depth_ != 0) fail("finish() inside an open object or array");
  ws();
  if (p_ != end_) fail("unexpected data after the JSON value");
}

}  // namespace ods::json
