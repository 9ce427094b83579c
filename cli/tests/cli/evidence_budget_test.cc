// The cost rule around the probe (evidence_budget.h): the content statement answers no row for
// the sources left unread, matched by schema and identifier, and what such a source carries.
#include "evidence_budget.h"

#include <gtest/gtest.h>

#include "ods/content/content_versions.h"

namespace ods::cli {
namespace {

planner::SourceInput source(const std::string& id, const std::string& relation) {
  planner::SourceInput s;
  s.id = id;
  s.name = id;
  s.relation = relation;
  return s;
}

contracts::ProbeRequest request_with_fallback() {
  contracts::ProbeRequest r;
  r.statements = {{"metadata", "select 1 as bytes"}, {content::kContentStatement, "select count(*) from {relation}"}};
  r.fallback = contracts::ProbeFallback{{}, {{content::kContentStatement, "select 2 from {relation}"}}};
  return r;
}

TEST(EvidenceBudget, OnlyTheContentStatementsOfTheUnreadSourcesAnswerNoRow) {
  contracts::ProbeRequest r = request_with_fallback();
  const planner::SourceInput orders = source("source.shop.raw.orders", "\"shop\".\"Raw\".\"O'rders\"");
  leave_content_unread(r, {&orders});
  EXPECT_EQ(r.statements[0].sql, "select 1 as bytes") << "the cheaper evidence still runs";
  EXPECT_EQ(r.statements[1].sql,
            "select * from (select count(*) from {relation}) as ods_exact__ where not ((lower('{schema}') = 'raw' and "
            "lower('{identifier}') = 'o''rders'))");
  EXPECT_NE(r.fallback->statements[0].sql.find("where not ((lower('{schema}') = 'raw'"), std::string::npos)
      << r.fallback->statements[0].sql;
}

TEST(EvidenceBudget, NothingToLeaveUnreadOrANameThatCantBeSplitChangesNothing) {
  contracts::ProbeRequest r = request_with_fallback();
  leave_content_unread(r, {});
  EXPECT_EQ(r.statements[1].sql, "select count(*) from {relation}");
  const planner::SourceInput open_quote = source("source.shop.raw.x", "\"shop\".\"raw");
  const planner::SourceInput bare = source("source.shop.raw.y", "y");
  leave_content_unread(r, {&open_quote, &bare});
  EXPECT_EQ(r.statements[1].sql, "select count(*) from {relation}");
}

TEST(EvidenceBudget, AnUnreadSourceSaysWhyAndAnExactAnswerCountsAsRead) {
  contracts::SourceVersion exact;
  exact.source_id = "source.shop.raw.orders";
  exact.version = planner::DataVersion{"rows=1;hash=2", planner::Exactness::exact, "duckdb_content", "t"};
  EXPECT_FALSE(note_content_unread(exact, "took 9 s")) << "the relation wasn't matched: the fingerprint was read";
  EXPECT_TRUE(exact.evidence.empty());

  contracts::SourceVersion statistics;
  statistics.source_id = "source.shop.raw.orders";
  statistics.version = planner::DataVersion{"oid=1", planner::Exactness::semantic, "postgres_statistics", "t"};
  statistics.evidence.push_back({"source_content_unread", statistics.source_id,
                                 "the content fingerprint statement "
                                 "gave no usable row_count",
                                 planner::Exactness::none, "postgres_content"});
  EXPECT_TRUE(note_content_unread(statistics, "took 9 s"));
  ASSERT_EQ(statistics.evidence.size(), 1u) << "the empty answer's complaint is replaced";
  EXPECT_EQ(statistics.evidence[0].kind, planner::kExactEvidenceTooCostly);
  EXPECT_EQ(statistics.evidence[0].value, "took 9 s");

  contracts::SourceVersion unknown;
  unknown.source_id = "source.shop.raw.customers";
  unknown.why_unknown = "the content fingerprint statement gave no usable row_count and content_hash";
  EXPECT_TRUE(note_content_unread(unknown, "took 9 s"));
  EXPECT_EQ(unknown.why_unknown, "not fingerprinted: took 9 s");
}

}  // namespace
}  // namespace ods::cli
