#pragma once
// Reading the protocol's JSON bodies. Typed reads of their fields are ods/json/fields.h's: each
// names the field's path in the ods::json::FieldError it throws, as refuse() does for what the
// protocol itself refuses. The protocol readers catch it and return it as a FieldError value in
// the protocol's words (protocol_error).
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ods/callback/protocol.h"
#include "ods/json/fields.h"

namespace ods::callback::detail {

using nlohmann::json;
using ods::json::bool_at;
using ods::json::integer_at;
using ods::json::member;
using ods::json::Need;
using ods::json::number_at;
using ods::json::object_at;
using ods::json::string_at;
using ods::json::strings_at;

[[noreturn]] inline void refuse(const std::string& field, const std::string& message) {
  throw ods::json::FieldError(field, message);
}

inline std::string path_of(const std::string& parent, const std::string& key) {
  return ods::json::member_path(parent, key);
}

// `error` as the protocol words it: "is missing", "must be a string", or the refusal's own words.
FieldError protocol_error(const ods::json::FieldError& error);

// Readers of one value (given its path) of the types map_at's maps hold.
inline double number_value(const json& v, const std::string& path) {
  return ods::json::value_as(v, path, ods::json::Kind::number).get<double>();
}
inline bool bool_value(const json& v, const std::string& path) {
  return ods::json::value_as(v, path, ods::json::Kind::boolean).get<bool>();
}
inline std::string string_value(const json& v, const std::string& path) {
  return ods::json::value_as(v, path, ods::json::Kind::string).get<std::string>();
}

// An object of `key` -> value; `value` reads one value (given its path).
template <class T, class Read>
std::map<std::string, T> map_at(const json& object, const std::string& parent, const std::string& key, Read value,
                                Need need = Need::required) {
  std::map<std::string, T> out;
  const json* m = ods::json::member_as(object, parent, key, ods::json::Kind::object, need);
  if (!m) return out;
  const std::string path = path_of(parent, key);
  for (const auto& [k, v] : m->items()) out.emplace(k, value(v, path + "." + k));
  return out;
}

// The body as a JSON object with "protocol": kProtocolVersion.
json parse_body(std::string_view body);

// `read` of the body (parse_body), its refusal returned as a FieldError value.
template <class T>
Parsed<T> guarded(std::string_view body, T (*read)(const json&)) {
  try {
    return read(parse_body(body));
  } catch (const ods::json::FieldError& e) {
    return std::unexpected(protocol_error(e));
  }
}

// A member whose value is JSON text already written (by the planner's writers): name, text.
using RawMember = std::pair<std::string, std::string>;

// `document` (a JSON object) with `raw` (name -> JSON text) added as its first members, in
// order, without parsing their text again.
std::string splice_members(const json& document, const std::vector<RawMember>& raw);

}  // namespace ods::callback::detail
