// IcebergVersions over probe reports made of rows a real table's metadata tables returned (Spark
// 4.0.1, Iceberg 1.10.1, shortened): the request it makes, the version it names after each
// scenario of the Spark suite (tests/iceberg), and every way a source ends up unknown.
#include "ods/iceberg/iceberg_versions.h"

#include <gtest/gtest.h>

#include <regex>

namespace ods::iceberg {
namespace {

using contracts::ProbeAnswer;
using contracts::ProbeRow;

// Recorded summaries (snapshot_cases has them whole).
const char* kAppend2 =
    R"({"added-data-files": "1", "added-records": "2", "total-records": "2", "total-data-files": "1"})";
const char* kAppend1 =
    R"({"added-data-files": "1", "added-records": "1", "total-records": "3", "total-data-files": "2"})";
const char* kCompaction =
    R"({"added-data-files": "1", "added-records": "3", "deleted-data-files": "2", "deleted-records": "3", "total-records": "3"})";
const char* kNoOpDelete = R"({"changed-partition-count": "0", "total-records": "3", "total-data-files": "1"})";

ProbeRow snapshot(const std::string& id, const std::string& parent, const std::string& operation,
                  const std::string& summary) {
  ProbeRow row{{"snapshot_id", id},
               {"operation", operation},
               {"committed_at", "2026-12-03 19:39:0" + id.substr(0, 1)},
               {"summary", summary}};
  if (!parent.empty()) row["parent_id"] = parent;
  return row;
}

// DESCRIBE TABLE's rows as Spark gives them for an Iceberg table: the columns, then sections.
std::vector<ProbeRow> describe(const std::vector<std::pair<std::string, std::string>>& columns) {
  std::vector<ProbeRow> rows;
  for (const auto& [name, type] : columns) rows.push_back({{"col_name", name}, {"data_type", type}});
  rows.push_back({{"col_name", ""}, {"data_type", ""}, {"comment", ""}});
  rows.push_back({{"col_name", "# Metadata Columns"}, {"data_type", ""}, {"comment", ""}});
  rows.push_back({{"col_name", "_spec_id"}, {"data_type", "int"}, {"comment", ""}});
  return rows;
}

const std::vector<std::pair<std::string, std::string>> kColumns = {{"id", "int"}, {"amount", "int"}};

// The answer for a table whose current snapshot is `current`, with `columns`, and whose current
// line is `ancestors`, newest first (as the statement orders them).
ProbeAnswer iceberg_answer(const std::string& current, std::vector<ProbeRow> ancestors,
                           const std::vector<std::pair<std::string, std::string>>& columns = kColumns) {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::ok;
  a.seconds = 0.4;
  a.row_sets["columns"] = describe(columns);
  a.rows["columns"] = a.row_sets["columns"].front();
  a.rows["metadata"] = {{"latest_snapshot_id", current}, {"timestamp", "2026-12-03"}};
  if (current.empty()) a.rows["metadata"].erase("latest_snapshot_id");
  a.row_sets["metadata"] = {a.rows["metadata"]};
  a.rows["snapshots"] = ancestors.empty() ? ProbeRow{} : ancestors.front();
  a.row_sets["snapshots"] = std::move(ancestors);
  return a;
}

contracts::SourceVersion only(const ProbeAnswer& answer) {
  contracts::ProbeReport report;
  report.sources["source.p.raw.t"] = answer;
  auto out = make_iceberg_versions()->versions(report, "2026-12-03T20:00:00Z");
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? contracts::SourceVersion{} : out.front();
}

std::string value_of(const ProbeAnswer& answer) {
  auto v = only(answer);
  EXPECT_TRUE(v.version) << v.why_unknown;
  return v.version ? v.version->value : "";
}

TEST(IcebergVersions, AsksForTheCurrentSnapshotAndItsLineOfIcebergTables) {
  auto r = make_iceberg_versions()->request();
  EXPECT_EQ(r.filter.kinds, std::vector<std::string>{"table"});
  EXPECT_EQ(r.filter.format, "iceberg");
  ASSERT_EQ(r.statements.size(), 3u);
  EXPECT_EQ(r.statements[0].name, "metadata");
  EXPECT_NE(r.statements[0].sql.find("from {relation}.metadata_log_entries order by timestamp desc limit 1"),
            std::string::npos);
  EXPECT_EQ(r.statements[1].name, "snapshots");
  EXPECT_NE(r.statements[1].sql.find("from {relation}.snapshots"), std::string::npos);
  EXPECT_NE(r.statements[1].sql.find("from {relation}.history where is_current_ancestor"), std::string::npos);
  EXPECT_NE(r.statements[1].sql.find("limit 20"), std::string::npos);
  EXPECT_EQ(r.statements[1].max_rows, 20u);
  EXPECT_EQ(r.statements[2].sql, "describe table {relation}");
  EXPECT_FALSE(r.fallback);
  EXPECT_EQ(make_iceberg_versions()->origin(), "iceberg_snapshots");
}

TEST(IcebergVersions, AnAppendIsANewVersionNamedByItsSnapshot) {
  auto before = only(iceberg_answer("1", {snapshot("1", "", "append", kAppend2)}));
  auto after =
      only(iceberg_answer("2", {snapshot("2", "1", "append", kAppend1), snapshot("1", "", "append", kAppend2)}));
  ASSERT_TRUE(before.version && after.version) << before.why_unknown << after.why_unknown;
  EXPECT_TRUE(before.version->value.ends_with("/1")) << before.version->value;
  EXPECT_TRUE(after.version->value.ends_with("/2")) << after.version->value;
  EXPECT_EQ(after.version->exactness, planner::Exactness::exact);
  EXPECT_EQ(after.version->origin, "iceberg_snapshots");
  EXPECT_EQ(after.version->observed_at, "2026-12-03T20:00:00Z");
  EXPECT_DOUBLE_EQ(after.probe_seconds, 0.4);
  ASSERT_EQ(after.evidence.size(), 1u);
  EXPECT_EQ(after.evidence[0].kind, "source_commit");
  EXPECT_EQ(after.evidence[0].value, "snapshot 2, append at 2026-12-03 19:39:02: append recorded added-data-files 1");
}

// Compaction (rewrite_data_files) and a DELETE that matched no row write snapshots that change
// no data: the version stays the append's, each passed over with its own evidence, newest first.
TEST(IcebergVersions, CompactionAndANoOpDeleteKeepTheVersion) {
  auto v =
      only(iceberg_answer("4", {snapshot("4", "3", "delete", kNoOpDelete), snapshot("3", "2", "replace", kCompaction),
                                snapshot("2", "1", "append", kAppend1), snapshot("1", "", "append", kAppend2)}));
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_TRUE(v.version->value.ends_with("/2")) << v.version->value;
  ASSERT_EQ(v.evidence.size(), 3u);
  EXPECT_EQ(v.evidence[1].kind, "source_commit_ignored");
  EXPECT_EQ(v.evidence[1].value.rfind("snapshot 4 (delete added and removed no rows or files)", 0), 0u)
      << v.evidence[1].value;
  EXPECT_EQ(v.evidence[2].value.rfind("snapshot 3 (a replace (compaction or rewrite) that kept the row counts", 0), 0u)
      << v.evidence[2].value;
}

// CALL system.rollback_to_snapshot makes an older snapshot current again: the snapshots after
// it leave the current line (history's is_current_ancestor), and its id is the version — not
// the version before the rollback, so the readers build.
TEST(IcebergVersions, ARollbackNamesTheSnapshotItWentBackTo) {
  auto rolled_back = only(iceberg_answer("1", {snapshot("1", "", "append", kAppend2)}));
  ASSERT_TRUE(rolled_back.version) << rolled_back.why_unknown;
  EXPECT_TRUE(rolled_back.version->value.ends_with("/1")) << rolled_back.version->value;
}

// The rows come newest first by commit time, but the walk follows the parents from the current
// snapshot, so clocks out of step between writers can't reorder it.
TEST(IcebergVersions, TheWalkFollowsParentsNotRowOrder) {
  EXPECT_TRUE(
      value_of(iceberg_answer("3", {snapshot("2", "1", "append", kAppend1), snapshot("1", "", "append", kAppend2),
                                    snapshot("3", "2", "replace", kCompaction)}))
          .ends_with("/2"));
}

// ALTER TABLE ... ADD COLUMN writes no snapshot: the columns move the version. Their comments
// and the sections after them (partitioning, metadata columns) don't.
TEST(IcebergVersions, ASchemaChangeWithoutASnapshotIsANewVersion) {
  auto rows = std::vector<ProbeRow>{snapshot("1", "", "append", kAppend2)};
  std::string before = value_of(iceberg_answer("1", rows));
  EXPECT_NE(before, value_of(iceberg_answer("1", rows, {{"id", "int"}, {"amount", "int"}, {"x", "int"}})));
  EXPECT_NE(before, value_of(iceberg_answer("1", rows, {{"id", "int"}, {"amount", "bigint"}})));
  auto commented = iceberg_answer("1", rows);
  commented.row_sets["columns"][0]["comment"] = "the order id";
  commented.row_sets["columns"].back()["data_type"] = "bigint";
  EXPECT_EQ(before, value_of(commented));
  EXPECT_TRUE(std::regex_match(before, std::regex("schema-[0-9a-f]{16}/1"))) << before;
}

// Dropped and created again with the same rows: a new snapshot id (Iceberg draws one at random
// for each commit), so a new version.
TEST(IcebergVersions, ATableCreatedAgainIsANewVersion) {
  EXPECT_NE(value_of(iceberg_answer("5441199616017513761", {snapshot("5441199616017513761", "", "append", kAppend2)})),
            value_of(iceberg_answer("6378786809022331388", {snapshot("6378786809022331388", "", "append", kAppend2)})));
}

TEST(IcebergVersions, EveryUnreadableAnswerIsUnknownWithItsReason) {
  ProbeAnswer view;
  view.status = ProbeAnswer::Status::skipped;
  view.why = "a view, not table";
  EXPECT_EQ(only(view).why_unknown, "not an Iceberg table: a view, not table");

  ProbeAnswer missing;
  missing.status = ProbeAnswer::Status::missing;
  missing.why = "relation raw.gone does not exist";
  EXPECT_EQ(only(missing).why_unknown, "relation raw.gone does not exist");

  EXPECT_EQ(only(iceberg_answer("", {})).why_unknown,
            "the table has no snapshot yet (metadata_log_entries names none)");

  auto no_columns = iceberg_answer("1", {snapshot("1", "", "append", kAppend2)}, {});
  EXPECT_EQ(only(no_columns).why_unknown, "DESCRIBE TABLE listed no column");

  ProbeAnswer no_metadata;
  no_metadata.status = ProbeAnswer::Status::ok;
  EXPECT_EQ(only(no_metadata).why_unknown, "metadata_log_entries gave no row");

  // A commit between the two statements: the current snapshot isn't among the rows.
  auto raced = iceberg_answer("9", {snapshot("2", "1", "append", kAppend1)});
  EXPECT_NE(only(raced).why_unknown.find("the current snapshot 9 is not among the snapshots read"), std::string::npos);

  auto no_id = iceberg_answer("1", {snapshot("1", "", "append", kAppend2)});
  no_id.row_sets["snapshots"][0].erase("snapshot_id");
  EXPECT_NE(only(no_id).why_unknown.find("without a snapshot_id"), std::string::npos);

  // Back to the table's first snapshot without a data change (a table created empty, then a
  // delete of nothing).
  auto nothing =
      only(iceberg_answer("2", {snapshot("2", "1", "delete", kNoOpDelete), snapshot("1", "", "delete", kNoOpDelete)}));
  EXPECT_FALSE(nothing.version);
  EXPECT_NE(nothing.why_unknown.find("no snapshot of the table changes data (2, back to its first)"), std::string::npos)
      << nothing.why_unknown;

  // The window ends before a data change: the parent wasn't read.
  auto cut = only(iceberg_answer("3", {snapshot("3", "2", "replace", kCompaction)}));
  EXPECT_FALSE(cut.version);
  EXPECT_NE(cut.why_unknown.find("none of the newest 1 snapshots changes data"), std::string::npos) << cut.why_unknown;

  auto another_branch = iceberg_answer("1", {snapshot("1", "", "append", kAppend2)});
  another_branch.branch = 2;
  EXPECT_EQ(only(another_branch).why_unknown, "not an Iceberg table: another branch's answer");
}

}  // namespace
}  // namespace ods::iceberg
