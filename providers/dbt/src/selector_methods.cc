#include "selector_methods.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <fstream>

namespace ods::dbt {
namespace {

using nlohmann::json;

// The value after "<method>:".
std::string value_of(const std::string& body) { return body.substr(body.find(':') + 1); }

std::string without_trailing_slashes(std::string text) {
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  if (text.starts_with("./")) text = text.substr(2);
  return text;
}

bool path_matches(const std::string& file, const std::string& selector) {
  const std::string wanted = without_trailing_slashes(selector);
  if (wanted.find_first_of("*?[") != std::string::npos) return fnmatch(wanted.c_str(), file.c_str(), 0) == 0;
  return file == wanted || file.starts_with(wanted + "/");
}

bool lower_equals(const std::string& text, const char* word) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower == word;
}

bool scalar_matches(const json& value, const std::string& wanted) {
  if (value.is_string()) return value.get<std::string>() == wanted;
  if (value.is_boolean()) return lower_equals(wanted, value.get<bool>() ? "true" : "false");
  return false;
}

// Keeps, of a manifest, only what the methods read: nodes.*/sources.* → tags,
// original_file_path, config (and everything inside config). A key event's depth is that of the
// object holding it (1 for the manifest's own keys).
bool keep_member(int depth, json::parse_event_t event, const json& parsed) {
  if (event != json::parse_event_t::key) return true;
  const std::string& key = parsed.get_ref<const std::string&>();
  if (depth == 1) return key == "nodes" || key == "sources";
  if (depth == 3) return key == "tags" || key == "original_file_path" || key == "config";
  return true;
}

}  // namespace

bool is_attribute_selector(const std::string& body) {
  if (body.starts_with("tag:") || body.starts_with("path:") || body.starts_with("config.") ||
      body.starts_with("config:"))
    return true;
  return body.find(':') == std::string::npos && body.find('/') != std::string::npos;  // a bare path
}

Result<bool> attribute_matches(const NodeAttributes& attributes, const std::string& body, const std::string& word,
                               const std::string& flag) {
  if (body.find(':') == std::string::npos) return path_matches(attributes.path, body);  // a bare path
  const std::string value = value_of(body);
  if (value.empty()) return fail("usage", flag + ": '" + word + "' has no value after ':'");
  if (body.starts_with("tag:")) {
    return std::find(attributes.tags.begin(), attributes.tags.end(), value) != attributes.tags.end();
  }
  if (body.starts_with("path:")) return path_matches(attributes.path, value);
  const std::string keys = body.substr(0, body.find(':'));  // config.<key>[.<key>…]
  if (keys == "config" || keys.ends_with(".")) {
    return fail("usage",
                flag + ": '" + word + "' needs a config key: config.<key>:<value>, e.g. config.materialized:table");
  }
  const json* at = &attributes.config;
  std::size_t from = std::string("config.").size();
  while (from <= keys.size()) {
    const std::size_t dot = std::min(keys.find('.', from), keys.size());
    const std::string key = keys.substr(from, dot - from);
    if (!at->is_object() || !at->contains(key)) return false;
    at = &(*at)[key];
    from = dot + 1;
  }
  if (at->is_array()) {
    return std::any_of(at->begin(), at->end(), [&](const json& item) { return scalar_matches(item, value); });
  }
  return scalar_matches(*at, value);
}

Result<ManifestAttributes> read_manifest_attributes(const std::filesystem::path& manifest) {
  std::ifstream in(manifest, std::ios::binary);
  if (!in)
    return fail("usage", manifest.string() + ": cannot read the manifest that tag:, path: and config. selectors need");
  const json doc = json::parse(
      in, [](int depth, json::parse_event_t event, json& parsed) { return keep_member(depth, event, parsed); }, false);
  if (doc.is_discarded() || !doc.is_object()) return fail("usage", manifest.string() + ": not a JSON manifest");
  ManifestAttributes out;
  for (const char* section : {"nodes", "sources"}) {
    if (!doc.contains(section) || !doc[section].is_object()) continue;
    for (const auto& [id, node] : doc[section].items()) {
      if (!node.is_object()) continue;
      NodeAttributes& attributes = out[id];
      for (const json& tag : node.value("tags", json::array())) {
        if (tag.is_string()) attributes.tags.push_back(tag);
      }
      attributes.path = node.value("original_file_path", "");
      attributes.config = node.value("config", json::object());
    }
  }
  return out;
}

}  // namespace ods::dbt
