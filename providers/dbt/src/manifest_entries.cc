// Conversion of single manifest entries into compact records (see manifest_records.h).
#include <algorithm>
#include <iterator>
#include <utility>

#include "freshness_policy.h"
#include "json_access.h"
#include "manifest_records.h"
#include "ods/base/result.h"
#include "ods/base/sha256.h"
#include "ods/planner/hook_reads.h"
#include "ods/planner/jinja_purity.h"
#include "ods/planner/sql_normalizer.h"

namespace ods::dbt::internal {
namespace {

std::string value_or_empty(const std::optional<std::string>& s) { return s ? *s : std::string(); }

// Components every node shares are hashed once per process.
const std::string& scheme_digest() {
  static const std::string kDigest = ods::sha256_hex(planner::kFingerprintScheme);
  return kDigest;
}
constexpr std::string_view kContractNotEnforced = "not enforced";
const std::string& contract_not_enforced_digest() {
  static const std::string kDigest = ods::sha256_hex(kContractNotEnforced);
  return kDigest;
}

// "<a>.<b>.<c>" from the non-empty parts.
std::string dotted(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (const auto part : parts) {
    if (part.empty()) continue;
    if (!out.empty()) out.push_back('.');
    out += part;
  }
  return out;
}

// The hooks of one kind ("pre-hook" / "post-hook"): each a {"sql": ...} object or a string.
Result<std::vector<std::string>> read_hooks(const Field& config, std::string_view kind) {
  ODS_TRY(const Field hooks, config.member(kind));
  std::vector<std::string> out;
  if (hooks.missing()) return out;
  const Json& list = *hooks.json();
  if (!list.is_array()) return std::unexpected(hooks.error("expected an array of hooks"));
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& hook = list[i];
    if (hook.is_string()) {
      out.push_back(hook.get<std::string>());
      continue;
    }
    ODS_TRY(const Field item, hooks.element(i));
    ODS_TRY(const Field sql, item.member("sql"));
    ODS_TRY(const std::optional<std::string> text, sql.string());
    if (!text) return std::unexpected(sql.error("expected a string"));
    out.push_back(*text);
  }
  return out;
}

Result<std::optional<bool>> contract_enforced(const RawEntry& node, const Field& config) {
  ODS_TRY(const Json contract_dom, node.dom("contract"));
  const Field contract(&contract_dom, node.file(), node.path() + ".contract");
  ODS_TRY(const Field enforced, contract.member("enforced"));
  if (!enforced.missing()) return enforced.boolean();
  ODS_TRY(const Field config_contract, config.member("contract"));
  ODS_TRY(const Field config_enforced, config_contract.member("enforced"));
  return config_enforced.boolean();
}

// The `contract` component: what an enforced contract makes dbt build (column order, names,
// data types, constraints); a constant when the contract isn't enforced (column data types
// are then documentation only, and dbt applies no constraints).
// nullopt: the contract is enforced but the entry has no columns.
Result<std::optional<std::string>> contract_content(const RawEntry& node, const Field& config) {
  ODS_TRY(const std::optional<bool> enforced, contract_enforced(node, config));
  if (!enforced.value_or(false)) return std::optional<std::string>(kContractNotEnforced);
  if (!node.text("columns")) return std::optional<std::string>();
  ODS_TRY(const Json columns_dom, node.dom("columns"));
  ODS_TRY(const Json contract_dom, node.dom("contract"));
  Json doc = Json::object();
  doc["enforced"] = true;
  const auto alias_types = contract_dom.is_object() ? contract_dom.find("alias_types") : contract_dom.end();
  doc["alias_types"] = alias_types == contract_dom.end() ? Json(nullptr) : *alias_types;
  Json columns = Json::array();
  const Field columns_field(&columns_dom, node.file(), node.path() + ".columns");
  ODS_TRY(const Json* columns_json, columns_field.object());
  if (columns_json != nullptr) {
    for (const auto& [name, column] : columns_json->items()) {
      if (!column.is_object()) {
        ODS_TRY(const Field col, columns_field.member(name));
        return std::unexpected(col.error("expected an object"));
      }
      const auto data_type = column.find("data_type");
      const auto constraints = column.find("constraints");
      columns.push_back(Json::array({name, data_type == column.end() ? Json(nullptr) : *data_type,
                                     constraints == column.end() ? Json::array() : *constraints}));
    }
  }
  doc["columns"] = std::move(columns);
  ODS_TRY(Json constraints, node.dom("constraints"));
  doc["constraints"] = constraints.is_null() ? Json::array() : std::move(constraints);
  ODS_TRY(std::string content, canonical_json(doc, {}, std::string(node.file()) + ": " + node.path() + ".contract"));
  return std::optional<std::string>(std::move(content));
}

struct Dependencies {
  std::vector<std::string> nodes;
  std::vector<std::string> macros;
};

Result<Dependencies> read_depends_on(const Field& entry) {
  ODS_TRY(const Field depends_on, entry.member("depends_on"));
  ODS_TRY(const Field nodes, depends_on.member("nodes"));
  ODS_TRY(const Field macros, depends_on.member("macros"));
  Dependencies out;
  ODS_TRY(out.nodes, nodes.strings());
  ODS_TRY(out.macros, macros.strings());
  return out;
}

// depends_on decoded straight from its text.
Result<Dependencies> read_depends_on(const RawEntry& entry) {
  ODS_TRY(const RawMembers members, entry.object_members("depends_on"));
  const RawEntry depends_on(members, entry.file(), entry.path() + ".depends_on");
  Dependencies out;
  ODS_TRY(out.nodes, depends_on.strings("nodes"));
  ODS_TRY(out.macros, depends_on.strings("macros"));
  return out;
}

constexpr std::string_view kConfigMembersRead[] = {"materialized",    "schema",      "database",  "target_schema",
                                                   "target_database", "pre-hook",    "post-hook", "meta",
                                                   "contract",        "full_refresh"};

Result<Config> convert_config(const RawEntry& entry, std::string_view text, bool with_dom) {
  Config config;
  const std::string path = entry.path() + ".config";
  config.present = true;
  RawMembers members;
  ODS_TRY(config.canonical,
          canonical_json_text(text, entry.file(), path, kConfigExclusions, with_dom ? &members : nullptr));
  if (!with_dom) return config;
  // The few members read here, from their text (no second pass over the whole config).
  config.dom = Json::object();
  for (const auto& [name, value_text] : members) {
    if (std::find(std::begin(kConfigMembersRead), std::end(kConfigMembersRead), name) == std::end(kConfigMembersRead)) {
      continue;
    }
    ODS_TRY(Json value, parse_json_text(value_text, entry.file(), path + "." + name,
                                        [](const EntrySoFar&, std::string_view) { return Keep::build; }));
    config.dom.get_ref<Json::object_t&>().Container::emplace_back(name, std::move(value));
  }
  return config;
}

// The entry's config; from `memo` when an equal text was converted before (then with its
// DOM even if `with_dom` is false).
Result<std::shared_ptr<const Config>> read_config(const RawEntry& entry, bool with_dom, ConfigMemo* memo) {
  const auto text = entry.text("config");
  if (!text) return std::make_shared<const Config>();
  if (text->front() != '{') return std::unexpected(entry.error("config", "expected an object"));
  if (memo == nullptr) {
    ODS_TRY(Config config, convert_config(entry, *text, with_dom));
    return std::make_shared<const Config>(std::move(config));
  }
  if (auto known = memo->find(*text)) return known;
  ODS_TRY(Config config, convert_config(entry, *text, /*with_dom=*/true));
  auto shared = std::make_shared<const Config>(std::move(config));
  memo->remember(*text, shared);
  return shared;
}

// A data test's definition: its SQL or generic test call and arguments, and its config.
// The canonical JSON of {config, kind, language, raw_code, test_metadata}, written
// directly (members in sorted order); config is the canonical config text as a string.
Result<void> add_test(const RawEntry& test, const std::string& id, ManifestRecords& out, ConfigMemo* memo) {
  CheckRecord check;
  check.id = id;
  ODS_TRY(Dependencies deps, read_depends_on(test));
  check.reads = std::move(deps.nodes);
  check.macros = std::move(deps.macros);
  ODS_TRY(const std::shared_ptr<const Config> config, read_config(test, /*with_dom=*/false, memo));
  std::string definition = "{\"config\":";
  append_json_string(config->canonical, definition);
  definition += ",\"kind\":\"data_test\"";
  for (const char* key : {"language", "raw_code", "test_metadata"}) {
    ODS_TRY(const std::string value, test.canonical(key));
    definition += ",\"";
    definition += key;
    definition += "\":";
    definition += value;
  }
  definition += "}";
  check.definition_digest = ods::sha256_hex(definition);
  out.checks.push_back(std::move(check));
  return {};
}

// How the node is materialized and placed, from its config: materialized (its resource type when
// unset), ephemeral, a configured full_refresh, and whether a custom schema or database moves it.
Result<void> read_materialization(const Field& config, NodeRecord& record) {
  ODS_TRY(const Field materialized_field, config.member("materialized"));
  ODS_TRY(const std::optional<std::string> materialized, materialized_field.string());
  record.materialized = materialized ? *materialized : record.resource_type;
  record.ephemeral = record.resource_type == "model" && record.materialized == "ephemeral";
  ODS_TRY(const Field full_refresh, config.member("full_refresh"));
  record.full_refresh_configured = !full_refresh.missing();  // missing(): absent or null

  bool custom_placement = false;
  for (const char* key : {"schema", "database", "target_schema", "target_database"}) {
    ODS_TRY(const Field field, config.member(key));
    custom_placement = custom_placement || !field.missing();
  }
  record.default_placement = !custom_placement;
  return {};
}

// The node's code: its raw code's digest, what its compile key reads (or why it can have none),
// whether planning needs its file, and its compiled code in the fingerprint (SQL normalised; a
// missing compiled code makes the fingerprint incomplete).
Result<void> read_code(const RawEntry& node, NodeRecord& record) {
  ODS_TRY(const std::optional<std::string> language_value, node.string("language"));
  const std::string language = language_value.value_or("sql");
  ODS_TRY(const std::optional<std::string> raw_code, node.string("raw_code"));
  ODS_TRY(const std::optional<std::string> compiled_code, node.string("compiled_code"));
  if (raw_code) record.raw_digest = ods::sha256_hex(*raw_code);

  planner::Fingerprint& fp = record.fingerprint;
  const bool is_sql = language == "sql" && record.resource_type != "seed";
  if (record.resource_type == "seed") {
    record.key_blocker = "a seed (nothing to compile)";
  } else if (!is_sql) {
    record.key_blocker = "a " + language + " model";
  } else if (!raw_code) {
    record.key_blocker = "no raw code";
  } else if (auto reads = planner::compile_key_reads(*raw_code)) {
    record.key_reads = std::move(*reads);
  } else {
    record.key_blocker = std::move(reads.error());
  }
  if (record.resource_type == "seed") {
    record.needs_file = true;
  } else if (language == "python") {
    record.needs_file = true;
    if (compiled_code) {
      fp.add("compiled_code", *compiled_code);
    } else {
      record.incomplete.push_back("no compiled code: run dbt compile");
    }
  } else if (is_sql) {
    record.needs_file = !raw_code || planner::jinja_impurity(*raw_code).has_value();
    if (compiled_code) {
      planner::NormalizedSql sql = planner::normalize_sql(*compiled_code);
      record.sql_normalised = sql.normalised;
      fp.add("sql", sql.text);
    } else {
      record.incomplete.emplace_back(kNoCompiledSql);
    }
  } else {
    record.needs_file = true;  // another language: only the file says what it is
  }
  return {};
}

// The node file's content as the manifest's checksum gives it ("<name>:<checksum>"); none for a
// "path" or "none" checksum, which say nothing of the content.
Result<void> read_file_checksum(const RawEntry& node, std::string_view file, NodeRecord& record) {
  const auto checksum_text = node.text("checksum");
  if (!checksum_text) return {};
  if (checksum_text->front() != '{') return std::unexpected(node.error("checksum", "expected an object"));
  ODS_TRY(const RawMembers members, node.object_members("checksum"));
  const RawEntry checksum(members, file, node.path() + ".checksum");
  ODS_TRY(const std::optional<std::string> name, checksum.string("name"));
  ODS_TRY(const std::optional<std::string> value, checksum.string("checksum"));
  if (name && value && !value->empty() && *name != "path" && *name != "none") {
    record.file_content = *name + ":" + *value;
  }
  return {};
}

// What the node's config decides beyond placement: the config in the fingerprint (incomplete
// without a recorded config), the hooks that read the run context (so the node always builds;
// a literal one keyed), and the freshness policy of meta.ods (its warnings into `warnings`).
Result<void> read_config_effects(const Config& config_text, const Field& config, const std::string& id,
                                 NodeRecord& record, std::vector<std::string>& warnings) {
  if (!config_text.present) {
    record.incomplete.push_back("no recorded config");
    return {};
  }
  record.fingerprint.add("config", config_text.canonical);
  for (const char* kind : {"pre-hook", "post-hook"}) {
    ODS_TRY(const std::vector<std::string> hooks, read_hooks(config, kind));
    record.has_hooks = record.has_hooks || !hooks.empty();
    for (std::size_t i = 0; i < hooks.size(); ++i) {
      if (const auto word = planner::reads_run_context(hooks[i])) {
        const std::string hook = std::string(kind) + " " + std::to_string(i + 1);
        record.always_build.push_back(hook + " reads " + *word);
        if (auto reads = planner::literal_context_reads(hooks[i])) {
          record.literal_hooks.push_back({hook, record.always_build.back(), std::move(*reads)});
        }
      }
    }
  }
  ODS_TRY(const Field meta, config.member("meta"));
  ODS_TRY(const Field ods, meta.member("ods"));
  record.policy = read_freshness_policy(ods.json(), id, warnings);
  return {};
}

}  // namespace

