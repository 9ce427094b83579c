// PostgresVersions: its requests (content within the limit, the statistics always) and its
// reading of the statistics row: a semantic version only when every change is sure to show, else
// unknown with the reason. The statements themselves run on a real PostgreSQL in
// tests/integration/postgres_evidence_test.cc.
#include "ods/postgres/postgres_versions.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ods/content/content_versions.h"
#include "ods/metadata/metadata_versions.h"

namespace ods::postgres {
namespace {

using contracts::ProbeAnswer;

const char* kSource = "source.shop.raw.orders";
const char* kDigest = "0123456789abcdef0123456789abcdef";

std::map<std::string, std::string> settled_row() {
  return {{"relkind", "r"},
          {"relation_oid", "16390"},
          {"relfilenode", "16390"},
          {"bytes", "626524160"},
          {"n_tup_ins", "10000000"},
          {"n_tup_upd", "0"},
          {"n_tup_del", "0"},
          {"database_stats_reset", ""},
          {"cluster_stats_reset", "2026-12-06 02:29:49.484934+00"},
          {"server_started", "2026-12-06 02:29:49.4+00"},
          {"in_recovery", "false"},
          {"track_counts", "on"},
          {"has_children", "false"},
          {"other_sessions", "0 0"},
          {"content_schema", kDigest}};
}

ProbeAnswer answer(std::map<std::string, std::string> row) {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::ok;
  a.rows[metadata::kMetadataStatement] = std::move(row);
  a.seconds = 0.04;
  return a;
}

contracts::SourceVersion version_of(const ProbeAnswer& a, unsigned long long limit = 1024) {
  contracts::ProbeReport report;
  report.sources[kSource] = a;
  auto out = make_postgres_versions({limit})->versions(report, "2026-12-06T03:00:00Z");
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? contracts::SourceVersion{} : out.front();
}

TEST(PostgresVersions, TheStatisticsAlwaysRunAndTheContentOnlyWithinTheLimitOnTablesAndViews) {
  auto r = make_postgres_versions({4096})->request();
  ASSERT_EQ(r.statements.size(), 2u);
  EXPECT_EQ(r.statements[0].name, metadata::kMetadataStatement);
  EXPECT_NE(r.statements[0].sql.find("pg_stat_user_tables"), std::string::npos);
  EXPECT_EQ(r.statements[1].name, content::kContentStatement);
  ASSERT_TRUE(r.statements[1].only_if);
  EXPECT_EQ(r.statements[1].only_if->column, "bytes");
  EXPECT_EQ(r.statements[1].only_if->max, 4096u);
  EXPECT_EQ(r.filter.kinds, (std::vector<std::string>{"table", "view"}));
  EXPECT_TRUE(make_postgres_versions({4096})->content_covers_schema());
}

// Early cutoff's content of built nodes passes the same size gate, under a statement name no
// reader reads: a large node has no version at all rather than a statistics one.
TEST(PostgresVersions, BuiltNodesContentIsGatedBySizeAndNeverReadAsStatistics) {
  auto provider = make_postgres_versions({4096});
  auto r = provider->content_request();
  ASSERT_EQ(r.statements.size(), 2u);
  EXPECT_EQ(r.statements[0].name, metadata::kContentGateStatement);
  ASSERT_TRUE(r.statements[1].only_if);
  EXPECT_EQ(r.statements[1].only_if->statement, metadata::kContentGateStatement);
  ProbeAnswer large;
  large.status = ProbeAnswer::Status::ok;
  large.rows[metadata::kContentGateStatement] = settled_row();
  contracts::ProbeReport report;
  report.contents[kSource] = large;
  contracts::ProbeReport as_sources;
  as_sources.sources = report.contents;
  auto v = provider->versions(as_sources, "t");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_FALSE(v[0].version) << v[0].version->value;
}

TEST(PostgresVersions, ContentWithinTheLimitIsExactAndHashesByValueOnlyWhereValuesHashApart) {
  const std::string sql = make_postgres_versions({4096})->request().statements[1].sql;
  EXPECT_NE(sql.find("hash_record_extended(ods_row__, 0)"), std::string::npos);
  EXPECT_NE(sql.find("hashtextextended(ods_row__::text, 0)"), std::string::npos);
  // numeric, float, interval and jsonb hash equal values alike (1.0 and 1.00): not by value.
  for (const char* folded : {"'numeric'", "'float8'", "'interval'", "'jsonb'", "'bpchar'"})
    EXPECT_EQ(sql.find(folded), std::string::npos) << folded;
  ProbeAnswer a = answer(settled_row());
  a.rows[content::kContentStatement] = {{"row_count", "3"}, {"content_hash", "-42"}, {"content_schema", kDigest}};
  auto v = version_of(a);
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_EQ(v.version->exactness, planner::Exactness::exact);
  EXPECT_EQ(v.version->origin, kContentOrigin);
  EXPECT_TRUE(v.evidence.empty());
}

TEST(PostgresVersions, AboveTheLimitSettledStatisticsAreASemanticVersionAndTheContentLineSaysWhy) {
  auto v = version_of(answer(settled_row()));
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_EQ(v.version->exactness, planner::Exactness::semantic);
  EXPECT_EQ(v.version->origin, kStatisticsOrigin);
  for (const char* part : {"oid=16390", "relfilenode=16390", "ins=10000000", "upd=0", "del=0",
                           "cluster_stats_reset=2026", "server_started=2026", "schema=0123"})
    EXPECT_NE(v.version->value.find(part), std::string::npos) << part << " in " << v.version->value;
  ASSERT_EQ(v.evidence.size(), 1u);
  EXPECT_EQ(v.evidence[0].kind, "source_content_unread");
  EXPECT_NE(v.evidence[0].value.find("626524160 bytes"), std::string::npos) << v.evidence[0].value;
  EXPECT_NE(v.evidence[0].value.find("limit of 1024 bytes"), std::string::npos) << v.evidence[0].value;
}

// Each field of the row that marks a change (a new relfilenode, a counter, a reset, a restart, a
// new column) gives another version.
TEST(PostgresVersions, EveryFieldThatMarksAChangeChangesTheVersion) {
  const std::string base = version_of(answer(settled_row())).version->value;
  for (const char* field : {"relation_oid", "relfilenode", "n_tup_ins", "n_tup_upd", "n_tup_del",
                            "database_stats_reset", "cluster_stats_reset", "server_started", "content_schema"}) {
    auto row = settled_row();
    row[field] = field == std::string("content_schema") ? "f123456789abcdef0123456789abcdef" : row[field] + "1";
    auto v = version_of(answer(row));
    ASSERT_TRUE(v.version) << field << ": " << v.why_unknown;
    EXPECT_NE(v.version->value, base) << field;
  }
}

TEST(PostgresVersions, StatisticsThatMayMissAChangeAreUnknownWithTheReasonAndTheContentLimit) {
  const std::map<std::string, std::pair<std::string, std::string>> cases = {
      {"view", {"relkind", "v"}},
      {"partitioned table", {"relkind", "p"}},
      {"foreign table", {"relkind", "f"}},
      {"inheritance children", {"has_children", "true"}},
      {"standby", {"in_recovery", "true"}},
      {"track_counts is off", {"track_counts", "off"}},
      {"no insert, update and delete counts", {"n_tup_ins", ""}},
      {"hide their state", {"other_sessions", "2 2"}},
      {"busy within the last 20 s", {"other_sessions", "0 1"}},
      {"no count of the other sessions", {"other_sessions", ""}},
  };
  for (const auto& [why, field] : cases) {
    auto row = settled_row();
    row[field.first] = field.second;
    auto v = version_of(answer(row));
    EXPECT_FALSE(v.version) << why;
    EXPECT_NE(v.why_unknown.find(why), std::string::npos) << why << ": " << v.why_unknown;
    EXPECT_NE(v.why_unknown.find("above the content limit of 1024 bytes"), std::string::npos) << v.why_unknown;
  }
  ProbeAnswer none;
  none.status = ProbeAnswer::Status::ok;
  EXPECT_FALSE(version_of(none).version);
}

}  // namespace
}  // namespace ods::postgres
