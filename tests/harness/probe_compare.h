#pragma once
// Test-only: comparing a native probe (ods/postgres/native_probe.h, ods/duckdb/native_probe.h)
// with the dbt show probe on the same project: dbt through the harness as ODS's runner runs it,
// the relations dbt's graph names (from target/manifest.json), and the reports compared field by
// field but for the seconds. Header-only.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "harness/dbt_project.h"
#include "ods/contracts/project_relations.h"
#include "ods/contracts/relation_probe.h"
#include "ods/dbt/dbt_command.h"

namespace ods::testing {

using contracts::ProbeAnswer;
using contracts::ProbeReport;

// dbt through the harness, with JSON logs as ODS's runner runs it.
class HarnessDbt final : public dbt::DbtCommand {
 public:
  explicit HarnessDbt(const DbtProject& project) : project_(project) {}
  Result<dbt::DbtCommandResult> run(const std::vector<std::string>& args) override {
    std::vector<std::string> argv{"--log-format", "json"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = project_.dbt(argv);
    dbt::DbtCommandResult out;
    out.exit_code = r.exit_code;
    out.error_text =
        r.exit_code == 0 ? "" : r.errors + r.output.substr(r.output.size() > 4000 ? r.output.size() - 4000 : 0);
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) out.events.push_back(line);
    return out;
  }

 private:
  const DbtProject& project_;
};

// The relations dbt's graph names, from the manifest the run wrote (in its order).
inline contracts::ProjectRelations relations_of(const DbtProject& project) {
  auto manifest = nlohmann::ordered_json::parse(project.read("target/manifest.json"));
  contracts::ProjectRelations out;
  for (const auto& [id, s] : manifest["sources"].items())
    out.sources.push_back({id, s.value("database", ""), s.value("schema", ""), s.value("identifier", "")});
  for (const auto& [id, n] : manifest["nodes"].items()) {
    const std::string type = n.value("resource_type", "");
    const auto& config = n["config"];
    if ((type != "model" && type != "seed" && type != "snapshot") || config.value("materialized", "") == "ephemeral" ||
        !config.value("enabled", true))
      continue;
    std::string identifier = n.contains("alias") && n["alias"].is_string() ? n["alias"].get<std::string>() : "";
    if (identifier.empty()) identifier = n.value("name", "");
    out.nodes.push_back({id, n.value("database", ""), n.value("schema", ""), identifier});
  }
  return out;
}

inline std::string status_name(ProbeAnswer::Status s) {
  switch (s) {
    case ProbeAnswer::Status::ok:
      return "ok";
    case ProbeAnswer::Status::skipped:
      return "skipped";
    case ProbeAnswer::Status::missing:
      return "missing";
    case ProbeAnswer::Status::unknown:
      return "unknown";
  }
  return "?";
}

inline void expect_same_answers(const std::map<std::string, ProbeAnswer>& dbt,
                                const std::map<std::string, ProbeAnswer>& native, const std::string& what) {
  std::vector<std::string> dbt_ids, native_ids;
  for (const auto& [id, a] : dbt) dbt_ids.push_back(id);
  for (const auto& [id, a] : native) native_ids.push_back(id);
  EXPECT_EQ(dbt_ids, native_ids) << what;
  for (const auto& [id, a] : dbt) {
    auto it = native.find(id);
    if (it == native.end()) continue;
    const ProbeAnswer& b = it->second;
    EXPECT_EQ(status_name(a.status), status_name(b.status)) << what << " " << id;
    EXPECT_EQ(a.why, b.why) << what << " " << id;
    EXPECT_EQ(a.fallback, b.fallback) << what << " " << id;
    EXPECT_EQ(a.branch, b.branch) << what << " " << id;
    EXPECT_EQ(a.rows, b.rows) << what << " " << id;
    EXPECT_EQ(a.row_sets, b.row_sets) << what << " " << id;
    EXPECT_EQ(a.statements_skipped, b.statements_skipped) << what << " " << id;
  }
}

inline void expect_same_reports(const ProbeReport& dbt, const ProbeReport& native, const std::string& what) {
  expect_same_answers(dbt.sources, native.sources, what + ": sources");
  expect_same_answers(dbt.contents, native.contents, what + ": contents");
  EXPECT_EQ(dbt.relations_exist, native.relations_exist) << what;
  EXPECT_EQ(dbt.relation_kinds, native.relation_kinds) << what;
  EXPECT_EQ(dbt.relation_identities, native.relation_identities) << what;
  EXPECT_EQ(dbt.sources_elsewhere, native.sources_elsewhere) << what;
  EXPECT_EQ(dbt.contents_elsewhere, native.contents_elsewhere) << what;
  EXPECT_EQ(dbt.target, native.target) << what;
}

// Runs `request` through `show` (the dbt show probe) and `native`, prints both wall times
// ("[<label>] <what>: dbt show S s, native N s"), checks that the native report answers something
// (answers with rows; an identity for every existing relation when asked), and compares the two.
// Returns both reports, or nullopt (a failure recorded) when either call failed.
inline std::optional<std::pair<ProbeReport, ProbeReport>> compare_probes(contracts::RelationProbe& show,
                                                                         contracts::RelationProbe& native,
                                                                         const contracts::ProbeRequest& request,
                                                                         const std::string& label,
                                                                         const std::string& what) {
  auto t0 = std::chrono::steady_clock::now();
  auto through_dbt = show.probe(request);
  const double dbt_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t0 = std::chrono::steady_clock::now();
  auto natively = native.probe(request);
  const double native_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!through_dbt || !natively) {
    ADD_FAILURE() << what << ": " << (through_dbt ? natively.error().message : through_dbt.error().message);
    return std::nullopt;
  }
  std::cout << "[" << label << "] " << what << ": dbt show " << dbt_seconds << " s, native " << native_seconds
            << " s (sources " << natively->sources.size() << ", nodes " << natively->relations_exist.size()
            << ", contents " << natively->contents.size() << ")\n";
  // Not an agreement on nothing: answers with rows, and identities when asked.
  std::size_t with_rows = 0;
  for (const auto* answers : {&natively->sources, &natively->contents})
    for (const auto& [id, a] : *answers) with_rows += a.status == ProbeAnswer::Status::ok && !a.rows.empty();
  EXPECT_GT(with_rows, 0u) << what << ": no answer with rows";
  if (!request.identity_statements.empty() && request.nodes && request.share == 0) {
    std::size_t existing = 0;
    for (const auto& [id, exists] : natively->relations_exist) existing += exists;
    EXPECT_EQ(natively->relation_identities.size(), existing) << what;
  }
  expect_same_reports(*through_dbt, *natively, what);
  return std::pair{std::move(*through_dbt), std::move(*natively)};
}

}  // namespace ods::testing
