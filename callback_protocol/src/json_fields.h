#pragma once
// Reading the protocol's JSON bodies field by field: each getter names the field's path in
// the FieldError it throws; the protocol readers catch it and return it as a value.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ods/callback/protocol.h"

namespace ods::callback::detail {

using nlohmann::json;

struct FieldErrorThrown {
  FieldError error;
};

[[noreturn]] inline void refuse(const std::string& field, const std::string& message) {
  throw FieldErrorThrown{{field, message}};
}

inline std::string path_of(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

// The member `key` of `object` (whose path is `parent`); refused when absent and required.
const json* member(const json& object, const std::string& parent, const std::string& key, bool required);
const json& object_at(const json& object, const std::string& parent, const std::string& key);
std::string string_at(const json& object, const std::string& parent, const std::string& key, bool required = true);
double number_at(const json& object, const std::string& parent, const std::string& key, bool required = true);
int integer_at(const json& object, const std::string& parent, const std::string& key, bool required = true);
bool bool_at(const json& object, const std::string& parent, const std::string& key);
std::vector<std::string> strings_at(const json& object, const std::string& parent, const std::string& key);

// An object of `key` -> value; `value` reads one value (given its path).
template <class T, class Read>
std::map<std::string, T> map_at(const json& object, const std::string& parent, const std::string& key, Read value,
                                bool required = true) {
  std::map<std::string, T> out;
  const json* m = member(object, parent, key, required);
  if (!m) return out;
  const std::string path = path_of(parent, key);
  if (!m->is_object()) refuse(path, "must be an object");
  for (const auto& [k, v] : m->items()) out.emplace(k, value(v, path + "." + k));
  return out;
}

double number_value(const json& v, const std::string& path);
bool bool_value(const json& v, const std::string& path);
std::string string_value(const json& v, const std::string& path);

// The body as a JSON object with "protocol": kProtocolVersion.
json parse_body(std::string_view body);

// `document` (a JSON object) with `name`: `raw` (JSON text) added as its first member,
// without parsing `raw` again.
std::string splice_member(const json& document, const std::string& name, const std::string& raw);

}  // namespace ods::callback::detail
