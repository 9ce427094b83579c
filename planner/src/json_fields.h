#pragma once
// Internal: typed reads of JSON fields that name the offending path when the shape is wrong.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace ods::planner::internal {

// Thrown inside readers only; converted to an Error at the reader's edge.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline const nlohmann::json& field(const nlohmann::json& obj, const std::string& path, const char* key) {
  if (!obj.is_object()) throw FieldError(path + ": expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) throw FieldError(path + "." + key + ": missing");
  return *it;
}

inline std::string get_string(const nlohmann::json& obj, const std::string& path, const char* key) {
  const auto& v = field(obj, path, key);
  if (!v.is_string()) throw FieldError(path + "." + key + ": expected a string");
  return v.get<std::string>();
}

inline std::string opt_string(const nlohmann::json& obj, const std::string& path, const char* key) {
  if (!obj.is_object()) throw FieldError(path + ": expected an object");
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return "";
  if (!it->is_string()) throw FieldError(path + "." + key + ": expected a string");
  return it->get<std::string>();
}

inline const nlohmann::json& get_object(const nlohmann::json& obj, const std::string& path, const char* key) {
  const auto& v = field(obj, path, key);
  if (!v.is_object()) throw FieldError(path + "." + key + ": expected an object");
  return v;
}

inline const nlohmann::json& get_array(const nlohmann::json& obj, const std::string& path, const char* key) {
  const auto& v = field(obj, path, key);
  if (!v.is_array()) throw FieldError(path + "." + key + ": expected an array");
  return v;
}

}  // namespace ods::planner::internal
