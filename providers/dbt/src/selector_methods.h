#pragma once
// The dbt selector methods that read node attributes the planner's inputs do not carry:
// `tag:<tag>`, `path:<path>` and `config.<key>[.<key>…]:<value>`, matched as dbt matches them,
// against the nodes' and sources' `tags`, `original_file_path` and `config` in manifest.json.
// The manifest is read only when an expression uses one of them (keeping only those members).
//
// - tag:   the node's (or source's) tags contain the value;
// - path:  the node's file is the path, or lies under the directory (a trailing '/' is allowed),
//          or matches it as a glob (`*`, `?`, `[…]`, as fnmatch); paths relative to the
//          project root, as dbt writes original_file_path. A bare selector with a '/' is a path;
// - config.<key>: the config value at that key path equals the value (strings exactly;
//          true/false for booleans, any case; a list matches when it contains the value).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "ods/base/result.h"

namespace ods::dbt {

struct NodeAttributes {
  std::vector<std::string> tags;
  std::string path;                                  // original_file_path
  nlohmann::json config = nlohmann::json::object();  // the resolved config
};

// unique id (nodes and sources) → attributes.
using ManifestAttributes = std::unordered_map<std::string, NodeAttributes>;

// Reads the attributes from a manifest.json. Errors ("usage"): the file missing or not JSON,
// naming it.
[[nodiscard]] Result<ManifestAttributes> read_manifest_attributes(const std::filesystem::path& manifest);

// True when `body` (a selector without graph operators) uses a method this file matches.
bool is_attribute_selector(const std::string& body);

// Whether `attributes` match `body` (tag:…, path:…, config.…:…, or a bare path). Error
// ("usage") for a malformed one (an empty value, `config:` without a key), naming `flag` and `word`.
[[nodiscard]] Result<bool> attribute_matches(const NodeAttributes& attributes, const std::string& body,
                                             const std::string& word, const std::string& flag);

}  // namespace ods::dbt
