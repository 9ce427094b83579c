#include "json_access.h"

#include <algorithm>
#include <utility>

#include "ods/json/canonical.h"
#include "ods/json/fields.h"
#include "ods/json/reader.h"

namespace ods::dbt::internal {

using ods::json::Kind;
using ods::json::member_path;

namespace {

// "expected a string", "expected an object", …: how the artifacts' errors name a kind.
std::string expected(Kind kind) { return "expected " + std::string(ods::json::words(kind)); }

}  // namespace

std::string Field::path() const {
  if (parent_ == nullptr) return root_path_;
  std::string out = parent_->path();
  if (index_ != kNoIndex) return out + "[" + std::to_string(index_) + "]";
  if (!out.empty()) out.push_back('.');
  out += key_;
  return out;
}

Error Field::error(std::string_view message) const {
  return Error{"invalid_artifact", std::string(file_) + ": " + path() + ": " + std::string(message)};
}

Result<Field> Field::member(std::string_view key) const {
  if (missing()) return Field(nullptr, file_, this, key, kNoIndex);
  if (!ods::json::is(*value_, Kind::object)) return std::unexpected(error(expected(Kind::object)));
  const auto it = value_->find(key);
  return Field(it == value_->end() ? nullptr : &*it, file_, this, key, kNoIndex);
}

Result<Field> Field::element(std::size_t i) const {
  if (missing() || !ods::json::is(*value_, Kind::array) || i >= value_->size())
    return std::unexpected(error(expected(Kind::array)));
  return Field(&(*value_)[i], file_, this, {}, i);
}

Result<std::optional<std::string>> Field::string() const {
  if (missing()) return std::optional<std::string>{};
  if (!ods::json::is(*value_, Kind::string)) return std::unexpected(error(expected(Kind::string)));
  return std::optional<std::string>(value_->get_ref<const std::string&>());
}

Result<std::optional<bool>> Field::boolean() const {
  if (missing()) return std::optional<bool>{};
  if (!ods::json::is(*value_, Kind::boolean)) return std::unexpected(error(expected(Kind::boolean)));
  return std::optional<bool>(value_->get<bool>());
}

Result<const Json*> Field::object() const {
  if (missing()) return static_cast<const Json*>(nullptr);
  if (!ods::json::is(*value_, Kind::object)) return std::unexpected(error(expected(Kind::object)));
  return value_;
}

Result<std::vector<std::string>> Field::strings() const {
  std::vector<std::string> out;
  if (missing()) return out;
  if (!ods::json::is(*value_, Kind::strings)) return std::unexpected(error(expected(Kind::strings)));
  out.reserve(value_->size());
  for (const auto& item : *value_) out.push_back(item.get<std::string>());
  return out;
}

Result<std::optional<std::string>> decode_string(std::string_view text, std::string_view file, std::string_view path,
                                                 std::string_view key) {
  if (text == "null") return std::optional<std::string>();
  if (text.size() < 2 || text.front() != '"') {
    return std::unexpected(
        Error{"invalid_artifact", std::string(file) + ": " + member_path(path, key) + ": " + expected(Kind::string)});
  }
  const std::string_view inner = text.substr(1, text.size() - 2);
  if (inner.find('\\') == std::string_view::npos) return std::optional<std::string>(std::string(inner));
  thread_local ods::json::Reader reader({});  // reused: a Reader's first use allocates its levels
  reader.reset(text);
  try {
    std::string out = reader.string();
    reader.finish();
    return std::optional<std::string>(std::move(out));
  } catch (const ods::json::SyntaxError& e) {
    return std::unexpected(artifact_syntax_error(file, member_path(path, key), e));
  }
}

Result<std::vector<std::string>> decode_strings(std::string_view text, std::string_view file, std::string_view path,
                                                std::string_view key) {
  std::vector<std::string> out;
  if (text == "null") return out;
  auto not_strings = [&] {
    return std::unexpected(
        Error{"invalid_artifact", std::string(file) + ": " + member_path(path, key) + ": " + expected(Kind::strings)});
  };
  thread_local ods::json::Reader reader({});  // reused, as in decode_string
  reader.reset(text);
  try {
    if (reader.peek() != ods::json::Type::array) return not_strings();
    reader.begin_array();
    while (reader.next_element()) {
      if (reader.peek() != ods::json::Type::string) return not_strings();
      out.push_back(reader.string());
    }
    reader.finish();
  } catch (const ods::json::SyntaxError& e) {
    return std::unexpected(artifact_syntax_error(file, member_path(path, key), e));
  }
  return out;
}

std::optional<std::string_view> RawEntry::text(std::string_view key) const {
  for (const auto& [name, value] : members_) {
    if (name == key) return value == "null" ? std::nullopt : std::optional<std::string_view>(value);
  }
  return std::nullopt;
}

Error RawEntry::error(std::string_view key, std::string_view message) const {
  return Error{"invalid_artifact", std::string(file_) + ": " + member_path(path_, key) + ": " + std::string(message)};
}

Result<std::optional<std::string>> RawEntry::string(std::string_view key) const {
  const auto value = text(key);
  if (!value) return std::optional<std::string>();
  return decode_string(*value, file_, path_, key);
}

Result<std::vector<std::string>> RawEntry::strings(std::string_view key) const {
  const auto value = text(key);
  if (!value) return std::vector<std::string>();
  return decode_strings(*value, file_, path_, key);
}

Result<Json> RawEntry::dom(std::string_view key) const {
  const auto value = text(key);
  if (!value) return Json();
  return parse_json_text(*value, file_, path_ + "." + std::string(key),
                         [](const EntrySoFar&, std::string_view) { return Keep::build; });
}

Result<std::string> RawEntry::canonical(std::string_view key) const {
  const auto value = text(key);
  if (!value) return std::string("null");
  return canonical_json_text(*value, file_, path_ + "." + std::string(key));
}

Result<RawMembers> RawEntry::object_members(std::string_view key) const {
  RawMembers out;
  const auto value = text(key);
  if (!value) return out;
  if (value->front() != '{') return std::unexpected(error(key, expected(Kind::object)));
  thread_local JsonReader reader({}, {});  // reused for its scratch space
  reader.reset(*value, file_);
  Json ignored;
  try {
    reader.read_object_members(
        &ignored, [](const EntrySoFar&, std::string_view) { return Keep::raw; }, &out);
  } catch (const ods::json::SyntaxError& e) {
    return std::unexpected(artifact_syntax_error(file_, path_ + "." + std::string(key), e));
  }
  return out;
}

Result<std::string> canonical_json(const Json& value, std::span<const std::string_view> drop, std::string_view where) {
  std::string text;
  try {
    text = value.dump();  // strict: throws on invalid UTF-8, which the tokenizer lets through
  } catch (const Json::type_error& e) {
    return fail("invalid_artifact", std::string(where) + ": a string is not valid UTF-8 (" + e.what() + ").");
  }
  return ods::json::canonical(text, {.drop = drop});  // text nlohmann wrote: well-formed
}

}  // namespace ods::dbt::internal
