// Assembly of the project inputs from the manifest records (see manifest_records.h).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "compile_key.h"
#include "macro_index.h"
#include "manifest_records.h"
#include "ods/base/iso8601.h"
#include "ods/base/sha256.h"
#include "sources_json.h"

namespace ods::dbt::internal {
namespace {

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

bool is_check_id(std::string_view id) { return id.starts_with("test.") || id.starts_with("unit_test."); }

// Whether dbt's build of `node` replaces its relation (creates it anew and drops the old one, as
// the table, view and materialized view materializations do): not a snapshot, nor an incremental
// model or a seed, which write rows into the relation they have, unless full_refresh is
// configured (either value: the safe side). A custom materialization is taken to replace.
bool build_replaces_relation(const NodeRecord& node) {
  if (node.resource_type == "snapshot") return false;
  if (node.resource_type == "seed" || node.materialized == "incremental") return node.full_refresh_configured;
  return true;
}

// What a reader of ephemeral models reads instead of them.
struct Inlined {
  std::vector<std::string> parents;           // non-ephemeral parents, transitively
  std::vector<const NodeRecord*> ephemerals;  // every ephemeral model inlined, transitively
};

class Assembler {
 public:
  Assembler(ManifestRecords& records, const ReadOptions& options, const SourcesJson* sources)
      : records_(records),
        options_(options),
        sources_json_(sources),
        macros_(records.macros, records.meta),
        engine_(records_.meta.dbt_version + "/" + records_.meta.adapter_type),
        engine_digest_(ods::sha256_hex(engine_)),
        compile_keys_(records, options, engine_) {
    for (const auto& node : records_.nodes) nodes_by_id_[node.id] = &node;
  }

  DbtProject run() {
    DbtProject project;
    planner::ProjectInputs& inputs = project.inputs;
    inputs.project = records_.meta.project_name;
    inputs.target = options_.target;
    inputs.invocation_id = records_.meta.invocation_id;
    inputs.generated_at = records_.meta.generated_at;
    inputs.target_identity = target_identity();
    inputs.nodes.reserve(records_.nodes.size());
    for (auto& node : records_.nodes) {
      if (node.ephemeral) continue;
      inputs.nodes.push_back(node_input(node));
      project.node_places.push_back({node.id, node.database, node.schema, node.identifier});
      if (!node.literal_hooks.empty()) project.literal_hooks[node.id] = std::move(node.literal_hooks);
      if (node.materialized == "incremental") project.incremental_models.push_back(node.id);
      if (node.resource_type == "model" && (node.materialized == "view" || node.materialized == "materialized_view"))
        project.view_models.push_back(node.id);
    }
    sort_unique(project.incremental_models);
    sort_unique(project.view_models);
    for (const auto& source : records_.sources) {
      inputs.sources.push_back(source_input(source));
      project.source_places.push_back({source.id, source.database, source.schema, source.identifier});
    }
    assign_checks(project);
    inputs.warnings = std::move(records_.warnings);
    project.meta = records_.meta;
    return project;
  }

 private:
  // Parents of `deps` with ephemeral models replaced by their parents; the inlined
  // ephemeral models are appended to `inlined`.
  std::vector<std::string> resolve(const std::vector<std::string>& deps, std::vector<const NodeRecord*>* inlined) {
    std::vector<std::string> parents;
    for (const auto& dep : deps) {
      if (is_check_id(dep)) continue;
      const auto it = nodes_by_id_.find(dep);
      if (it == nodes_by_id_.end() || !it->second->ephemeral) {
        parents.push_back(dep);  // a node, a source, or an id ODS doesn't know (rule 6)
        continue;
      }
      const Inlined& via = expand(*it->second);
      parents.insert(parents.end(), via.parents.begin(), via.parents.end());
      if (inlined != nullptr) {
        inlined->push_back(it->second);
        inlined->insert(inlined->end(), via.ephemerals.begin(), via.ephemerals.end());
      }
    }
    sort_unique(parents);
    return parents;
  }

  const Inlined& expand(const NodeRecord& ephemeral) {
    if (const auto it = inlined_.find(ephemeral.id); it != inlined_.end()) return it->second;
    static const Inlined kCycle;  // dbt refuses cycles; should one appear, it stops here (uncached)
    if (!expanding_.insert(ephemeral.id).second) return kCycle;
    Inlined result;
    result.parents = resolve(ephemeral.depends_nodes, &result.ephemerals);
    expanding_.erase(ephemeral.id);
    std::sort(result.ephemerals.begin(), result.ephemerals.end(),
              [](const NodeRecord* a, const NodeRecord* b) { return a->id < b->id; });
    result.ephemerals.erase(std::unique(result.ephemerals.begin(), result.ephemerals.end()), result.ephemerals.end());
    return inlined_.emplace(ephemeral.id, std::move(result)).first->second;
  }

