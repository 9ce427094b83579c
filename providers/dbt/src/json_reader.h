#pragma once
// Reading artifacts' JSON over text in memory, building nlohmann DOMs only for what the
// caller keeps. Used by the artifact streams (json_stream.h) and for members kept as raw
// text (canonical JSON straight from text, without a DOM).
//
// Why not nlohmann's own parser: its lexer reads one character at a time through an input
// adapter; with a handler that does nothing it measured 146 MB/s on the 50k-node manifest,
// 4.9x slower than json/'s Reader (docs/adr/0030-one-json-reader.md).
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
#include "ods/json/reader.h"

namespace ods::dbt::internal {

// Insertion-ordered, so column order (which a contract depends on) survives.
using Json = nlohmann::ordered_json;

// What to do with one member of an object being read.
enum class Keep { skip, build, raw };

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

// Builds nlohmann DOMs from the tokens of an ods::json::Reader (json/, the one JSON tokenizer:
// numbers, escapes and UTF-8 validation are read there), keeping only what the caller asks
// for. Not thread-safe; the text must outlive the reader and any RawMembers. Malformed text
// throws ods::json::SyntaxError (byte offset and member path); artifact_syntax_error turns
// it into the error the provider returns.
class JsonReader {
 public:
  JsonReader(std::string_view text, std::string_view file);
  // Reads another text, keeping the scratch space (no allocation once warm).
  void reset(std::string_view text, std::string_view file);

  // The tokenizer, for a caller that walks the structure itself (json_stream.cc).
  ods::json::Reader& tokens() { return tokens_; }
  std::string_view file() const { return file_; }
  // Any value into *out; nullptr: skip it, validating, without building.
  void read_value(Json* out);
  // Skips a value, returning its text.
  std::string_view skip_raw();
  // An object whose members are kept according to keep(EntrySoFar, key) -> Keep.
  // Keep::raw members go to `raw` (must not be nullptr if keep can return Keep::raw).
  template <class KeepFn>
  void read_object_members(Json* out, KeepFn&& keep, RawMembers* raw);

 private:
  using Members = EntrySoFar::Members;
  Members& scratch_at(std::size_t depth);
  static void finish_object(Json* out, Members& scratch, std::size_t first);

  ods::json::Reader tokens_;
  std::string_view file_;
  std::size_t depth_ = 0;  // objects open in read_object_members
  // Per depth, allocated when first reached; behind pointers so they never move.
  std::vector<std::unique_ptr<Members>> scratch_;
};

template <class KeepFn>
void JsonReader::read_object_members(Json* out, KeepFn&& keep, RawMembers* raw) {
  Members& scratch = scratch_at(depth_);
  const std::size_t first = scratch.size();
  tokens_.begin_object();  // the tokenizer refuses nesting deeper than ods::json::kMaxDepth
  ++depth_;
  std::string_view key;
  while (tokens_.next_member(key)) {
    const Keep what = out == nullptr ? Keep::skip : keep(EntrySoFar(scratch, first, raw), key);
    if (what == Keep::build) {
      scratch.emplace_back(std::string(key), Json());
      read_value(&scratch.back().second);
    } else if (what == Keep::raw) {
      std::string name(key);
      raw->emplace_back(std::move(name), skip_raw());
    } else {
      tokens_.skip();
    }
  }
  --depth_;
  finish_object(out, scratch, first);
}

// The provider's error for malformed JSON: "invalid_artifact", "<file>: not valid JSON at byte
// N (reading <context>.<member path, its first 200 characters>): <problem>".
Error artifact_syntax_error(std::string_view file, std::string_view context, const ods::json::SyntaxError& e);

// Parses `text` (one JSON value) into a DOM; for an object, only the top-level members
// `keep` returns Keep::build for are built. Errors: "invalid_artifact" naming `file`, `context`.
template <class KeepFn>
Result<Json> parse_json_text(std::string_view text, std::string_view file, std::string_view context, KeepFn&& keep) {
  thread_local JsonReader reader({}, {});  // reused for its scratch space
  reader.reset(text, file);
  Json out;
  try {
    if (reader.tokens().peek() == ods::json::Type::object) {
      reader.read_object_members(&out, keep, nullptr);
    } else {
      reader.read_value(&out);
    }
    reader.tokens().finish();
  } catch (const ods::json::SyntaxError& e) {
    return std::unexpected(artifact_syntax_error(file, context, e));
  }
  return out;
}

// A JSON string (quotes and escapes as ods::json::Writer writes them) of text read as JSON.
void append_json_string(std::string_view s, std::string& out);

// The canonical JSON (ods/json/canonical.h, the one canonicaliser) of the JSON `text`;
// top-level members named in `drop` are left out. Errors: "invalid_artifact" naming `file`,
// `context` and the byte. When `top_level` is given
// and `text` is an object, its members (dropped ones too) are listed there with their
// values' text, so a caller can read a few of them without scanning the text again.
Result<std::string> canonical_json_text(std::string_view text, std::string_view file, std::string_view context,
                                        std::span<const std::string_view> drop = {}, RawMembers* top_level = nullptr);

}  // namespace ods::dbt::internal
