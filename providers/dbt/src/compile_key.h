#pragma once
// The compile key of each model and snapshot (docs/compile-key.md): a digest of everything
// its compiled SQL is a function of, as the parse manifest shows it. Internal to providers/dbt.
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "manifest_records.h"

namespace ods::dbt::internal {

class CompileKeys final {
 public:
  // `records` and `options` must outlive this. `engine`: dbt's version and the adapter type.
  CompileKeys(const ManifestRecords& records, const ReadOptions& options, std::string engine);

  // The node's key (64 hex digits), or "" when it can't be keyed: its own code reads what the
  // key can't hold (NodeRecord::key_blocker), it calls a name that is none of the macros it
  // depends on, a macro it depends on (transitively, dbt's own and the adapter's included) is
  // compile-impure (planner::compile_impure_word) or missing, it reads a var that is not a root
  // project node's or that options.project_vars can't resolve, it reads an unknown node or
  // source, or an ephemeral model it inlines can't be keyed. Cached. Not thread-safe.
  const std::string& key(const NodeRecord& node);

  // Whether key(node) holds is_incremental() as true (docs/compile-key.md, "is_incremental()"):
  // an incremental model whose macro closure is pure but for dbt's own is_incremental() and
  // should_full_refresh() (texts known by digest), with no full_refresh in its config. Its key
  // then stands for the incremental form of its SQL, which dbt renders only when its relation
  // exists as a table and the run is no full refresh: whoever takes its recorded SQL checks that.
  bool assumes_incremental(const NodeRecord& node) { return !key(node).empty() && assumed_.contains(node.id); }

 private:
  // Appends the macros `seeds` reach to `text`; false when one is missing or compile-impure
  // (but for dbt's is_incremental() closure when `incremental` allows it: then `assumed`).
  bool add_macros(const std::vector<std::string>& seeds, bool incremental, bool& assumed, std::string& text) const;
  // Appends the values of the vars `node` reads; false when one can't be resolved.
  bool add_vars(const NodeRecord& node, std::string& text) const;
  // Whether every name `node` calls is a macro it depends on.
  bool calls_only_macros(const NodeRecord& node) const;

  const ManifestRecords& records_;
  const ReadOptions& options_;
  std::string engine_;
  std::unordered_map<std::string, const NodeRecord*> nodes_;
  std::unordered_map<std::string, const SourceRecord*> sources_;
  std::unordered_map<std::string, std::string> keys_;
  std::unordered_set<std::string> computing_;  // ephemeral cycles: no key
  std::unordered_set<std::string> assumed_;    // nodes whose key holds is_incremental() true
};

}  // namespace ods::dbt::internal
