#include "ods/json/writer.h"

#include <array>
#include <charconv>

#include "char_classes.h"

namespace ods::json {

namespace {

using internal::kStringSpecial;

constexpr std::size_t kFlushAt = std::size_t{1} << 16;

}  // namespace

void append_utf8(std::uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

void append_string(std::string_view s, std::string& out, Utf8 utf8) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!kStringSpecial[c]) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (utf8 == Utf8::pass_through) {
        ++i;
        continue;
      }
      const std::size_t n = internal::utf8_sequence_length(s.data() + i, s.data() + s.size());
      if (n == 0) {
        throw InvalidUtf8("invalid UTF-8 byte at index " + std::to_string(i) + " of a string to write as JSON");
      }
      i += n;
      continue;
    }
    out.append(s.data() + run, i - run);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
    }
    run = ++i;
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

Writer::Writer(std::string& out, int indent) : out_(&out), indent_(indent) {}

Writer::Writer(std::ostream& out, int indent) : out_(&buffer_), stream_(&out), indent_(indent) {
  buffer_.reserve(kFlushAt + 4096);
}

Writer::~Writer() {
  try {
    flush();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
  }
}

void Writer::flush() {
  if (stream_ == nullptr || buffer_.empty()) return;
  stream_->write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

void Writer::maybe_flush() {
  if (stream_ != nullptr && buffer_.size() >= kFlushAt) flush();
}

void Writer::newline_indent(std::size_t level) {
  out_->push_back('\n');
  out_->append(level * static_cast<std::size_t>(indent_), ' ');
}

void Writer::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& level = levels_.back();
  if (!level.array) throw std::logic_error("json::Writer: a value in an object needs a key first");
  if (!level.empty) out_->push_back(',');
  level.empty = false;
  if (indent_ >= 0) newline_indent(levels_.size());
}

Writer& Writer::key(std::string_view name) {
  if (levels_.empty() || levels_.back().array || after_key_)
    throw std::logic_error("json::Writer: a key outside an object or after another key");
  Level& level = levels_.back();
  if (!level.empty) out_->push_back(',');
  level.empty = false;
  if (indent_ >= 0) newline_indent(levels_.size());
  append_string(name, *out_);
  if (indent_ >= 0) {
    out_->append(": ");
  } else {
    out_->push_back(':');
  }
  after_key_ = true;
  return *this;
}

void Writer::open(char bracket, bool array) {
  before_value();
  out_->push_back(bracket);
  levels_.push_back({array, true});
}

void Writer::close(char bracket, bool array) {
  if (levels_.empty() || levels_.back().array != array || after_key_)
    throw std::logic_error("json::Writer: unbalanced end_object/end_array");
  const bool empty = levels_.back().empty;
  levels_.pop_back();
  if (!empty && indent_ >= 0) newline_indent(levels_.size());
  out_->push_back(bracket);
  maybe_flush();
}

Writer& Writer::begin_object() {
  open('{', false);
  return *this;
}
Writer& Writer::end_object() {
  close('}', false);
  return *this;
}
Writer& Writer::begin_array() {
  open('[', true);
  return *this;
}
Writer& Writer::end_array() {
  close(']', true);
  return *this;
}

Writer& Writer::string(std::string_view value) {
  before_value();
  append_string(value, *out_);
  return *this;
}

Writer& Writer::integer(std::int64_t value) {
  before_value();
  std::array<char, 24> digits{};
  const auto written = std::to_chars(digits.data(), digits.data() + digits.size(), value);
  out_->append(digits.data(), written.ptr);
  return *this;
}

Writer& Writer::boolean(bool value) {
  before_value();
  out_->append(value ? "true" : "false");
  return *this;
}

Writer& Writer::null() {
  before_value();
  out_->append("null");
  return *this;
}

}  // namespace ods::json
