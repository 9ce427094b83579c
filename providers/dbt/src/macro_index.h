#pragma once
// Which macros a node's fingerprint covers (ADR-0013 `macros` component): the project's and
// packages' macros, transitively; dbt's own and the adapter's are covered by `engine`.
#include <string>
#include <unordered_map>
#include <vector>

#include "manifest_records.h"

namespace ods::dbt::internal {

class MacroIndex final {
 public:
  // `macros` must outlive the index. Not thread-safe (caches closures).
  MacroIndex(const std::unordered_map<std::string, MacroRecord>& macros, const ManifestMeta& meta);

  // dbt's own package ("dbt") and the adapter's ("dbt_<adapter>", plus the packages of the
  // adapters it extends, e.g. dbt_postgres for redshift).
  bool is_internal_package(std::string_view package) const;

  struct Closure {
    std::vector<std::string> present;  // non-internal macro ids, sorted
    std::vector<std::string> missing;  // non-internal ids listed but absent from the manifest, sorted
  };
  // Every macro reachable from `seeds` through depends_on.macros (internal macros are
  // traversed but not listed). The reference stays valid while the index lives.
  const Closure& closure(const std::vector<std::string>& seeds);

  // Non-internal materialization macros that may implement `materialized` on this adapter
  // (materialization_<m>_<adapter>, ..._<parent adapter>, ..._default).
  const std::vector<std::string>& materialization_macros(const std::string& materialized);
  // The project's generate_{schema,alias,database}_name overrides, from the root project
  // and from `package` (the node's own package).
  const std::vector<std::string>& generate_name_macros(const std::string& package);

  const MacroRecord* find(const std::string& id) const;
  // "util.env_suffix" for "macro.util.env_suffix".
  static std::string display_name(const std::string& id);

 private:
  const std::unordered_map<std::string, MacroRecord>& macros_;
  std::string root_project_;
  std::vector<std::string> adapter_types_;  // the adapter, then the adapters it extends
  std::vector<std::string> internal_packages_;
  std::unordered_map<std::string, std::vector<std::string>> by_name_;  // non-internal only
  // Caches: closures by their seeds as listed (joined), lookups by materialization/package.
  std::unordered_map<std::string, Closure> closures_;
  std::unordered_map<std::string, std::vector<std::string>> materializations_;
  std::unordered_map<std::string, std::vector<std::string>> generate_names_;
};

}  // namespace ods::dbt::internal
