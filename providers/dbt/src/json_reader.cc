#include "json_reader.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>

#include "ods/json/canonical.h"
#include "ods/json/reader.h"
#include "ods/json/string_scan.h"
#include "ods/json/utf8.h"
#include "ods/json/writer.h"

namespace ods::dbt::internal {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void append_json_string(std::string_view s, std::string& out) {
  ods::json::append_string(s, out, ods::json::Utf8::pass_through);  // the text was read as JSON
}

JsonReader::JsonReader(std::string_view text, std::string_view file)
    : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), file_(file) {}

void JsonReader::reset(std::string_view text, std::string_view file) {
  begin_ = p_ = text.data();
  end_ = text.data() + text.size();
  file_ = file;
  context_.clear();
  error_.reset();
  for (auto& members : scratch_) members->clear();
}

bool JsonReader::syntax_error(std::string_view what) {
  if (!error_) {
    std::string where;
    if (!context_.empty()) where = " (reading " + context_ + ")";
    error_ = Error{"invalid_artifact", std::string(file_) + ": not valid JSON at byte " + std::to_string(p_ - begin_) +
                                           where + ": " + std::string(what)};
  }
  return false;
}

void JsonReader::ws() {
  while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
}

bool JsonReader::consume(char c) {
  ws();
  if (p_ < end_ && *p_ == c) {
    ++p_;
    return true;
  }
  return false;
}

bool JsonReader::expect(char c) {
  if (consume(c)) return true;
  return syntax_error(p_ >= end_ ? std::string("unexpected end of input, expected '") + c + "'"
                                 : std::string("expected '") + c + "'");
}

char JsonReader::peek() {
  ws();
  return p_ < end_ ? *p_ : '\0';
}

bool JsonReader::read_hex4(unsigned& out) {
  if (end_ - p_ < 4) return syntax_error("truncated \\u escape");
  out = 0;
  for (int i = 0; i < 4; ++i) {
    const int v = hex_value(p_[i]);
    if (v < 0) return syntax_error("invalid \\u escape");
    out = out * 16 + static_cast<unsigned>(v);
  }
  p_ += 4;
  return true;
}

bool JsonReader::read_escape(std::string* out) {
  if (p_ >= end_) return syntax_error("unterminated string");
  const char c = *p_++;
  char plain = 0;
  switch (c) {
    case '"':
      plain = '"';
      break;
    case '\\':
      plain = '\\';
      break;
    case '/':
      plain = '/';
      break;
    case 'b':
      plain = '\b';
      break;
    case 'f':
      plain = '\f';
      break;
    case 'n':
      plain = '\n';
      break;
    case 'r':
      plain = '\r';
      break;
    case 't':
      plain = '\t';
      break;
    case 'u': {
      unsigned unit = 0;
      if (!read_hex4(unit)) return false;
      std::uint32_t cp = unit;
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        unsigned low = 0;
        if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return syntax_error("unpaired surrogate in \\u escape");
        p_ += 2;
        if (!read_hex4(low)) return false;
        if (low < 0xDC00 || low > 0xDFFF) return syntax_error("unpaired surrogate in \\u escape");
        cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
      } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
        return syntax_error("unpaired surrogate in \\u escape");
      }
      if (out != nullptr) ods::json::append_utf8(cp, *out);
      return true;
    }
    default:
      --p_;
      return syntax_error("invalid escape in string");
  }
  if (out != nullptr) out->push_back(plain);
  return true;
}

bool JsonReader::read_string(std::string* out) {
  if (p_ >= end_ || *p_ != '"') return syntax_error("expected a string");
  ++p_;
  const char* run = p_;
  while (p_ < end_) {
    p_ = json::find_string_special(p_, end_);
    if (p_ == end_) break;
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      if (out != nullptr) out->append(run, static_cast<std::size_t>(p_ - run));
      ++p_;
      return true;
    }
    if (c == '\\') {
      if (out != nullptr) out->append(run, static_cast<std::size_t>(p_ - run));
      ++p_;
      if (!read_escape(out)) return false;
      run = p_;
      continue;
    }
    if (c >= 0x80) {  // kept as is when valid: nlohmann's dump of the snapshot throws on invalid UTF-8
      const std::size_t n = ods::json::utf8_sequence_length(p_, end_);
      if (n == 0) return syntax_error("invalid UTF-8 in string");
      p_ += n;
      continue;
    }
    return syntax_error("control character in string");
  }
  return syntax_error("unterminated string");
}