Result<ManifestMeta> read_manifest_meta(const Json& metadata, std::string_view file) {
  const Field meta(&metadata, file, "metadata");
  ODS_TRY(const Json* object, meta.object());
  if (object == nullptr) return std::unexpected(meta.error("expected an object"));
  ManifestMeta out;
  const std::pair<const char*, std::string*> fields[] = {
      {"dbt_schema_version", &out.schema_version}, {"dbt_version", &out.dbt_version},
      {"adapter_type", &out.adapter_type},         {"project_name", &out.project_name},
      {"invocation_id", &out.invocation_id},       {"generated_at", &out.generated_at}};
  for (const auto& [key, target] : fields) {
    ODS_TRY(const Field field, meta.member(key));
    ODS_TRY(const std::optional<std::string> value, field.string());
    *target = value_or_empty(value);
  }
  return out;
}

std::shared_ptr<const Config> ConfigMemo::find(std::string_view raw) const {
  const std::lock_guard lock(mutex_);
  const auto it = configs_.find(raw);
  return it == configs_.end() ? nullptr : it->second;
}

void ConfigMemo::remember(std::string_view raw, const std::shared_ptr<const Config>& config) {
  const std::lock_guard lock(mutex_);
  if (configs_.size() < kMaxEntries) configs_.try_emplace(std::string(raw), config);
}