  // Moves the node's fingerprint out of `node` (planned nodes are not read again).
  planner::NodeInput node_input(NodeRecord& node) {
    planner::NodeInput in;
    in.id = node.id;
    in.name = node.name;
    in.resource_type = node.resource_type;
    in.relation = node.relation;
    in.raw_digest = node.raw_digest;
    in.sql_normalised = node.sql_normalised;
    in.compile_key = compile_keys_.key(node);  // before the fingerprint is moved out
    in.compile_key_assumes_incremental = compile_keys_.assumes_incremental(node);
    in.incomplete = node.incomplete;
    in.always_build = node.always_build;
    in.self_contained = node.resource_type == "seed";
    in.build_replaces_relation = build_replaces_relation(node);
    in.policy = std::move(node.policy);
    in.fingerprint = std::move(node.fingerprint);

    std::vector<const NodeRecord*> ephemerals;
    in.parents = resolve(node.depends_nodes, &ephemerals);
    std::sort(ephemerals.begin(), ephemerals.end(),
              [](const NodeRecord* a, const NodeRecord* b) { return a->id < b->id; });
    ephemerals.erase(std::unique(ephemerals.begin(), ephemerals.end()), ephemerals.end());

    // file: the node's own checksum when its code needs it, and those of inlined ephemeral
    // models whose Jinja isn't pure (their SQL is in this node's compiled SQL, but what
    // their Jinja ran is not).
    std::string file;
    if (node.needs_file) {
      if (node.file_content) {
        file += node.id + '\0' + *node.file_content + '\n';
      } else {
        in.incomplete.push_back("no content checksum (dbt recorded only the file's path)");
      }
    }
    for (const NodeRecord* eph : ephemerals) {
      if (!eph->needs_file) continue;
      if (eph->file_content) {
        file += eph->id + '\0' + *eph->file_content + '\n';
      } else {
        in.incomplete.push_back("ephemeral model " + eph->id + " has no content checksum");
      }
    }
    if (!file.empty()) in.fingerprint.add("file", file);

    // macros: what the node (and its inlined ephemeral models) calls, its materialization,
    // and the generate_*_name overrides; all transitively.
    std::vector<std::string> used = node.depends_macros;
    for (const NodeRecord* eph : ephemerals) {
      used.insert(used.end(), eph->depends_macros.begin(), eph->depends_macros.end());
    }
    const auto& materialization = macros_.materialization_macros(node.materialized);
    used.insert(used.end(), materialization.begin(), materialization.end());
    const MacroIndex::Closure& runs = macros_.closure(used);  // node-based map: references stay valid
    const MacroIndex::Closure& naming = macros_.closure(macros_.generate_name_macros(node.package_name));
    std::vector<std::string> all = runs.present;
    all.insert(all.end(), naming.present.begin(), naming.present.end());
    sort_unique(all);
    std::string macros;
    for (const auto& id : all) macros += id + '\0' + macros_.find(id)->sql_digest + '\n';
    in.fingerprint.components["macros"] = digest_cached(macros);  // most nodes share their macros
    std::vector<std::string> missing = runs.missing;
    missing.insert(missing.end(), naming.missing.begin(), naming.missing.end());
    sort_unique(missing);
    for (const auto& id : missing) in.incomplete.push_back("macro " + id + " missing from the artifacts");

    // Hooks rule (#218): what a hook reads when it runs is not in the artifacts. The
    // generate_*_name macros ran at parse time; their result is in `relation`.
    if (node.has_hooks) {
      for (const auto& id : runs.present) {
        if (const auto& word = macros_.find(id)->run_context_word) {
          in.always_build.push_back("macro " + MacroIndex::display_name(id) + " reads " + *word);
        }
      }
    }

    if (records_.meta.adapter_type.empty()) {
      in.incomplete.push_back("manifest.json metadata has no adapter_type, so the engine is unknown");
    }
    in.fingerprint.components["engine"] = engine_digest_;
    return in;
  }

  planner::SourceInput source_input(const SourceRecord& source) {
    planner::SourceInput in;
    in.id = source.id;
    in.name = source.name;
    in.relation = source.relation;
    planner::Evidence evidence{"source_data_version", source.id, "", planner::Exactness::none, "manifest.json"};
    const SourceFreshnessResult* result = nullptr;
    if (sources_json_ != nullptr) {
      if (const auto it = sources_json_->results.find(source.id); it != sources_json_->results.end()) {
        result = &it->second;
      }
    }
    if (result != nullptr && !result->max_loaded_at.empty()) {
      planner::DataVersion version;
      version.value = normalize_iso8601(result->max_loaded_at).value_or(result->max_loaded_at);
      version.exactness = planner::Exactness::semantic;
      version.origin = "sources_json";
      if (const auto observed = normalize_iso8601(result->snapshotted_at)) {
        version.observed_at = *observed;
      } else {
        records_.warnings.push_back(source.id + ": sources.json snapshotted_at \"" + result->snapshotted_at +
                                    "\" is not a time; the version counts as never observed");
      }
      evidence = {"source_data_version", source.id, version.value, version.exactness, "sources.json"};
      in.version = std::move(version);
    } else if (result != nullptr) {
      evidence.origin = "sources.json";
      evidence.value = result->error.empty() ? "sources.json has no max_loaded_at (status " + result->status + ")"
                                             : "dbt source freshness failed: " + result->error;
    } else if (!source.has_loaded_at) {
      evidence.value = "no loaded_at_field: no freshness evidence";
    } else if (sources_json_ == nullptr) {
      evidence.value = "no sources.json: run dbt source freshness";
    } else {
      evidence.origin = "sources.json";
      evidence.value = "not in sources.json: dbt source freshness did not measure it";
    }
    in.evidence.push_back(std::move(evidence));
    return in;
  }

