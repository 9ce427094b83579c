// DeltaVersions over a probe report: the request it makes, the version it names, and every
// way a source ends up unknown (ADR-0022 §3, §4).
#include "ods/delta/delta_versions.h"

#include <gtest/gtest.h>

namespace ods::delta {
namespace {

using contracts::ProbeAnswer;
using contracts::ProbeRow;

ProbeRow commit(const std::string& version, const std::string& operation, const std::string& metrics = "{}",
                const std::string& parameters = "{}") {
  return {{"version", version},
          {"timestamp", "2026-12-01 10:0" + version + ":00.5"},
          {"operation", operation},
          {"operationMetrics", metrics},
          {"operationParameters", parameters}};
}

ProbeAnswer delta_answer(std::vector<ProbeRow> history, const std::string& id = "11111111-aaaa") {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::ok;
  a.seconds = 0.25;
  a.rows["detail"] = {{"format", "delta"}, {"id", id}};
  a.row_sets["detail"] = {a.rows["detail"]};
  a.rows["history"] = history.empty() ? ProbeRow{} : history.front();
  a.row_sets["history"] = std::move(history);
  return a;
}

contracts::SourceVersion only(const contracts::ProbeAnswer& answer) {
  contracts::ProbeReport report;
  report.sources["source.p.raw.t"] = answer;
  auto out = make_delta_versions()->versions(report, "2026-12-01T10:10:00Z");
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? contracts::SourceVersion{} : out.front();
}

TEST(DeltaVersions, AsksForDetailAndTwentyCommitsOfDeltaTables) {
  auto alone = make_delta_versions()->request();
  EXPECT_EQ(alone.filter.kinds, std::vector<std::string>{"table"});
  EXPECT_EQ(alone.filter.format, "delta");
  ASSERT_EQ(alone.statements.size(), 2u);
  EXPECT_EQ(alone.statements[0].sql, "describe detail {relation}");
  EXPECT_EQ(alone.statements[1].sql, "describe history {relation} limit 20");
  EXPECT_EQ(alone.statements[1].max_rows, 20u);
  EXPECT_FALSE(alone.fallback);
  EXPECT_EQ(make_delta_versions()->origin(), "delta_history");
}

TEST(DeltaVersions, TheVersionIsTheTableIdAndTheNewestDataChangeCommit) {
  auto v = only(delta_answer(
      {commit("3", "OPTIMIZE", R"({"numRemovedFiles": "4", "numAddedFiles": "1"})"), commit("2", "SET TBLPROPERTIES"),
       commit("1", "WRITE", R"({"numOutputRows": "2"})", R"({"mode": "Append"})"), commit("0", "CREATE TABLE")}));
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_EQ(v.version->value, "11111111-aaaa/1");
  EXPECT_EQ(v.version->exactness, planner::Exactness::exact);
  EXPECT_EQ(v.version->origin, "delta_history");
  EXPECT_EQ(v.version->observed_at, "2026-12-01T10:10:00Z");
  EXPECT_DOUBLE_EQ(v.probe_seconds, 0.25);
  ASSERT_EQ(v.evidence.size(), 3u);
  EXPECT_EQ(v.evidence[0].kind, "source_commit");
  EXPECT_NE(v.evidence[0].value.find("version 1, WRITE at 2026-12-01 10:01:00.5"), std::string::npos)
      << v.evidence[0].value;
  EXPECT_EQ(v.evidence[1].kind, "source_commit_ignored");
  EXPECT_NE(v.evidence[1].value.find("version 3 (OPTIMIZE"), std::string::npos) << v.evidence[1].value;
}

// A table vacuumed and given a property (or a comment) after its last insert, as Delta 4.0
// writes the history: every maintenance commit after the data change is passed over, each
// with its own evidence, newest first (the lakehouse suite checked this on a real table).
TEST(DeltaVersions, EveryMaintenanceCommitAfterTheDataChangeIsPassedOverWithItsOwnEvidence) {
  auto v = only(delta_answer({commit("5", "SET TBLPROPERTIES", "{}", R"({"properties": "{\"comment\":\"x\"}"})"),
                              commit("4", "VACUUM END", R"({"numDeletedFiles": "2", "numVacuumedDirectories": "1"})",
                                     R"({"status": "COMPLETED"})"),
                              commit("3", "VACUUM START", R"({"numFilesToDelete": "2", "sizeOfDataToDelete": "1400"})"),
                              commit("2", "WRITE", R"({"numOutputRows": "1"})", R"({"mode": "Append"})"),
                              commit("1", "WRITE", R"({"numOutputRows": "2"})", R"({"mode": "Append"})"),
                              commit("0", "CREATE TABLE")}));
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_EQ(v.version->value, "11111111-aaaa/2");
  ASSERT_EQ(v.evidence.size(), 4u);
  EXPECT_EQ(v.evidence[0].kind, "source_commit");
  EXPECT_NE(v.evidence[0].value.find("version 2, WRITE"), std::string::npos) << v.evidence[0].value;
  const char* passed_over[] = {"version 5 (SET TBLPROPERTIES", "version 4 (VACUUM END", "version 3 (VACUUM START"};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(v.evidence[i + 1].kind, "source_commit_ignored");
    EXPECT_EQ(v.evidence[i + 1].value.rfind(passed_over[i], 0), 0u) << v.evidence[i + 1].value;
  }
}

// RESTORE ... TO VERSION AS OF 1 brings back version 1's rows, but the version is the RESTORE's
// own commit: it differs from the version before it and from the one it restored, so the
// readers build. Its commit is the evidence, and nothing is passed over.
TEST(DeltaVersions, ARestoreIsANewVersionNamedByItsOwnCommit) {
  const std::vector<ProbeRow> before = {commit("2", "WRITE", R"({"numOutputRows": "1"})", R"({"mode": "Append"})"),
                                        commit("1", "WRITE", R"({"numOutputRows": "1"})", R"({"mode": "Append"})"),
                                        commit("0", "CREATE TABLE")};
  std::vector<ProbeRow> after = before;
  after.insert(after.begin(),
               commit("3", "RESTORE", R"({"numRemovedFiles": "1", "numRestoredFiles": "0"})", R"({"version": "1"})"));
  auto old_version = only(delta_answer(before));
  auto restored = only(delta_answer(after));
  ASSERT_TRUE(old_version.version && restored.version) << restored.why_unknown;
  EXPECT_EQ(old_version.version->value, "11111111-aaaa/2");
  EXPECT_EQ(restored.version->value, "11111111-aaaa/3");
  ASSERT_EQ(restored.evidence.size(), 1u);
  EXPECT_EQ(restored.evidence[0].kind, "source_commit");
  EXPECT_NE(restored.evidence[0].value.find("version 3, RESTORE at "), std::string::npos) << restored.evidence[0].value;
}

TEST(DeltaVersions, CommitsAreOrderedByVersionWhateverOrderTheyCameIn) {
  auto v = only(delta_answer({commit("1", "WRITE", R"({"numOutputRows": "2"})"),
                              commit("2", "WRITE", R"({"numOutputRows": "1"})"), commit("0", "CREATE TABLE")}));
  ASSERT_TRUE(v.version);
  EXPECT_EQ(v.version->value, "11111111-aaaa/2");
}

TEST(DeltaVersions, ANewTableIdIsANewVersionEvenAtTheSameVersionNumber) {
  auto before = only(delta_answer({commit("1", "WRITE", R"({"numOutputRows": "2"})")}, "id-one"));
  auto after = only(delta_answer({commit("1", "WRITE", R"({"numOutputRows": "2"})")}, "id-two"));
  ASSERT_TRUE(before.version && after.version);
  EXPECT_NE(*before.version, *after.version);
}

TEST(DeltaVersions, EveryUnreadableAnswerIsUnknownWithItsReason) {
  ProbeAnswer view;
  view.status = ProbeAnswer::Status::skipped;
  view.why = "a view, not table";
  EXPECT_EQ(only(view).why_unknown, "not a Delta table: a view, not table");

  ProbeAnswer missing;
  missing.status = ProbeAnswer::Status::missing;
  missing.why = "relation raw.gone does not exist";
  EXPECT_EQ(only(missing).why_unknown, "relation raw.gone does not exist");

  auto parquet = delta_answer({commit("0", "WRITE", R"({"numOutputRows": "1"})")});
  parquet.rows["detail"]["format"] = "parquet";
  EXPECT_NE(only(parquet).why_unknown.find("format 'parquet'"), std::string::npos);

  auto no_id = delta_answer({commit("0", "CREATE TABLE")}, "");
  EXPECT_EQ(only(no_id).why_unknown, "DESCRIBE DETAIL gave no table id");

  EXPECT_EQ(only(delta_answer({})).why_unknown, "DESCRIBE HISTORY gave no commits");

  auto no_version = delta_answer({commit("1", "WRITE", R"({"numOutputRows": "1"})")});
  no_version.row_sets["history"][0].erase("version");
  EXPECT_NE(only(no_version).why_unknown.find("without a usable version"), std::string::npos);

  auto only_maintenance = delta_answer({commit("5", "OPTIMIZE"), commit("4", "VACUUM END")});
  auto v = only(only_maintenance);
  EXPECT_FALSE(v.version);
  EXPECT_NE(v.why_unknown.find("none of the newest 2 commits changes data"), std::string::npos) << v.why_unknown;

  ProbeAnswer no_detail;
  no_detail.status = ProbeAnswer::Status::ok;
  EXPECT_EQ(only(no_detail).why_unknown, "DESCRIBE DETAIL gave no row");

  auto another_branch = delta_answer({});
  another_branch.fallback = true;
  another_branch.branch = 1;
  EXPECT_EQ(only(another_branch).why_unknown, "not a Delta table: another branch's answer");
}

}  // namespace
}  // namespace ods::delta
