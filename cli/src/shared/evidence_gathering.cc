#include "evidence_gathering.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "child_environment.h"
#include "evidence_budget.h"
#include "flag_names.h"
#include "ods/bigquery/bigquery_identity.h"
#include "ods/bigquery/bigquery_versions.h"
#include "ods/content/content_versions.h"
#include "ods/dbt/duckdb_identity.h"
#include "ods/dbt/show_probe.h"
#include "ods/delta/delta_versions.h"
#include "ods/duckdb/duckdb_versions.h"
#include "ods/duckdb/native_probe.h"
#include "ods/iceberg/iceberg_versions.h"
#include "ods/metadata/identity_read.h"
#include "ods/planner/version_choice.h"
#include "ods/postgres/native_probe.h"
#include "ods/postgres/postgres_identity.h"
#include "ods/postgres/postgres_versions.h"
#include "ods/postgres/profile_connection.h"
#include "ods/postgres/view_binding.h"
#include "ods/snowflake/snowflake_identity.h"
#include "ods/snowflake/snowflake_versions.h"
#include "ods/table_format/format_routing.h"

namespace ods::cli {

namespace {

// The composition root's only vendor knowledge: which provider reads which warehouse.
std::unique_ptr<contracts::ChangeProvider> change_provider_for(const std::string& adapter_type,
                                                               const WarehouseOptions& options = {}) {
  if (adapter_type == "duckdb") {
    const auto limit = options.content_max_bytes.value_or(kDefaultDuckDbContentMaxBytes);
    const bool every_table = options.duckdb_storage == DuckDbStorage::every_table;
    if (options.duckdb_storage == DuckDbStorage::off || (!every_table && limit == ~0ULL))
      return content::make_duckdb_content_versions();
    std::error_code error;
    return duckdb::make_duckdb_storage_versions(std::filesystem::current_path(error),
                                                every_table ? std::nullopt : std::optional(limit));
  }
  // Content within the limit (the default's unless the user sets one); above it the statistics.
  if (adapter_type == "postgres")
    return postgres::make_postgres_versions({options.content_max_bytes.value_or(kDefaultContentMaxBytes)});
  // Delta tables by their history, Iceberg tables by their snapshots (each chosen by the format
  // the probe confirms); the other tables (parquet, csv) by their content.
  if (adapter_type == "spark" || adapter_type == "databricks") {
    std::vector<std::unique_ptr<contracts::ChangeProvider>> formats;
    formats.push_back(delta::make_delta_versions());
    formats.push_back(iceberg::make_iceberg_versions());
    return table_format::make_versions_by_format(std::move(formats), content::make_spark_content_versions());
  }
  // The table's last change as semantic evidence; its content where the user allows the scan.
  if (adapter_type == "snowflake") {
    snowflake::SnowflakeOptions snowflake_options{options.content_max_bytes};
    if (!options.snowflake_content_hash.empty()) snowflake_options.content_hash = options.snowflake_content_hash;
    return snowflake::make_snowflake_versions(snowflake_options);
  }
  if (adapter_type == "bigquery") return bigquery::make_bigquery_versions({options.content_max_bytes});
  return nullptr;
}

// Which warehouse gives its relations an identity, and the statements that read it (relation
// kind -> statement; empty: none, the relation is checked to exist only). `checking`: for the
// probe's comparison with the recorded identity (PostgreSQL: none while its counters may be
// behind), else for recording it after a build (Snowflake, BigQuery: none where the metadata is
// not kept up to date).
std::map<std::string, std::string> relation_identity_statements(const std::string& adapter_type,
                                                                bool checking = false) {
  if (adapter_type == "postgres")
    return postgres::identity_statements(checking ? postgres::IdentityRead::checking
                                                  : postgres::IdentityRead::recording);
  if (adapter_type == "duckdb") return dbt::duckdb_identity_statements();
  const auto read = checking ? metadata::IdentityRead::checking : metadata::IdentityRead::recording;
  if (adapter_type == "snowflake") return snowflake::identity_statements(read);
  if (adapter_type == "bigquery") return bigquery::identity_statements(read);
  return {};
}

// The relations the manifest names, and dbt_project.yml's quoting (dbt quotes every part by
// default).
contracts::ProjectRelations native_relations(const NativeProbeSetting& native) {
  contracts::ProjectRelations out;
  for (const auto& p : native.project->source_places) out.sources.push_back({p.id, p.database, p.schema, p.identifier});
  for (const auto& p : native.project->node_places) out.nodes.push_back({p.id, p.database, p.schema, p.identifier});
  out.quote_database = native.project_file.quote_database.value_or(true);
  out.quote_schema = native.project_file.quote_schema.value_or(true);
  out.quote_identifier = native.project_file.quote_identifier.value_or(true);
  return out;
}

// The native probe of `adapter_type`'s warehouse (and the launcher it starts its program with),
// else why not ("" where the warehouse has none).
struct NativeProbe {
  std::unique_ptr<process::ProcessLauncher> launcher;  // DuckDB's: starts the program
  std::unique_ptr<contracts::RelationProbe> probe;
};
std::expected<NativeProbe, std::string> native_probe(const std::string& adapter_type, const WarehouseOptions& options,
                                                     bool may_hold_warehouse) {
  if (adapter_type != "postgres" && adapter_type != "duckdb") return std::unexpected(std::string());
  const NativeProbeSetting& native = options.native;
  if (!native.enabled) return std::unexpected(std::string("ODS_NATIVE_PROBE is off"));
  if (!native.project) return std::unexpected(std::string("the project's relations were not read"));
  if (!native.project_file.quoting_unknown.empty()) return std::unexpected(native.project_file.quoting_unknown);
  if (!native.profile) return std::unexpected(native.profile.error());
  if (adapter_type == "postgres") {
    auto connection = postgres::connection_from_profile(native.profile->target, native.profile->fields);
    if (!connection) return std::unexpected(connection.error());
    return NativeProbe{nullptr, postgres::make_native_postgres_probe(std::move(*connection), native_relations(native))};
  }
  auto database =
      duckdb::database_from_profile(native.profile->target, native.profile->fields, native.profile->structured);
  if (!database) return std::unexpected(database.error());
  if (!native.python) return std::unexpected(native.python.error());
  if (may_hold_warehouse) return std::unexpected(std::string("this command's dbt process has the database file open"));
  NativeProbe out{make_child_launcher(), nullptr};
  out.probe = duckdb::make_native_duckdb_probe(*out.launcher, {*native.python, native.working_dir},
                                               std::move(*database), native_relations(native));
  return out;
}

// `request` answered by the native probe where probe_route allows it, else (or when it fails,
// with a warning saying why) by `through_dbt`. `via`: which one answered.
Result<contracts::ProbeReport> probe_by_route(const std::string& adapter_type, const WarehouseOptions& options,
                                              bool may_hold_warehouse, const contracts::ProbeRequest& request,
                                              contracts::RelationProbe& through_dbt, std::string& via,
                                              std::vector<std::string>& warnings) {
  via = kProbeDbtShow;
  if (auto native = native_probe(adapter_type, options, may_hold_warehouse)) {
    auto report = native->probe->probe(request);
    if (report) {
      via = kProbeNative;
      return report;
    }
    warnings.push_back("the native probe failed (" + report.error().message + "); probed through dbt show instead");
  }
  return through_dbt.probe(request);
}

}  // namespace

ProbeRoute probe_route(const std::string& adapter_type, const WarehouseOptions& options, bool may_hold_warehouse) {
  auto native = native_probe(adapter_type, options, may_hold_warehouse);
  return native ? ProbeRoute{true, ""} : ProbeRoute{false, native.error()};
}

bool rebuild_drops_bound_views(const std::string& adapter_type) {
  return adapter_type == "postgres" && postgres::kRebuildDropsBoundViews;
}

bool relation_identity_readable(const std::string& adapter_type) {
  return !relation_identity_statements(adapter_type).empty();
}

run::ProbeDetails probe_details_of(const GatheredEvidence& evidence) {
  return run::ProbeDetails{evidence.strategy, evidence.call_seconds, evidence.probe_seconds, evidence.warnings};
}

bool content_measurable(const std::string& adapter_type) { return change_provider_for(adapter_type) != nullptr; }

bool content_covers_schema(const std::string& adapter_type) {
  auto provider = change_provider_for(adapter_type);
  return provider != nullptr && provider->content_covers_schema();
}

BuiltRelations read_built_relations(DbtSession& dbt, const std::string& adapter_type, const WarehouseOptions& options,
                                    const std::string& target_dir, const std::vector<std::string>& content_nodes,
                                    bool identities, const std::string& now, std::vector<std::string>& warnings) {
  BuiltRelations out;
  auto provider = change_provider_for(adapter_type, options);
  const bool contents = provider != nullptr && !content_nodes.empty();
  if (identities) identities = relation_identity_readable(adapter_type);
  if (!contents && !identities) return out;
  contracts::ProbeRequest request = contents ? provider->content_request() : contracts::ProbeRequest{};
  request.sources = false;
  request.nodes = identities;
  request.content_nodes = contents ? content_nodes : std::vector<std::string>{};
  if (identities) request.identity_statements = relation_identity_statements(adapter_type);
  auto probe = dbt::make_show_probe(dbt, {{kFlagTargetPath, target_dir + "/ods-probe"}});
  std::string via;
  auto report = probe_by_route(adapter_type, options, dbt.may_hold_warehouse(), request, *probe, via, warnings);
  if (!report) {
    if (contents)
      warnings.push_back("the content of the built nodes could not be read (" + report.error().message +
                         "); their readers won't cut off on them");
    if (identities)
      warnings.push_back("the identity of the built relations could not be read (" + report.error().message +
                         "); they are recorded without one, and their next reuse checks only that they exist");
    return out;
  }
  out.identities = std::move(report->relation_identities);
  if (!contents) return out;
  // The provider reads relations' answers the same way for sources and for nodes.
  for (const auto& [id, answer] : report->contents)
    if (answer.status == contracts::ProbeAnswer::Status::ok) out.content_seconds[id] = answer.seconds;
  contracts::ProbeReport as_sources;
  as_sources.sources = std::move(report->contents);
  for (auto& v : provider->versions(as_sources, now))
    if (v.version && planner::allows_reuse(v.version->exactness))
      out.contents.emplace(v.source_id, std::move(*v.version));
  return out;
}

std::map<std::string, planner::DataVersion> measure_contents(
    DbtSession& dbt, const std::string& adapter_type, const WarehouseOptions& options, const std::string& target_dir,
    const std::vector<std::string>& nodes, const std::string& now, std::vector<std::string>& warnings) {
  return read_built_relations(dbt, adapter_type, options, target_dir, nodes, false, now, warnings).contents;
}

GatheredEvidence gather_evidence(DbtSession& dbt, const std::string& adapter_type, const std::string& target_dir,
                                 planner::ProjectInputs& inputs, const std::string& now, std::size_t probe_parts,
                                 const WarehouseOptions& options,
                                 const std::map<std::string, std::string>& too_costly) {
  GatheredEvidence out;
  out.observed_at = now;
  auto provider = change_provider_for(adapter_type, options);
  contracts::ProbeRequest request;
  if (provider) {
    request = provider->request();
    out.strategy = provider->origin();
    leave_content_unread(request, too_costly);
  } else {
    request.sources = false;  // nothing to read for versions; still check relations
  }
  // The relations' identities in the same call as their existence (relation_probe 0.9).
  if (options.relation_identity) request.identity_statements = relation_identity_statements(adapter_type, true);
  if (!request.identity_statements.empty()) out.relation_identities.emplace();
  // A parallel probe's parts: this session and probe_parts - 1 siblings, each with its own
  // artifacts directory (dbt processes running at once must not share one). The native probe
  // is one call whatever the parts.
  const bool may_hold_warehouse = dbt.may_hold_warehouse();
  if (probe_route(adapter_type, options, may_hold_warehouse).native) probe_parts = 1;
  std::vector<std::unique_ptr<DbtSession>> siblings;
  std::vector<dbt::ShowProbePart> parts{{&dbt, {{kFlagTargetPath, target_dir + "/ods-probe"}}}};
  for (std::size_t i = 1; i < probe_parts; ++i) {
    siblings.push_back(dbt.sibling());
    parts.push_back({siblings.back().get(), {{kFlagTargetPath, target_dir + "/ods-probe-" + std::to_string(i + 1)}}});
  }
  auto probe = dbt::make_parallel_show_probe(std::move(parts));
  auto report = probe_by_route(adapter_type, options, may_hold_warehouse, request, *probe, out.probe_via, out.warnings);
  std::map<std::string, contracts::SourceVersion> versions;
  std::string why_all_unknown;
  if (!report) {
    why_all_unknown = "the probe failed: " + report.error().message;
    out.warnings.push_back(why_all_unknown + "; every source counts as changed and no relation could be checked");
    out.relations_exist.emplace();  // asked, nothing verified: reuse candidates build relation_unverified
  } else {
    out.relations_exist = report->relations_exist;
    out.relation_kinds = report->relation_kinds;
    if (out.relation_identities) out.relation_identities = report->relation_identities;
    out.target = report->target;
    out.call_seconds = report->call_seconds;
    if (provider) {
      for (auto& v : provider->versions(*report, now)) {
        out.probe_seconds[v.source_id] = v.probe_seconds;
        if (auto why = too_costly.find(v.source_id); why != too_costly.end() && note_content_unread(v, why->second))
          out.exact_skipped.push_back(v.source_id);
        else if (v.version && v.version->exactness == planner::Exactness::exact)
          out.exact_seconds[v.source_id] = v.probe_seconds;
        versions[v.source_id] = std::move(v);
      }
    }
  }
  for (auto& source : inputs.sources) {
    if (!provider) {
      planner::apply_version_choice(source, std::nullopt, "");
      continue;
    }
    auto it = versions.find(source.id);
    if (it == versions.end()) {
      planner::apply_version_choice(source, std::optional<planner::DataVersion>(),
                                    why_all_unknown.empty() ? "the probe did not report this source" : why_all_unknown);
    } else {
      planner::apply_version_choice(source, it->second.version, it->second.why_unknown);
      for (auto& ev : it->second.evidence) source.evidence.push_back(std::move(ev));
    }
  }
  return out;
}

}  // namespace ods::cli
