#include "ods/control/objects.h"

#include <cstdio>

#include "ods/control/time_text.h"

namespace ods::control {

kube::ListOptions runs_of_project_options(const std::string& project) {
  return kube::ListOptions{.label_selector = {}, .field_selector = std::string(kProjectRefField) + "=" + project};
}

kube::ObjectKey key_of(const Json& object) {
  return {string_at(object, "/metadata/namespace"), string_at(object, "/metadata/name")};
}

kube::ObjectKey parse_key(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return {"", std::string(text)};
  return {std::string(text.substr(0, slash)), std::string(text.substr(slash + 1))};
}

std::int64_t generation_of(const Json& object) {
  const Json::json_pointer pointer("/metadata/generation");
  if (!object.contains(pointer) || !object.at(pointer).is_number_integer()) return 0;
  return object.at(pointer).get<std::int64_t>();
}

std::string string_at(const Json& object, std::string_view pointer_text, std::string_view fallback) {
  const Json::json_pointer pointer{std::string(pointer_text)};
  if (!object.contains(pointer) || !object.at(pointer).is_string()) return std::string(fallback);
  return object.at(pointer).get<std::string>();
}

std::optional<TimePoint> time_at(const Json& object, std::string_view pointer) {
  const std::string text = string_at(object, pointer);
  if (text.empty()) return std::nullopt;
  return parse_time(text);
}

Json controller_reference(const Json& owner) {
  return {{"apiVersion", owner.value("apiVersion", "")},
          {"kind", owner.value("kind", "")},
          {"name", string_at(owner, "/metadata/name")},
          {"uid", string_at(owner, "/metadata/uid")},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

std::optional<kube::ObjectKey> controller_of(const Json& object, std::string_view kind) {
  const Json::json_pointer pointer("/metadata/ownerReferences");
  if (!object.contains(pointer) || !object.at(pointer).is_array()) return std::nullopt;
  for (const Json& reference : object.at(pointer)) {
    if (reference.value("controller", false) && reference.value("kind", "") == kind) {
      return kube::ObjectKey{string_at(object, "/metadata/namespace"), reference.value("name", "")};
    }
  }
  return std::nullopt;
}

std::string bounded_name(std::string_view base, std::string_view suffix, std::size_t max_length) {
  if (base.size() + suffix.size() <= max_length) return std::string(base) + std::string(suffix);
  std::uint32_t fnv = 2166136261u;  // FNV-1a: the same name on every restart and platform
  for (const char c : base) fnv = (fnv ^ static_cast<unsigned char>(c)) * 16777619u;
  char hash[16];
  std::snprintf(hash, sizeof hash, "-%08x", static_cast<unsigned>(fnv));
  const std::size_t keep = max_length - suffix.size() - 9;
  std::string cut(base.substr(0, keep));
  while (!cut.empty() && (cut.back() == '-' || cut.back() == '.')) cut.pop_back();
  return cut + hash + std::string(suffix);
}

}  // namespace ods::control

namespace ods::control {

Error api_failure(std::string_view what, const kube::ApiError& error) {
  return Error{"kube_api",
               std::string(what) + ": " + std::to_string(error.status) + " " + error.reason + ": " + error.message};
}

}  // namespace ods::control