Result<void> add_node_entry(const RawMembers& raw, const std::string& id, std::string_view file, ManifestRecords& out,
                            ConfigMemo* memo) {
  const RawEntry node(raw, file, "nodes." + id);
  ODS_TRY(const std::optional<std::string> resource_type, node.string("resource_type"));
  if (!resource_type) return std::unexpected(node.error("resource_type", "expected a string"));
  if (*resource_type == "test") return add_test(node, id, out, memo);
  if (*resource_type != "model" && *resource_type != "seed" && *resource_type != "snapshot") return {};

  NodeRecord record;
  record.id = id;
  record.resource_type = *resource_type;
  const std::pair<const char*, std::string*> strings[] = {{"name", &record.name},
                                                          {"package_name", &record.package_name},
                                                          {"database", &record.database},
                                                          {"schema", &record.schema}};
  for (const auto& [key, target] : strings) {
    ODS_TRY(std::optional<std::string> value, node.string(key));
    if (value) *target = std::move(*value);
  }
  ODS_TRY(const std::shared_ptr<const Config> config_read, read_config(node, /*with_dom=*/true, memo));
  const Config& config_text = *config_read;
  const Field config(config_text.present ? &config_text.dom : nullptr, file, node.path() + ".config");
  ODS_TRY_VOID(read_materialization(config, record));

  ODS_TRY(Dependencies deps, read_depends_on(node));
  record.depends_nodes = std::move(deps.nodes);
  record.depends_macros = std::move(deps.macros);

  record.fingerprint.components["scheme"] = scheme_digest();
  ODS_TRY_VOID(read_code(node, record));
  ODS_TRY_VOID(read_file_checksum(node, file, record));
  ODS_TRY_VOID(read_config_effects(config_text, config, id, record, out.warnings));

  planner::Fingerprint& fp = record.fingerprint;
  ODS_TRY(const std::optional<std::string> contract, contract_content(node, config));
  if (contract) {
    if (*contract == kContractNotEnforced) {
      fp.components["contract"] = contract_not_enforced_digest();
    } else {
      fp.add("contract", *contract);
    }
  } else {
    record.incomplete.push_back("the contract is enforced but the manifest records no columns");
  }

  ODS_TRY(const std::optional<std::string> relation_name, node.string("relation_name"));
  ODS_TRY(const std::optional<std::string> alias, node.string("alias"));
  record.identifier = alias && !alias->empty() ? *alias : record.name;
  record.relation =
      relation_name ? *relation_name : dotted({record.database, record.schema, alias ? *alias : record.name});
  fp.add("relation", record.relation);
  out.nodes.push_back(std::move(record));
  return {};
}

