#pragma once
// A fast JSON tokenizer (RFC 8259) over text in memory, building nlohmann DOMs only for
// what the caller keeps. Used by the artifact streams (json_stream.h) and for members
// kept as raw text (canonical JSON straight from text, without a DOM).
//
// Why not nlohmann's own parser: its lexer reads one character at a time through an
// input adapter; with a handler that does nothing it measured 118-160 MB/s here, below
// the 100 MB/s the manifest reader needs once entries are built and converted.
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ods/base/result.h"

namespace ods::dbt::internal {

// Insertion-ordered, so column order (which a contract depends on) survives.
using Json = nlohmann::ordered_json;

// What to do with one member of an object being read.
enum class Keep { kSkip, kBuild, kRaw };

// Members kept as raw JSON text: name -> the value's text (a view into the input).
using RawMembers = std::vector<std::pair<std::string, std::string_view>>;

// The members of an object read so far (for keep decisions that depend on earlier members).
class EntrySoFar {
 public:
  using Members = std::vector<std::pair<std::string, Json>>;
  EntrySoFar(const Members& members, std::size_t first, const RawMembers* raw)
      : members_(&members), first_(first), raw_(raw) {}
  // The built member `key`, or nullptr when it has not been read (yet) or was not built.
  const Json* find(std::string_view key) const {
    for (std::size_t i = first_; i < members_->size(); ++i) {
      if ((*members_)[i].first == key) return &(*members_)[i].second;
    }
    return nullptr;
  }
  // The text of member `key` kept raw, or nullopt.
  std::optional<std::string_view> find_raw(std::string_view key) const {
    if (raw_ == nullptr) return std::nullopt;
    for (const auto& [name, text] : *raw_) {
      if (name == key) return text;
    }
    return std::nullopt;
  }

 private:
  const Members* members_;
  std::size_t first_;
  const RawMembers* raw_;
};

inline constexpr int kMaxJsonDepth = 512;

// Reads one text. Not thread-safe; the text must outlive the reader and any RawMembers.
// Every read_* returns false on malformed input; error() then says what and at which byte
// ("<file>: not valid JSON at byte N (reading <context>): <what>").
class JsonReader {
 public:
  JsonReader(std::string_view text, std::string_view file);
  // Reads another text, keeping the scratch space (no allocation once warm).
  void reset(std::string_view text, std::string_view file);

  void ws();
  bool consume(char c);  // skips whitespace; consumes `c` when next
  bool expect(char c);   // consume(c) or a syntax error
  char peek();           // skips whitespace; '\0' at the end
  bool at_end() const { return p_ == end_; }
  bool read_string(std::string* out);     // at a '"'; nullptr: skip
  bool read_value(Json* out, int depth);  // any value; nullptr: skip without building
  std::string_view skip_raw(int depth);   // skips a value, returning its text ("" on error)
  // An object whose members are kept according to keep(EntrySoFar, key) -> Keep.
  // kRaw members go to `raw` (must not be nullptr if keep can return kRaw).
  template <class KeepFn>
  bool read_object_members(Json* out, int depth, KeepFn&& keep, RawMembers* raw);
  bool syntax_error(std::string_view what);
  void set_context(std::string context) { context_ = std::move(context); }
  std::optional<Error>& error() { return error_; }

 private:
  using Members = EntrySoFar::Members;
  bool read_escape(std::string* out);
  bool read_hex4(unsigned& out);
  bool read_number(Json* out);
  bool read_literal(std::string_view word);
  bool begin_object(std::size_t depth, Members*& scratch, std::size_t& first);
  bool finish_object(Json* out, Members* scratch, std::size_t first);

  const char* begin_;
  const char* p_;
  const char* end_;
  std::string_view file_;
  std::string context_;
  std::optional<Error> error_;
  // Per depth, allocated when first reached; behind pointers so they never move.
  std::vector<std::unique_ptr<Members>> scratch_;
};

template <class KeepFn>
bool JsonReader::read_object_members(Json* out, int depth, KeepFn&& keep, RawMembers* raw) {
  if (depth > kMaxJsonDepth) return syntax_error("nesting too deep");
  Members* scratch = nullptr;
  std::size_t first = 0;
  if (!begin_object(static_cast<std::size_t>(depth), scratch, first)) return false;
  if (consume('}')) return finish_object(out, scratch, first);
  std::string key;
  do {
    ws();
    key.clear();
    if (!read_string(&key) || !expect(':')) return false;
    const Keep what = out == nullptr ? Keep::kSkip : keep(EntrySoFar(*scratch, first, raw), key);
    if (what == Keep::kBuild) {
      scratch->emplace_back(std::move(key), Json());
      if (!read_value(&scratch->back().second, depth + 1)) return false;
    } else if (what == Keep::kRaw) {
      const std::string_view text = skip_raw(depth + 1);
      if (text.empty()) return false;
      raw->emplace_back(std::move(key), text);
    } else if (!read_value(nullptr, depth + 1)) {
      return false;
    }
  } while (consume(','));
  if (!expect('}')) return false;
  return finish_object(out, scratch, first);
}

// Parses `text` (one JSON value) into a DOM; for an object, only the top-level members
// `keep` returns kBuild for are built. Errors: "invalid_artifact" naming `file`, `context`.
template <class KeepFn>
Result<Json> parse_json_text(std::string_view text, std::string_view file, std::string context, KeepFn&& keep) {
  thread_local JsonReader reader({}, {});  // reused for its scratch space
  reader.reset(text, file);
  reader.set_context(std::move(context));
  Json out;
  bool ok = false;
  if (reader.peek() == '{') {
    ok = reader.read_object_members(&out, 0, keep, nullptr);
  } else {
    ok = reader.read_value(&out, 0);
  }
  if (ok && (reader.ws(), !reader.at_end())) ok = reader.syntax_error("unexpected data after the JSON value");
  if (!ok) return std::unexpected(std::move(*reader.error()));
  return out;
}

// A JSON string (quotes and escapes as ods::json::Writer writes them) of text read as JSON.
void append_json_string(std::string_view s, std::string& out);

// The canonical JSON (ods/json/canonical.h, the one canonicaliser) of the JSON `text`;
// top-level members named in `drop` are left out. Errors: "invalid_artifact" naming `file`,
// `context` and the byte. When `top_level` is given
// and `text` is an object, its members (dropped ones too) are listed there with their
// values' text, so a caller can read a few of them without scanning the text again.
Result<std::string> canonical_json_text(std::string_view text, std::string_view file, std::string context,
                                        std::span<const std::string_view> drop = {}, RawMembers* top_level = nullptr);

}  // namespace ods::dbt::internal
