// Compile keys (compile_key.h, docs/compile-key.md).
#include "compile_key.h"

#include <algorithm>
#include <set>

#include "ods/base/sha256.h"

namespace ods::dbt::internal {

namespace {
constexpr std::string_view kKeyVersion = "ods compile key 1";
const std::string kNoKey;

// dbt's is_incremental() and the should_full_refresh() it calls, by the SHA-256 of their
// macro_sql as dbt-core 1.7 to 1.12 ship them (the same text in each): is_incremental() is true
// exactly when adapter.get_relation finds `this` with type 'table', the model is materialized
// 'incremental' and should_full_refresh() is false (config.full_refresh, else flags.FULL_REFRESH).
// Any other text (a later dbt, a project's or package's override) is impure, as before.
bool known_incremental_macro(const std::string& id, const MacroRecord& macro) {
  return (id == "macro.dbt.is_incremental" &&
          macro.sql_digest == "223c405740dc5d944321f88800fb5a00db4f2c04b5b96d474a521980ebd771b3") ||
         (id == "macro.dbt.should_full_refresh" &&
          macro.sql_digest == "b08ab2963c4333cd9e35a68fcdca61c1f6fdba69e24640df1f465d507599d307");
}
}  // namespace

CompileKeys::CompileKeys(const ManifestRecords& records, const ReadOptions& options, std::string engine)
    : records_(records), options_(options), engine_(std::move(engine)) {
  for (const auto& node : records_.nodes) nodes_[node.id] = &node;
  for (const auto& source : records_.sources) sources_[source.id] = &source;
}

bool CompileKeys::add_macros(const std::vector<std::string>& seeds, bool incremental, bool& assumed,
                             std::string& text) const {
  std::set<std::string> seen;
  std::vector<std::string> pending(seeds.begin(), seeds.end());
  while (!pending.empty()) {
    std::string id = std::move(pending.back());
    pending.pop_back();
    if (!seen.insert(id).second) continue;
    const auto it = records_.macros.find(id);
    if (it == records_.macros.end()) return false;
    if (it->second.compile_impure_word) {
      if (!incremental || !known_incremental_macro(id, it->second)) return false;
      assumed = true;
    }
    pending.insert(pending.end(), it->second.depends.begin(), it->second.depends.end());
  }
  if (assumed) {
    text += "is_incremental";
    text += '\0';
    text += "true\n";
  }
  for (const auto& id : seen) {  // sorted: the key doesn't depend on the order dbt lists them
    const MacroRecord& macro = records_.macros.at(id);
    text += "macro";
    text += '\0' + id + '\0' + macro.package_name + '\0' + macro.sql_digest + '\n';
  }
  return true;
}

bool CompileKeys::add_vars(const NodeRecord& node, std::string& text) const {
  if (node.key_reads.vars.empty()) return true;
  if (!options_.project_vars || options_.project_file_digest.empty() || node.package_name != records_.meta.project_name)
    return false;
  text += "project_file";
  text += '\0' + options_.project_file_digest + '\n';
  for (const auto& name : node.key_reads.vars) {
    const auto it = options_.project_vars->find(name);
    if (it != options_.project_vars->end() && !it->second) return false;  // dbt may resolve it otherwise
    text += "var";
    text += '\0' + name + '\0';
    text += it == options_.project_vars->end() ? std::string("unset") : "value" + std::string(1, '\0') + *it->second;
    text += '\n';
  }
  return true;
}

bool CompileKeys::calls_only_macros(const NodeRecord& node) const {
  for (const auto& call : node.key_reads.calls) {
    const bool found = std::any_of(node.depends_macros.begin(), node.depends_macros.end(), [&](const std::string& id) {
      const auto it = records_.macros.find(id);
      if (it == records_.macros.end()) return false;
      const MacroRecord& m = it->second;
      return call == m.name || call == m.package_name + "." + m.name;
    });
    if (!found) return false;
  }
  return true;
}

const std::string& CompileKeys::key(const NodeRecord& node) {
  if (const auto it = keys_.find(node.id); it != keys_.end()) return it->second;
  if (node.key_blocker || !computing_.insert(node.id).second) return kNoKey;
  const auto component = [&](const char* name) -> const std::string* {
    const auto it = node.fingerprint.components.find(name);
    return it == node.fingerprint.components.end() ? nullptr : &it->second;
  };
  const std::string* config = component("config");
  std::string text(kKeyVersion);
  text += '\n' + engine_ + '\n';
  text += "node";
  text += '\0' + node.id + '\0' + node.resource_type + '\0' + node.raw_digest + '\n';
  text += "this";
  text += '\0' + node.relation + '\n';
  bool keyable = config != nullptr && !node.raw_digest.empty() && calls_only_macros(node) && add_vars(node, text);
  if (keyable) {
    text += "config";
    text += '\0' + *config + '\n';
  }
  std::vector<std::string> reads = node.depends_nodes;
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  for (const auto& id : reads) {
    if (!keyable) break;
    text += "reads";
    text += '\0' + id + '\0';
    if (const auto n = nodes_.find(id); n != nodes_.end()) {
      if (n->second->ephemeral) {  // its compiled SQL is inlined: its key stands for it
        const std::string& inlined = key(*n->second);
        keyable = !inlined.empty();
        text += "ephemeral" + std::string(1, '\0') + inlined + '\n';
      } else {
        text += n->second->relation + '\n';
      }
    } else if (const auto s = sources_.find(id); s != sources_.end()) {
      text += s->second->relation + '\n';
    } else {
      keyable = false;  // a node the key can't describe (a function, a missing node...)
    }
  }
  // Only an incremental model's own is_incremental() is answered (an ephemeral model's is its
  // reader's question, asked at its reader's compile).
  const bool incremental =
      node.resource_type == "model" && node.materialized == "incremental" && !node.full_refresh_configured;
  bool assumed = false;
  keyable = keyable && add_macros(node.depends_macros, incremental, assumed, text);
  if (keyable && assumed) assumed_.insert(node.id);
  computing_.erase(node.id);
  return keys_.emplace(node.id, keyable ? ods::sha256_hex(text) : std::string()).first->second;
}

}  // namespace ods::dbt::internal
