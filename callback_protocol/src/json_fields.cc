#include "json_fields.h"

namespace ods::callback::detail {

const json* member(const json& object, const std::string& parent, const std::string& key, bool required) {
  auto it = object.find(key);
  if (it == object.end() || (it->is_null() && !required)) {
    if (required) refuse(path_of(parent, key), "is missing");
    return nullptr;
  }
  return &*it;
}

const json& object_at(const json& object, const std::string& parent, const std::string& key) {
  const json& m = *member(object, parent, key, true);
  if (!m.is_object()) refuse(path_of(parent, key), "must be an object");
  return m;
}

std::string string_value(const json& v, const std::string& path) {
  if (!v.is_string()) refuse(path, "must be a string");
  return v.get<std::string>();
}

double number_value(const json& v, const std::string& path) {
  if (!v.is_number()) refuse(path, "must be a number");
  return v.get<double>();
}

bool bool_value(const json& v, const std::string& path) {
  if (!v.is_boolean()) refuse(path, "must be true or false");
  return v.get<bool>();
}

std::string string_at(const json& object, const std::string& parent, const std::string& key, bool required) {
  const json* m = member(object, parent, key, required);
  return m ? string_value(*m, path_of(parent, key)) : std::string();
}

double number_at(const json& object, const std::string& parent, const std::string& key, bool required) {
  const json* m = member(object, parent, key, required);
  return m ? number_value(*m, path_of(parent, key)) : 0.0;
}

int integer_at(const json& object, const std::string& parent, const std::string& key, bool required) {
  const json* m = member(object, parent, key, required);
  if (!m) return 0;
  if (!m->is_number_integer()) refuse(path_of(parent, key), "must be an integer");
  return m->get<int>();
}

bool bool_at(const json& object, const std::string& parent, const std::string& key) {
  return bool_value(*member(object, parent, key, true), path_of(parent, key));
}

std::vector<std::string> strings_at(const json& object, const std::string& parent, const std::string& key) {
  const json& m = *member(object, parent, key, true);
  const std::string path = path_of(parent, key);
  if (!m.is_array()) refuse(path, "must be an array of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < m.size(); ++i) out.push_back(string_value(m[i], path + "[" + std::to_string(i) + "]"));
  return out;
}

json parse_body(std::string_view body) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded()) refuse("", "the body is not JSON");
  if (!doc.is_object()) refuse("", "the body must be a JSON object");
  const int version = integer_at(doc, "", "protocol");
  if (version != kProtocolVersion)
    refuse("protocol", "version " + std::to_string(version) + " is not spoken here (this side speaks " +
                           std::to_string(kProtocolVersion) + ")");
  return doc;
}

std::string splice_member(const json& document, const std::string& name, const std::string& raw) {
  std::string rest = document.dump();  // "{...}" or "{}"
  std::string out = "{" + json(name).dump() + ":" + raw;
  if (rest.size() > 2)
    out += "," + rest.substr(1);
  else
    out += "}";
  return out;
}

}  // namespace ods::callback::detail
