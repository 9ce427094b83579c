// MetadataVersions with a stand-in reader of the metadata answer: what Snowflake's and BigQuery's
// providers share — the request and its size gate, the content answer first, the probe's own
// reasons, and the line that says why a table's content was not read. Each warehouse's reading
// of its metadata view is tested with its provider.
#include "ods/metadata/metadata_versions.h"

#include <gtest/gtest.h>

namespace ods::metadata {
namespace {

using contracts::ProbeAnswer;

const char* kSource = "source.shop.raw.orders";

// Reads "stamp" as a semantic version; refuses a row without it.
MetadataReading read_stamp(const ProbeAnswer& answer, const std::string& observed_at) {
  auto row = answer.rows.find(kMetadataStatement);
  const std::string stamp = row == answer.rows.end() ? "" : column(row->second, "stamp");
  if (stamp.empty()) return {{}, "the metadata view gave no stamp"};
  return {planner::DataVersion{"stamp=" + stamp, planner::Exactness::semantic, "w_stamp", observed_at}, ""};
}

std::unique_ptr<contracts::ChangeProvider> provider(std::optional<unsigned long long> content_max_bytes = {}) {
  MetadataVersionsSpec spec;
  spec.origin = "w";
  spec.content_origin = "w_content";
  spec.metadata = {"ignored", "select stamp, bytes from {metadata_view} where name = '{identifier}'", 1, "TABLES"};
  spec.content = {"ignored", "select count(*) as row_count, h(*) as content_hash from {relation}"};
  spec.content_max_bytes = content_max_bytes;
  spec.view_why = "a view's stamp moves when it is redefined";
  spec.read = read_stamp;
  return make_metadata_versions(std::move(spec));
}

ProbeAnswer answer(std::string stamp, std::string bytes = "1048576") {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::ok;
  a.rows[kMetadataStatement] = {{"stamp", std::move(stamp)}, {"bytes", std::move(bytes)}};
  a.seconds = 0.25;
  return a;
}

contracts::SourceVersion version_of(const ProbeAnswer& a, std::optional<unsigned long long> content_max_bytes = {}) {
  contracts::ProbeReport report;
  report.sources[kSource] = a;
  auto out = provider(content_max_bytes)->versions(report, "2026-12-04T03:00:00Z");
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? contracts::SourceVersion{} : out.front();
}

TEST(MetadataVersions, TheContentStatementRunsOnlyWhenALimitIsSetAndOnlyBelowIt) {
  auto plain = provider()->request();
  ASSERT_EQ(plain.statements.size(), 1u) << "no limit set: no scan";
  EXPECT_EQ(plain.statements[0].name, kMetadataStatement);
  EXPECT_EQ(plain.statements[0].metadata_view, "TABLES");
  EXPECT_EQ(plain.filter.kinds, std::vector<std::string>{"table"});

  auto limited = provider(4096)->request();
  ASSERT_EQ(limited.statements.size(), 2u);
  EXPECT_EQ(limited.statements[1].name, "content");
  ASSERT_TRUE(limited.statements[1].only_if);
  EXPECT_EQ(limited.statements[1].only_if->statement, kMetadataStatement);
  EXPECT_EQ(limited.statements[1].only_if->column, "bytes");
  EXPECT_EQ(limited.statements[1].only_if->max, 4096u);
}

TEST(MetadataVersions, BuiltNodesAreReadByContentAloneWhateverTheirSize) {
  auto r = provider(4096)->content_request();
  ASSERT_EQ(r.statements.size(), 1u);
  EXPECT_EQ(r.statements[0].name, "content");
  EXPECT_FALSE(r.statements[0].only_if);
}

TEST(MetadataVersions, WithoutALimitTheReadersVersionStandsAlone) {
  auto v = version_of(answer("42"));
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_EQ(v.version->value, "stamp=42");
  EXPECT_EQ(v.version->exactness, planner::Exactness::semantic);
  EXPECT_DOUBLE_EQ(v.probe_seconds, 0.25);
  EXPECT_TRUE(v.evidence.empty());
}

TEST(MetadataVersions, TheReadersRefusalIsTheReason) {
  auto v = version_of(answer(""));
  EXPECT_FALSE(v.version);
  EXPECT_EQ(v.why_unknown, "the metadata view gave no stamp");
}

TEST(MetadataVersions, AViewIsUnknownWithTheProbesAndTheWarehousesReasons) {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::skipped;
  a.why = "a view, not table";
  auto v = version_of(a);
  EXPECT_FALSE(v.version);
  EXPECT_EQ(v.why_unknown, "a view (a view, not table): a view's stamp moves when it is redefined");
}

TEST(MetadataVersions, AMissingOrUnansweredTableIsUnknownWithTheProbesReason) {
  ProbeAnswer missing;
  missing.status = ProbeAnswer::Status::missing;
  missing.why = "relation raw.orders does not exist";
  EXPECT_EQ(version_of(missing).why_unknown, "relation raw.orders does not exist");
  ProbeAnswer silent;
  silent.status = ProbeAnswer::Status::unknown;
  EXPECT_EQ(version_of(silent).why_unknown, "the probe had no answer");
}

// The content answer wins, even where the reader would refuse the metadata.
TEST(MetadataVersions, AContentAnswerIsExactWhateverTheMetadataSays) {
  auto a = answer("", "2048");
  a.rows["content"] = {{"row_count", "7"}, {"content_hash", "-12"}};
  auto v = version_of(a, 4096);
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_EQ(v.version->value, "rows=7;hash=-12");
  EXPECT_EQ(v.version->exactness, planner::Exactness::exact);
  EXPECT_EQ(v.version->origin, "w_content");
}

TEST(MetadataVersions, AboveTheLimitTheMetadataAnswersAndSaysWhyWithTheSize) {
  auto v = version_of(answer("42", "1048576"), 4096);
  ASSERT_TRUE(v.version);
  EXPECT_EQ(v.version->exactness, planner::Exactness::semantic);
  ASSERT_EQ(v.evidence.size(), 1u);
  EXPECT_EQ(v.evidence[0].kind, "source_content_unread");
  EXPECT_EQ(v.evidence[0].value,
            "not fingerprinted: its size (1048576 bytes) is above the content limit of 4096 bytes");

  auto unsized = answer("42");
  unsized.rows[kMetadataStatement].erase("bytes");
  EXPECT_NE(version_of(unsized, 4096).evidence[0].value.find("its size (unknown)"), std::string::npos);
}

// An unusable content answer falls back to the metadata, never to a partial value, and says why.
TEST(MetadataVersions, AnUnusableContentAnswerFallsBackToTheMetadata) {
  auto a = answer("42", "10");
  a.rows["content"] = {{"row_count", "1000"}, {"content_hash", "1.2e18"}};
  auto v = version_of(a, 4096);
  ASSERT_TRUE(v.version);
  EXPECT_EQ(v.version->exactness, planner::Exactness::semantic);
  ASSERT_EQ(v.evidence.size(), 1u);
  EXPECT_NE(v.evidence[0].value.find("content_hash"), std::string::npos) << v.evidence[0].value;
  EXPECT_EQ(v.evidence[0].origin, "w_content");
}

}  // namespace
}  // namespace ods::metadata
