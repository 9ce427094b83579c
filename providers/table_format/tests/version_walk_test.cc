// name_version: the newest entry that changes data names the version; the newer ones that
// don't are evidence; none in the window is unknown.
#include "ods/table_format/version_walk.h"

#include <gtest/gtest.h>

namespace ods::table_format {
namespace {

HistoryEntry entry(const std::string& name, bool changes) {
  return {name, "snapshot " + name, "op at t" + name, {changes, changes ? "it wrote rows" : "compaction"}};
}

TEST(VersionWalk, TheNewestDataChangeNamesTheVersionAndTheNewerOnesAreEvidence) {
  contracts::SourceVersion v;
  v.source_id = "source.p.raw.t";
  name_version(v, "id/", {entry("9", false), entry("8", false), entry("7", true), entry("6", true)},
               {"iceberg_snapshots", "snapshots"}, "2026-12-03T10:00:00Z");
  ASSERT_TRUE(v.version);
  EXPECT_EQ(v.version->value, "id/7");
  EXPECT_EQ(v.version->origin, "iceberg_snapshots");
  EXPECT_EQ(v.version->exactness, planner::Exactness::exact);
  ASSERT_EQ(v.evidence.size(), 3u);
  EXPECT_EQ(v.evidence[0].kind, "source_commit");
  EXPECT_EQ(v.evidence[0].value, "snapshot 7, op at t7: it wrote rows");
  EXPECT_EQ(v.evidence[0].subject, "source.p.raw.t");
  EXPECT_EQ(v.evidence[1].value, "snapshot 9 (compaction)");
  EXPECT_EQ(v.evidence[2].value, "snapshot 8 (compaction)");
}

TEST(VersionWalk, NoDataChangeInTheWindowIsUnknown) {
  contracts::SourceVersion v;
  name_version(v, "", {entry("2", false), entry("1", false)}, {"iceberg_snapshots", "snapshots"}, "now");
  EXPECT_FALSE(v.version);
  EXPECT_EQ(v.why_unknown, "none of the newest 2 snapshots changes data, so the version of the data can't be named");
  contracts::SourceVersion w;
  name_version(w, "", {entry("1", false)}, {"iceberg_snapshots", "snapshots"}, "now", "the table's first snapshot");
  EXPECT_EQ(w.why_unknown, "the table's first snapshot");
  EXPECT_TRUE(w.evidence.empty());
}

}  // namespace
}  // namespace ods::table_format