bool JsonReader::read_number(Json* out) {
  const char* start = p_;
  bool integral = true;
  if (p_ < end_ && *p_ == '-') ++p_;
  if (p_ >= end_ || *p_ < '0' || *p_ > '9') return syntax_error("invalid number");
  if (*p_ == '0') {
    ++p_;
  } else {
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  }
  if (p_ < end_ && *p_ == '.') {
    integral = false;
    ++p_;
    if (p_ >= end_ || *p_ < '0' || *p_ > '9') return syntax_error("invalid number");
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    integral = false;
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (p_ >= end_ || *p_ < '0' || *p_ > '9') return syntax_error("invalid number");
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  }
  if (out == nullptr) return true;
  if (integral) {
    if (*start == '-') {
      std::int64_t v = 0;
      if (std::from_chars(start, p_, v).ec == std::errc()) {
        *out = v;
        return true;
      }
    } else {
      std::uint64_t v = 0;
      if (std::from_chars(start, p_, v).ec == std::errc()) {
        *out = v;
        return true;
      }
    }
  }
  double d = 0;
  const auto result = std::from_chars(start, p_, d);
  if (result.ec != std::errc() && result.ec != std::errc::result_out_of_range) return syntax_error("invalid number");
  *out = d;
  return true;
}

bool JsonReader::read_literal(std::string_view word) {
  if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
    return syntax_error("invalid literal");
  }
  p_ += word.size();
  return true;
}

bool JsonReader::begin_object(std::size_t depth, Members*& scratch, std::size_t& first) {
  if (!expect('{')) return false;
  // Members are collected in a scratch vector (one per depth, reused), then moved into
  // the object at its final size: ordered_map's keys are const, so letting it grow would
  // copy every key on each reallocation (and its own insert searches for duplicates).
  while (scratch_.size() <= depth) scratch_.push_back(std::make_unique<Members>());
  scratch = scratch_[depth].get();
  first = scratch->size();
  return true;
}

bool JsonReader::finish_object(Json* out, Members* scratch, std::size_t first) {
  if (out == nullptr) return true;
  *out = Json::object();
  Json::object_t::Container& members = out->get_ref<Json::object_t&>();
  members.reserve(scratch->size() - first);
  for (std::size_t i = first; i < scratch->size(); ++i) {
    members.emplace_back(std::move((*scratch)[i].first), std::move((*scratch)[i].second));
  }
  scratch->resize(first);
  return true;
}

bool JsonReader::read_value(Json* out, int depth) {
  if (depth > kMaxJsonDepth) return syntax_error("nesting too deep");
  switch (peek()) {
    case '{':
      return read_object_members(
          out, depth, [](const EntrySoFar&, const std::string&) { return Keep::kBuild; }, nullptr);
    case '[': {
      ++p_;
      if (out != nullptr) *out = Json::array();
      if (consume(']')) return true;
      do {
        if (out == nullptr) {
          if (!read_value(nullptr, depth + 1)) return false;
        } else {
          auto& elements = out->get_ref<Json::array_t&>();
          elements.emplace_back();
          if (!read_value(&elements.back(), depth + 1)) return false;
        }
      } while (consume(','));
      return expect(']');
    }
    case '"': {
      if (out == nullptr) return read_string(nullptr);
      *out = std::string();
      return read_string(&out->get_ref<std::string&>());
    }
    case 't':
      if (out != nullptr) *out = true;
      return read_literal("true");
    case 'f':
      if (out != nullptr) *out = false;
      return read_literal("false");
    case 'n':
      if (out != nullptr) *out = nullptr;
      return read_literal("null");
    case '\0':
      if (p_ >= end_) return syntax_error("unexpected end of input");
      return syntax_error("unexpected character");
    default:
      if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) return read_number(out);
      return syntax_error("unexpected character");
  }
}

std::string_view JsonReader::skip_raw(int depth) {
  ws();
  const char* start = p_;
  if (!read_value(nullptr, depth)) return {};
  return {start, static_cast<std::size_t>(p_ - start)};
}

Result<std::string> canonical_json_text(std::string_view text, std::string_view file, std::string context,
                                        std::span<const std::string_view> drop, RawMembers* top_level) {
  thread_local ods::json::Reader reader({});  // reused for its scratch space
  reader.reset(text);
  std::string out;
  try {
    ods::json::append_canonical(reader, out, {.drop = drop, .top_level = top_level});
    reader.finish();
  } catch (const ods::json::SyntaxError& e) {
    std::string where = std::move(context);
    if (!e.path().empty()) where += (where.empty() ? "" : ".") + e.path();
    if (!where.empty()) where = " (reading " + where + ")";
    return fail("invalid_artifact", std::string(file) + ": not valid JSON at byte " + std::to_string(e.offset()) +
                                        where + ": " + e.problem());
  }
  return out;
}

}  // namespace ods::dbt::internal
