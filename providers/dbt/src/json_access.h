#pragma once
// Typed access to one artifact entry with errors that name the file and field path (the kinds,
// their words and member paths are ods/json/fields.h's; the reads here return Results and spell
// a path out only for an error), and the canonical JSON used for fingerprint components.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "json_reader.h"
#include "ods/base/result.h"

namespace ods::dbt::internal {

// A JSON value together with where it is ("manifest.json", "nodes.model.shop.orders").
// The path is only spelled out for an error, so reading fields costs no allocation.
// A Field returned by member()/element() refers to its parent and must not outlive it;
// the file name and the keys passed in must outlive it too.
class Field {
 public:
  // A root: `path` names the value, e.g. "nodes.model.shop.orders".
  Field(const Json* value, std::string_view file, std::string path)
      : value_(value), file_(file), root_path_(std::move(path)) {}

  std::string path() const;
  // Absent or JSON null.
  bool missing() const { return value_ == nullptr || value_->is_null(); }
  const Json* json() const { return value_; }

  // Member `key` (absent when this is missing or the member is absent).
  // Error when this is present but not an object.
  [[nodiscard]] Result<Field> member(std::string_view key) const;
  // Element `i` of an array ("<path>[i]"). Error when this is not an array or too short.
  [[nodiscard]] Result<Field> element(std::size_t i) const;
  // Typed reads. nullopt when missing; error when present with another type.
  [[nodiscard]] Result<std::optional<std::string>> string() const;
  [[nodiscard]] Result<std::optional<bool>> boolean() const;
  // Requires an object (nullptr when missing).
  [[nodiscard]] Result<const Json*> object() const;
  // Requires an array of strings (empty when missing).
  [[nodiscard]] Result<std::vector<std::string>> strings() const;
  // "<file>: <path>: <message>" as an "invalid_artifact" error.
  [[nodiscard]] Error error(std::string_view message) const;

 private:
  static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);
  Field(const Json* value, std::string_view file, const Field* parent, std::string_view key, std::size_t index)
      : value_(value), file_(file), parent_(parent), key_(key), index_(index) {}

  const Json* value_;
  std::string_view file_;
  const Field* parent_ = nullptr;
  std::string_view key_;
  std::size_t index_ = kNoIndex;
  std::string root_path_;
};

// The top-level members of one entry kept as raw JSON text by the stream (no DOM), with
// typed reads that decode straight from the text and name the field in errors.
// `members`, `file` and the text must outlive it.
class RawEntry {
 public:
  RawEntry(const RawMembers& members, std::string_view file, std::string path)
      : members_(members), file_(file), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  std::string_view file() const { return file_; }
  // The member's text; nullopt when absent or JSON null.
  std::optional<std::string_view> text(std::string_view key) const;
  // Typed reads: nullopt when absent or null; an error naming "<path>.<key>" otherwise.
  [[nodiscard]] Result<std::optional<std::string>> string(std::string_view key) const;
  [[nodiscard]] Result<std::vector<std::string>> strings(std::string_view key) const;  // array of strings
  // A small DOM of the member (JSON null when absent).
  [[nodiscard]] Result<Json> dom(std::string_view key) const;
  // The member's canonical JSON ("null" when absent).
  [[nodiscard]] Result<std::string> canonical(std::string_view key) const;
  // The members of an object-valued member, as raw text (empty when absent or null).
  [[nodiscard]] Result<RawMembers> object_members(std::string_view key) const;
  [[nodiscard]] Error error(std::string_view key, std::string_view message) const;

 private:
  const RawMembers& members_;
  std::string_view file_;
  std::string path_;
};

// Decoders for raw JSON text (a view of one value). `file` and "<path>.<key>" name it in
// errors (the name is only spelled out for an error).
[[nodiscard]] Result<std::optional<std::string>> decode_string(std::string_view text, std::string_view file,
                                                               std::string_view path, std::string_view key);
[[nodiscard]] Result<std::vector<std::string>> decode_strings(std::string_view text, std::string_view file,
                                                              std::string_view path, std::string_view key);

// Compact JSON with object keys sorted (byte order) at every level; array order kept.
// Top-level members named in `drop` are left out (used for config exclusions).
// Equal to canonical_json_text() of the same JSON text (one canonicaliser: the DOM is dumped
// and read by ods/json/canonical.h). Errors: "invalid_artifact" naming `where` when a string
// is not valid UTF-8.
Result<std::string> canonical_json(const Json& value, std::span<const std::string_view> drop = {},
                                   std::string_view where = "a kept value");

}  // namespace ods::dbt::internal