Result<void> add_unit_test_entry(const Json& entry, const std::string& id, std::string_view file,
                                 ManifestRecords& out) {
  const Field test(&entry, file, "unit_tests." + id);
  CheckRecord check;
  check.id = id;
  ODS_TRY(Dependencies deps, read_depends_on(test));
  check.reads = std::move(deps.nodes);
  check.macros = std::move(deps.macros);
  Json definition = Json::object();
  definition["kind"] = "unit_test";
  for (const char* key : {"model", "given", "expect", "overrides", "version", "versions"}) {
    ODS_TRY(const Field member, test.member(key));
    definition[key] = member.missing() ? Json(nullptr) : *member.json();
  }
  ODS_TRY(const Field config, test.member("config"));
  ODS_TRY(const Json* config_json, config.object());
  std::string config_text;
  if (config_json != nullptr) {
    ODS_TRY(config_text, canonical_json(*config_json, kConfigExclusions, std::string(file) + ": " + id + ".config"));
  }
  definition["config"] = std::move(config_text);
  ODS_TRY(const std::string canonical, canonical_json(definition, {}, std::string(file) + ": " + id));
  check.definition_digest = ods::sha256_hex(canonical);
  out.checks.push_back(std::move(check));
  return {};
}

Result<void> add_macro_entry(const Json& entry, const std::string& id, std::string_view file, ManifestRecords& out) {
  const Field macro(&entry, file, "macros." + id);
  MacroRecord record;
  ODS_TRY(const Field name, macro.member("name"));
  ODS_TRY(const std::optional<std::string> name_value, name.string());
  ODS_TRY(const Field package, macro.member("package_name"));
  ODS_TRY(const std::optional<std::string> package_value, package.string());
  ODS_TRY(const Field sql, macro.member("macro_sql"));
  ODS_TRY(const std::optional<std::string> sql_value, sql.string());
  ODS_TRY(const Field depends_on, macro.member("depends_on"));
  ODS_TRY(const Field depends, depends_on.member("macros"));
  ODS_TRY(record.depends, depends.strings());
  record.name = value_or_empty(name_value);
  record.package_name = value_or_empty(package_value);
  const std::string text = value_or_empty(sql_value);
  record.sql_digest = ods::sha256_hex(text);
  record.run_context_word = planner::reads_run_context(text);
  record.compile_impure_word = planner::compile_impure_word(text);
  out.macros.insert_or_assign(id, std::move(record));
  return {};
}

