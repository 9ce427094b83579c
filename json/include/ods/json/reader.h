#pragma once
// A pull reader over one JSON text (RFC 8259) in memory: no DOM, strings without escapes
// returned as views into the text, and errors that say where (byte offset and member path).
//
//   ods::json::Reader r(text);
//   r.begin_object();
//   std::string_view key;
//   while (r.next_member(key)) {
//     if (key == "name") name = r.string();
//     else r.skip();
//   }
//   r.finish();  // nothing but whitespace after the value
//
// Strict, as nlohmann's parser: UTF-8 is validated; lone surrogates, control characters in
// strings, trailing commas, leading zeros, numbers beyond a double's range and nesting
// deeper than kMaxDepth are errors; a UTF-8 byte order mark at the start is skipped.
// Duplicate members are reported to the caller as they come (a caller that assigns keeps
// the last, as a DOM does).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ods::json {

inline constexpr int kMaxDepth = 512;

// Thrown by Reader on malformed text; `offset` is the byte where reading stopped and
// `path` the member being read ("" at the top level, e.g. "nodes.model.a.fingerprint",
// array elements as "[3]"). what() = "at byte <offset> (in <path>): <problem>".
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(std::size_t offset, std::string path, const std::string& problem);
  std::size_t offset() const { return offset_; }
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::size_t offset_;
  std::string path_;
  std::string problem_;
};

enum class Type { object, array, string, number, boolean, null };

// Reads one text. The text must outlive the reader and every view it returned. Not
// thread-safe. Each read_* / begin_* consumes exactly one value; a wrong type is not a
// syntax error: check peek() first, or let the caller report the shape (see Reader::path).
class Reader {
 public:
  explicit Reader(std::string_view text);
  // Reads another text from its start, keeping the scratch space (no allocation once warm).
  void reset(std::string_view text);

  // The type of the next value (skipping whitespace). Throws SyntaxError when no value starts
  // here (including at the end of the text).
  Type peek();

  // Objects: begin_object(), then next_member(key) until it returns false (the '}' read).
  // `key` stays valid until the next call to next_member at this depth or an outer one.
  void begin_object();
  [[nodiscard]] bool next_member(std::string_view& key);
  // Arrays: begin_array(), then next_element() until it returns false (the ']' read).
  void begin_array();
  [[nodiscard]] bool next_element();

  // The next string's decoded value; valid until the next read.
  std::string_view string_view();
  std::string string() { return std::string(string_view()); }
  bool boolean();
  void null();
  // An integer that fits int64; SyntaxError for another number ("expected an integer").
  std::int64_t integer();
  // Any number's text, validated (e.g. "-1.5e3").
  std::string_view number_text();
  // Skips any value, validating it.
  void skip();
  // After the top-level value: only whitespace may follow.
  void finish();

  // The member path of the value about to be read, e.g. "nodes.model.a.fingerprint.sql".
  std::string path() const;
  std::size_t offset() const { return static_cast<std::size_t>(p_ - begin_); }
  // The whole text being read (offset() counts from its start).
  std::string_view text() const { return {begin_, static_cast<std::size_t>(end_ - begin_)}; }
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  struct Level {
    bool array = false;
    bool first = true;
    std::size_t index = 0;
    std::string_view key;  // the current member's name: into the text, or into `owned`
    std::string owned;     // a name with escapes, decoded
  };
  void ws();
  char next_char();  // ws(), then the next byte or '\0' at the end (not consumed)
  void expect(char c, const char* what);
  void push(bool array);
  std::string_view read_string_token();  // at '"'
  void decode_escape(std::string& out);
  unsigned read_hex4();
  const char* check_utf8(const char* p);  // at a byte >= 0x80; returns past the sequence
  void read_literal(std::string_view word);

  const char* begin_;
  const char* p_;
  const char* end_;
  std::vector<Level> levels_;  // kMaxDepth + 1 slots, never reallocated; [1, depth_] are open
  std::size_t depth_ = 0;
  std::string scratch_;  // decoded strings with escapes
};

}  // namespace ods::json
