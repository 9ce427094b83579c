#pragma once
// Typed reads of the members of a JSON DOM, with errors that name the member's path: the one
// helper of every reader that reads a document through a DOM (the planner's documents, the
// callback protocol's bodies, the dbt artifacts' entries). The DOM is the caller's
// (nlohmann::json, nlohmann::ordered_json: anything with their is_object()/find()/get()
// interface); the reads are templates, so this header includes no DOM library.
//
//   const auto& node = ods::json::object_at(doc, "inputs", "node");       // "inputs.node"
//   std::string id = ods::json::string_at(node, "inputs.node", "id");    // FieldError "inputs.node.id: missing"
//
// Each reader words the FieldError its way at its edge (what() is "<path>: <problem>").
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ods::json {

// What a typed read asks a value to be.
enum class Kind { object, array, string, number, integer, boolean, strings };

// How errors name a kind: "an object", "an array", "a string", "a number", "an integer",
// "true or false", "an array of strings".
constexpr std::string_view words(Kind kind) {
  switch (kind) {
    case Kind::object:
      return "an object";
    case Kind::array:
      return "an array";
    case Kind::string:
      return "a string";
    case Kind::number:
      return "a number";
    case Kind::integer:
      return "an integer";
    case Kind::boolean:
      return "true or false";
    case Kind::strings:
      return "an array of strings";
  }
  return "a value";
}

// True when `value` is a `kind` (strings: an array whose every element is a string).
template <class Json>
bool is(const Json& value, Kind kind) {
  switch (kind) {
    case Kind::object:
      return value.is_object();
    case Kind::array:
      return value.is_array();
    case Kind::string:
      return value.is_string();
    case Kind::number:
      return value.is_number();
    case Kind::integer:
      return value.is_number_integer();
    case Kind::boolean:
      return value.is_boolean();
    case Kind::strings:
      if (!value.is_array()) return false;
      for (const auto& element : value) {
        if (!element.is_string()) return false;
      }
      return true;
  }
  return false;
}

// "<parent>.<key>", or "<key>" when `parent` is empty (the document itself).
inline std::string member_path(std::string_view parent, std::string_view key) {
  std::string out(parent);
  if (!out.empty() && !key.empty()) out.push_back('.');
  out += key;
  return out;
}

// "<parent>[<index>]".
inline std::string element_path(std::string_view parent, std::size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

// A member (or element) a read refused: where it is and what is wrong with it.
// what() is "<path>: <problem>"; path is "" for the document itself.
class FieldError : public std::runtime_error {
 public:
  // `problem`: a reader's own sentence ("unknown action 'x'").
  FieldError(std::string path, std::string problem)
      : std::runtime_error(path + ": " + problem), path_(std::move(path)), problem_(std::move(problem)) {}
  // Absent (or, where the reader requires it, null).
  static FieldError missing(std::string path) { return {std::move(path), "missing", std::nullopt, true}; }
  // Present, but not a `expected`.
  static FieldError wrong_type(std::string path, Kind expected) {
    return {std::move(path), "expected " + std::string(words(expected)), expected, false};
  }

  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }  // "missing", "expected a string", a reader's own
  bool is_missing() const { return missing_; }
  std::optional<Kind> expected() const { return expected_; }  // set by wrong_type()

 private:
  FieldError(std::string path, std::string problem, std::optional<Kind> expected, bool missing)
      : FieldError(std::move(path), std::move(problem)) {
    expected_ = expected;
    missing_ = missing;
  }
  std::string path_;
  std::string problem_;
  std::optional<Kind> expected_;
  bool missing_ = false;
};

enum class Need {
  required,  // absent: FieldError::missing; null: read as the value it is (a typed read refuses it)
  optional,  // absent or null: nullptr / the read's empty value
};

// `value` (at `path`) when it is a `kind`; FieldError::wrong_type otherwise.
template <class Json>
const Json& value_as(const Json& value, std::string_view path, Kind kind) {
  if (!is(value, kind)) throw FieldError::wrong_type(std::string(path), kind);
  return value;
}

// Member `key` of `object` (which is at `path`); nullptr when optional and absent or null.
// Throws FieldError: wrong_type at `path` when `object` is not an object; missing at
// "<path>.<key>" when required and absent.
template <class Json>
const Json* member(const Json& object, std::string_view path, std::string_view key, Need need = Need::required) {
  value_as(object, path, Kind::object);
  const auto it = object.find(key);
  if (it == object.end() || (need == Need::optional && it->is_null())) {
    if (need == Need::required) throw FieldError::missing(member_path(path, key));
    return nullptr;
  }
  return &*it;
}

// Member `key` of `object` (at `path`) when it is a `kind`: nullptr when optional and absent
// or null. Throws FieldError as member() and wrong_type at "<path>.<key>".
template <class Json>
const Json* member_as(const Json& object, std::string_view path, std::string_view key, Kind kind,
                      Need need = Need::required) {
  const Json* m = member(object, path, key, need);
  if (m != nullptr) value_as(*m, member_path(path, key), kind);
  return m;
}

template <class Json>
const Json& object_at(const Json& object, std::string_view path, std::string_view key) {
  return *member_as(object, path, key, Kind::object);
}

template <class Json>
const Json& array_at(const Json& object, std::string_view path, std::string_view key) {
  return *member_as(object, path, key, Kind::array);
}

// "" when optional and absent or null.
template <class Json>
std::string string_at(const Json& object, std::string_view path, std::string_view key, Need need = Need::required) {
  const Json* m = member_as(object, path, key, Kind::string, need);
  return m != nullptr ? m->template get<std::string>() : std::string();
}

// 0 when optional and absent or null.
template <class Json>
double number_at(const Json& object, std::string_view path, std::string_view key, Need need = Need::required) {
  const Json* m = member_as(object, path, key, Kind::number, need);
  return m != nullptr ? m->template get<double>() : 0.0;
}

// 0 when optional and absent or null.
template <class Json>
int integer_at(const Json& object, std::string_view path, std::string_view key, Need need = Need::required) {
  const Json* m = member_as(object, path, key, Kind::integer, need);
  return m != nullptr ? m->template get<int>() : 0;
}

template <class Json>
bool bool_at(const Json& object, std::string_view path, std::string_view key) {
  return member_as(object, path, key, Kind::boolean)->template get<bool>();
}

// An array of strings; an element that is not a string is wrong_type at "<path>.<key>[i]"
// (a string).
template <class Json>
std::vector<std::string> strings_at(const Json& object, std::string_view path, std::string_view key) {
  const Json& m = *member(object, path, key);
  const std::string at = member_path(path, key);
  if (!m.is_array()) throw FieldError::wrong_type(at, Kind::strings);
  std::vector<std::string> out;
  out.reserve(m.size());
  for (std::size_t i = 0; i < m.size(); ++i)
    out.push_back(value_as(m[i], element_path(at, i), Kind::string).template get<std::string>());
  return out;
}

}  // namespace ods::json
