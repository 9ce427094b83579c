#pragma once
// A streaming JSON writer: values go straight to a string or an output stream, no DOM.
// The text is byte-for-byte what nlohmann::json's dump() (compact) or dump(indent) writes
// for the same values in the same order — so a caller that writes members in sorted order
// (as nlohmann's std::map-backed objects are) produces the same document as a DOM did.
//
//   ods::json::Writer w(std::cout, 2);
//   w.begin_object();
//   w.key("id").string("model.shop.orders");
//   w.key("depth").integer(3);
//   w.end_object();
//   w.flush();
//
// Strings: '"', '\\' and control characters are escaped (\b \f \n \r \t, others \u00xx);
// other UTF-8 is written as is. Invalid UTF-8 throws InvalidUtf8 (as nlohmann's dump does),
// after which the output is incomplete.
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ods::json {

class InvalidUtf8 : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Appends `s` as a JSON string (with quotes) to `out`, escaped as described above.
// Utf8::validate: invalid UTF-8 throws InvalidUtf8. Utf8::pass_through: bytes >= 0x80 are
// copied unchecked (for text that was already read as JSON).
enum class Utf8 { validate, pass_through };
void append_string(std::string_view s, std::string& out, Utf8 utf8 = Utf8::validate);

// Appends code point `cp` (<= 0x10FFFF, not a surrogate) encoded as UTF-8.
void append_utf8(std::uint32_t cp, std::string& out);

// Not thread-safe. Misuse (a key outside an object, end_array closing an object, ...) throws
// std::logic_error.
class Writer {
 public:
  // indent < 0: compact (like dump()); otherwise one member per line, `indent` spaces a level.
  explicit Writer(std::string& out, int indent = -1);
  // Buffers and writes to `out` in chunks; call flush() at the end (the destructor flushes
  // too, ignoring stream errors).
  explicit Writer(std::ostream& out, int indent = -1);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  Writer& begin_object();
  Writer& end_object();
  Writer& begin_array();
  Writer& end_array();
  Writer& key(std::string_view name);  // inside an object, before each member's value
  Writer& string(std::string_view value);
  Writer& integer(std::int64_t value);
  Writer& boolean(bool value);
  Writer& null();
  // Writes buffered text to the stream (no-op for a string target).
  void flush();

 private:
  void before_value();
  void open(char bracket, bool array);
  void close(char bracket, bool array);
  void newline_indent(std::size_t level);
  void maybe_flush();

  std::string buffer_;
  std::string* out_;
  std::ostream* stream_ = nullptr;
  int indent_;
  struct Level {
    bool array;
    bool empty;
  };
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace ods::json