Result<void> add_source_entry(const Json& entry, const std::string& id, std::string_view file, ManifestRecords& out) {
  const Field source(&entry, file, "sources." + id);
  SourceRecord record;
  record.id = id;
  std::string source_name, name;
  const std::pair<const char*, std::string*> strings[] = {
      {"source_name", &source_name},      {"name", &name},
      {"database", &record.database},     {"schema", &record.schema},
      {"identifier", &record.identifier}, {"relation_name", &record.relation}};
  for (const auto& [key, target] : strings) {
    ODS_TRY(const Field field, source.member(key));
    ODS_TRY(const std::optional<std::string> value, field.string());
    *target = value_or_empty(value);
  }
  record.name = source_name.empty() ? name : source_name + "." + name;
  if (record.relation.empty())
    record.relation = dotted({record.database, record.schema, record.identifier.empty() ? name : record.identifier});
  ODS_TRY(const Field config, source.member("config"));
  for (const Field* holder : {&source, &config}) {
    for (const char* key : {"loaded_at_field", "loaded_at_query"}) {
      ODS_TRY(const Field field, holder->member(key));
      ODS_TRY(const std::optional<std::string> value, field.string());
      record.has_loaded_at = record.has_loaded_at || (value && !value->empty());
    }
  }
  out.sources.push_back(std::move(record));
  return {};
}

}  // namespace ods::dbt::internal