  const std::string& digest_cached(const std::string& text) {
    auto it = digest_cache_.find(text);
    if (it == digest_cache_.end()) it = digest_cache_.emplace(text, ods::sha256_hex(text)).first;
    return it->second;
  }

  // tests_of and the checks digests (ADR-0013 #220, #232).
  void assign_checks(DbtProject& project) {
    std::unordered_set<std::string> targets;
    for (const auto& node : project.inputs.nodes) targets.insert(node.id);
    for (const auto& source : project.inputs.sources) targets.insert(source.id);
    std::unordered_map<std::string, std::string> check_digest;
    for (const auto& check : records_.checks) {
      for (const auto& target : resolve(check.reads, nullptr)) {
        if (targets.contains(target)) project.tests_of[target].push_back(check.id);
      }
      check_digest[check.id] = full_check_digest(check);
    }
    std::unordered_map<std::string, std::string> digests;
    for (auto& [target, ids] : project.tests_of) {
      sort_unique(ids);
      std::string text = "engine";
      text += '\0';
      text += engine_ + '\n';
      for (const auto& id : ids) text += id + '\0' + check_digest[id] + '\n';
      digests[target] = ods::sha256_hex(text);
    }
    for (auto& node : project.inputs.nodes) {
      if (const auto it = digests.find(node.id); it != digests.end()) node.checks_digest = it->second;
      // dbt build runs a unit test only with its model's build (never on its own).
      if (const auto it = project.tests_of.find(node.id); it != project.tests_of.end())
        node.checks_need_build = std::any_of(it->second.begin(), it->second.end(),
                                             [](const std::string& id) { return id.starts_with("unit_test."); });
    }
    for (auto& source : project.inputs.sources) {
      if (const auto it = digests.find(source.id); it != digests.end()) source.checks_digest = it->second;
    }
  }

  // A check's definition plus the project and package macros it calls (the definition's
  // digest alone when it calls none, as most generic tests).
  std::string full_check_digest(const CheckRecord& check) {
    const MacroIndex::Closure& used = macros_.closure(check.macros);
    if (used.present.empty() && used.missing.empty()) return check.definition_digest;
    std::string text = check.definition_digest + '\n';
    for (const auto& id : used.present) text += id + '\0' + macros_.find(id)->sql_digest + '\n';
    for (const auto& id : used.missing) {
      text += "missing";
      text += '\0';
      text += id + '\n';
      records_.warnings.push_back(check.id + ": macro " + id + " is missing from the artifacts");
    }
    return ods::sha256_hex(text);
  }

  // adapter/database/schema where the project's models go by default: the most common
  // database and schema among planned nodes without a custom database or schema (all
  // planned nodes when none is), ties broken by name. Never a credential.
  std::string target_identity() const {
    std::map<std::pair<std::string, std::string>, std::size_t> counts;
    for (const bool only_default : {true, false}) {
      for (const auto& node : records_.nodes) {
        if (node.ephemeral || (only_default && !node.default_placement)) continue;
        ++counts[{node.database, node.schema}];
      }
      if (!counts.empty()) break;
    }
    std::pair<std::string, std::string> best;
    std::size_t best_count = 0;
    for (const auto& [place, count] : counts) {
      if (count > best_count) {
        best = place;
        best_count = count;
      }
    }
    return records_.meta.adapter_type + "/" + best.first + "/" + best.second;
  }

  ManifestRecords& records_;
  const ReadOptions& options_;
  const SourcesJson* sources_json_;
  MacroIndex macros_;
  std::string engine_;
  std::string engine_digest_;
  CompileKeys compile_keys_;
  std::unordered_map<std::string, std::string> digest_cache_;  // text -> sha256_hex(text)
  std::unordered_map<std::string, const NodeRecord*> nodes_by_id_;
  std::unordered_map<std::string, Inlined> inlined_;
  std::unordered_set<std::string> expanding_;
};

}  // namespace

DbtProject assemble_project(ManifestRecords&& records, const ReadOptions& options, const SourcesJson* sources) {
  return Assembler(records, options, sources).run();
}

}  // namespace ods::dbt::internal
