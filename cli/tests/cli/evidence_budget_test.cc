// The cost rule around the probe (evidence_budget.h): the sources left unread are named in the
// request's skip list (relation_probe 0.10) for their content statement, and what such a source
// carries.
#include "evidence_budget.h"

#include <gtest/gtest.h>

#include "ods/content/content_versions.h"

namespace ods::cli {
namespace {

contracts::ProbeRequest request_with_fallback() {
  contracts::ProbeRequest r;
  r.statements = {{"metadata", "select 1 as bytes"}, {content::kContentStatement, "select count(*) from {relation}"}};
  r.fallback = contracts::ProbeFallback{{}, {{content::kContentStatement, "select 2 from {relation}"}}};
  return r;
}

TEST(EvidenceBudget, TheUnreadSourcesContentStatementIsSkippedByIdAndNoSqlIsRewritten) {
  contracts::ProbeRequest r = request_with_fallback();
  r.skip_statements["source.shop.raw.payments"] = {"history"};
  leave_content_unread(r, {{"source.shop.raw.orders", "took 9 s"}, {"source.shop.raw.payments", "took 8 s"}});
  const std::map<std::string, std::vector<std::string>> expected = {
      {"source.shop.raw.orders", {content::kContentStatement}},
      {"source.shop.raw.payments", {"history", content::kContentStatement}}};
  EXPECT_EQ(r.skip_statements, expected);
  EXPECT_EQ(r.statements[0].sql, "select 1 as bytes") << "the cheaper evidence still runs";
  EXPECT_EQ(r.statements[1].sql, "select count(*) from {relation}");
  EXPECT_EQ(r.fallback->statements[0].sql, "select 2 from {relation}");
  leave_content_unread(r, {{"source.shop.raw.orders", "took 9 s"}});
  EXPECT_EQ(r.skip_statements, expected) << "named once";
}

TEST(EvidenceBudget, NothingToLeaveUnreadChangesNothing) {
  contracts::ProbeRequest r = request_with_fallback();
  leave_content_unread(r, {});
  EXPECT_TRUE(r.skip_statements.empty());
  EXPECT_EQ(r.statements[1].sql, "select count(*) from {relation}");
}

TEST(EvidenceBudget, AnUnreadSourceSaysWhyAndAnExactAnswerCountsAsRead) {
  contracts::SourceVersion exact;
  exact.source_id = "source.shop.raw.orders";
  exact.version = planner::DataVersion{"rows=1;hash=2", planner::Exactness::exact, "duckdb_content", "t"};
  EXPECT_FALSE(note_content_unread(exact, "took 9 s")) << "a probe that read it anyway: the fingerprint was read";
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
