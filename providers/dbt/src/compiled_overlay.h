#pragma once
// The compiled nodes the ods dbt driver hands over after a `dbt compile` that wrote no manifest
// (ods-write-compiled, ods/dbt/cli/dbt_driver.h): read beside the parse's manifest.json, each
// one stands in for that manifest's entry of the same id, so the project read is the one the
// compile's own manifest.json would have given (ArtifactPaths::compiled_nodes).
#include <cstddef>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "json_reader.h"
#include "ods/base/result.h"

namespace ods::dbt::internal {

// Which members of a manifest node entry the reader keeps (as raw text), given the members read
// so far: the one rule for manifest.json and for the compiled nodes.
Keep node_member_kept(const EntrySoFar& partial, std::string_view key);

// The kept members of each compiled node (node_member_kept), owned: unique id -> members.
class CompiledOverlay {
 public:
  CompiledOverlay(CompiledOverlay&&) = default;  // the views stay valid: the nodes do not move
  CompiledOverlay& operator=(CompiledOverlay&&) = default;
  CompiledOverlay(const CompiledOverlay&) = delete;
  CompiledOverlay& operator=(const CompiledOverlay&) = delete;

  // Reads `path` ({"ods_compiled_nodes": 1, "invocation_id": ..., "nodes": {id: node}}).
  // Errors: "missing_artifact" (unreadable), "invalid_artifact" (malformed, no `nodes`, another
  // format version), each naming the file.
  [[nodiscard]] static Result<CompiledOverlay> read(const std::filesystem::path& path);

  // The members of node `id` as views into this overlay (valid while it lives), or nullptr when
  // the overlay has no node `id`. Thread-safe (reads only).
  const RawMembers* find(const std::string& id) const;
  std::size_t size() const { return nodes_.size(); }
  const std::string& file() const { return file_; }
  // Ids of the overlay's nodes, to report one that the manifest lacks.
  std::vector<std::string> ids() const;

 private:
  CompiledOverlay() = default;
  struct Node {
    std::vector<std::pair<std::string, std::string>> owned;
    RawMembers views;  // into `owned`
  };
  std::string file_;
  std::unordered_map<std::string, Node> nodes_;
};

}  // namespace ods::dbt::internal
