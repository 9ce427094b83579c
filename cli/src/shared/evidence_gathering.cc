#include "evidence_gathering.h"

#include <memory>
#include <string>
#include <vector>

#include "flag_names.h"
#include "ods/bigquery/bigquery_versions.h"
#include "ods/content/content_versions.h"
#include "ods/dbt/show_probe.h"
#include "ods/delta/delta_versions.h"
#include "ods/iceberg/iceberg_versions.h"
#include "ods/planner/version_choice.h"
#include "ods/postgres/postgres_versions.h"
#include "ods/snowflake/snowflake_versions.h"
#include "ods/table_format/format_routing.h"

namespace ods::cli {

namespace {

// The composition root's only vendor knowledge: which provider reads which warehouse.
std::unique_ptr<contracts::ChangeProvider> change_provider_for(const std::string& adapter_type,
                                                               const WarehouseOptions& options = {}) {
  if (adapter_type == "duckdb") return content::make_duckdb_content_versions();
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

}  // namespace

run::ProbeDetails probe_details_of(const GatheredEvidence& evidence) {
  return run::ProbeDetails{evidence.strategy, evidence.call_seconds, evidence.probe_seconds, evidence.warnings};
}

bool content_measurable(const std::string& adapter_type) { return change_provider_for(adapter_type) != nullptr; }

bool content_covers_schema(const std::string& adapter_type) {
  auto provider = change_provider_for(adapter_type);
  return provider != nullptr && provider->content_covers_schema();
}

std::map<std::string, planner::DataVersion> measure_contents(
    DbtSession& dbt, const std::string& adapter_type, const WarehouseOptions& options, const std::string& target_dir,
    const std::vector<std::string>& nodes, const std::string& now, std::vector<std::string>& warnings) {
  std::map<std::string, planner::DataVersion> out;
  auto provider = change_provider_for(adapter_type, options);
  if (!provider || nodes.empty()) return out;
  contracts::ProbeRequest request = provider->content_request();
  request.sources = false;
  request.nodes = false;
  request.content_nodes = nodes;
  auto probe = dbt::make_show_probe(dbt, {{kFlagTargetPath, target_dir + "/ods-probe"}});
  auto report = probe->probe(request);
  if (!report) {
    warnings.push_back("the content of the built nodes could not be read (" + report.error().message +
                       "); their readers won't cut off on them");
    return out;
  }
  // The provider reads relations' answers the same way for sources and for nodes.
  contracts::ProbeReport as_sources;
  as_sources.sources = std::move(report->contents);
  for (auto& v : provider->versions(as_sources, now))
    if (v.version && planner::allows_reuse(v.version->exactness)) out.emplace(v.source_id, std::move(*v.version));
  return out;
}

GatheredEvidence gather_evidence(DbtSession& dbt, const std::string& adapter_type, const std::string& target_dir,
                                 planner::ProjectInputs& inputs, const std::string& now, std::size_t probe_parts,
                                 const WarehouseOptions& options) {
  GatheredEvidence out;
  out.observed_at = now;
  auto provider = change_provider_for(adapter_type, options);
  contracts::ProbeRequest request;
  if (provider) {
    request = provider->request();
    out.strategy = provider->origin();
  } else {
    request.sources = false;  // nothing to read for versions; still check relations
  }
  // A parallel probe's parts: this session and probe_parts - 1 siblings, each with its own
  // artifacts directory (dbt processes running at once must not share one).
  std::vector<std::unique_ptr<DbtSession>> siblings;
  std::vector<dbt::ShowProbePart> parts{{&dbt, {{kFlagTargetPath, target_dir + "/ods-probe"}}}};
  for (std::size_t i = 1; i < probe_parts; ++i) {
    siblings.push_back(dbt.sibling());
    parts.push_back({siblings.back().get(), {{kFlagTargetPath, target_dir + "/ods-probe-" + std::to_string(i + 1)}}});
  }
  auto probe = dbt::make_parallel_show_probe(std::move(parts));
  auto report = probe->probe(request);
  std::map<std::string, contracts::SourceVersion> versions;
  std::string why_all_unknown;
  if (!report) {
    why_all_unknown = "the probe failed: " + report.error().message;
    out.warnings.push_back(why_all_unknown + "; every source counts as changed and no relation could be checked");
    out.relations_exist.emplace();  // asked, nothing verified: reuse candidates build relation_unverified
  } else {
    out.relations_exist = report->relations_exist;
    out.relation_kinds = report->relation_kinds;
    out.target = report->target;
    out.call_seconds = report->call_seconds;
    if (provider) {
      for (auto& v : provider->versions(*report, now)) {
        out.probe_seconds[v.source_id] = v.probe_seconds;
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
