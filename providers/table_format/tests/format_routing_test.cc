// make_versions_by_format over stand-in providers: the branches of its request, in order, and
// which provider reads which answer (ADR-0022 §2; relation_probe 0.5).
#include "ods/table_format/format_routing.h"

#include <gtest/gtest.h>

namespace ods::table_format {
namespace {

using contracts::ProbeAnswer;

// A provider that names each answer's version after its one statement's value, and says
// which answers it was given, so a test sees the routing.
class Stand final : public contracts::ChangeProvider {
 public:
  Stand(std::string origin, std::optional<std::string> format)
      : origin_(std::move(origin)), format_(std::move(format)) {}
  std::string origin() const override { return origin_; }
  contracts::ProbeRequest request() const override {
    contracts::ProbeRequest r;
    r.filter.kinds = {"table"};
    r.filter.format = format_;
    r.statements = {{origin_, "select '" + origin_ + "' from {relation}", 1}};
    return r;
  }
  std::vector<contracts::SourceVersion> versions(const contracts::ProbeReport& report,
                                                 const std::string& observed_at) const override {
    std::vector<contracts::SourceVersion> out;
    for (const auto& [id, a] : report.sources) {
      contracts::SourceVersion v;
      v.source_id = id;
      v.probe_seconds = a.seconds;
      auto row = a.rows.find(origin_);
      if (row == a.rows.end() || a.fallback || a.branch != 0)
        v.why_unknown = origin_ + " was given another branch's answer";
      else
        v.version =
            planner::DataVersion{origin_ + ":" + row->second.at("x"), planner::Exactness::exact, origin_, observed_at};
      out.push_back(v);
    }
    return out;
  }

 private:
  std::string origin_;
  std::optional<std::string> format_;
};

std::unique_ptr<contracts::ChangeProvider> three() {
  std::vector<std::unique_ptr<contracts::ChangeProvider>> formats;
  formats.push_back(std::make_unique<Stand>("delta_history", "delta"));
  formats.push_back(std::make_unique<Stand>("iceberg_snapshots", "iceberg"));
  return make_versions_by_format(std::move(formats), std::make_unique<Stand>("spark_content", std::nullopt));
}

ProbeAnswer answered(std::size_t branch, const std::string& statement, const std::string& x, double seconds = 0.5) {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::ok;
  a.branch = branch;
  a.fallback = branch > 0;
  a.rows[statement] = {{"x", x}};
  a.row_sets[statement] = {a.rows[statement]};
  a.seconds = seconds;
  return a;
}

TEST(VersionsByFormat, TheRequestHasOneBranchPerFormatThenTheOtherTables) {
  auto provider = three();
  auto r = provider->request();
  EXPECT_EQ(r.filter.format, "delta");
  ASSERT_EQ(r.statements.size(), 1u);
  EXPECT_EQ(r.statements[0].name, "delta_history");
  ASSERT_TRUE(r.fallback);
  EXPECT_EQ(r.fallback->filter.format, "iceberg");
  EXPECT_EQ(r.fallback->statements[0].name, "iceberg_snapshots");
  ASSERT_EQ(r.further_fallbacks.size(), 1u);
  EXPECT_FALSE(r.further_fallbacks[0].filter.format);
  EXPECT_EQ(r.further_fallbacks[0].statements[0].name, "spark_content");
  EXPECT_EQ(provider->origin(), "delta_history+iceberg_snapshots+spark_content");

  std::vector<std::unique_ptr<contracts::ChangeProvider>> one;
  one.push_back(std::make_unique<Stand>("delta_history", "delta"));
  auto alone = make_versions_by_format(std::move(one))->request();
  EXPECT_FALSE(alone.fallback);
  EXPECT_TRUE(alone.further_fallbacks.empty());
}

TEST(VersionsByFormat, EachAnswerGoesToTheProviderWhoseBranchRanAndAllComeBackInIdOrder) {
  contracts::ProbeReport report;
  report.sources["source.p.raw.c_parquet"] = answered(2, "spark_content", "42");
  report.sources["source.p.raw.a_delta"] = answered(0, "delta_history", "7");
  report.sources["source.p.raw.b_iceberg"] = answered(1, "iceberg_snapshots", "99", 0.75);
  ProbeAnswer view;
  view.status = ProbeAnswer::Status::skipped;
  view.why = "a view, not table";
  view.seconds = 0;
  report.sources["source.p.raw.d_view"] = view;
  ProbeAnswer gone;
  gone.status = ProbeAnswer::Status::missing;
  gone.why = "relation raw.gone does not exist";
  report.sources["source.p.raw.e_gone"] = gone;
  report.sources["source.p.raw.f_odd"] = answered(3, "x", "1", 0.25);

  auto out = three()->versions(report, "2026-12-03T10:00:00Z");
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0].source_id, "source.p.raw.a_delta");
  ASSERT_TRUE(out[0].version) << out[0].why_unknown;
  EXPECT_EQ(out[0].version->value, "delta_history:7");
  ASSERT_TRUE(out[1].version) << out[1].why_unknown;  // handed over as its provider's own answer
  EXPECT_EQ(out[1].version->value, "iceberg_snapshots:99");
  EXPECT_DOUBLE_EQ(out[1].probe_seconds, 0.75);
  ASSERT_TRUE(out[2].version) << out[2].why_unknown;
  EXPECT_EQ(out[2].version->value, "spark_content:42");
  EXPECT_FALSE(out[3].version);
  EXPECT_EQ(out[3].why_unknown, "not a Delta or Iceberg table: a view, not table");
  EXPECT_EQ(out[4].why_unknown, "relation raw.gone does not exist");
  EXPECT_FALSE(out[5].version);
  EXPECT_NE(out[5].why_unknown.find("no branch this request has (branch 3)"), std::string::npos) << out[5].why_unknown;
  EXPECT_DOUBLE_EQ(out[5].probe_seconds, 0.25);
}

TEST(VersionsByFormat, WithoutAProviderForTheOtherTablesTheirAnswersAreOfNoBranch) {
  std::vector<std::unique_ptr<contracts::ChangeProvider>> formats;
  formats.push_back(std::make_unique<Stand>("delta_history", "delta"));
  auto provider = make_versions_by_format(std::move(formats));
  contracts::ProbeReport report;
  report.sources["source.p.raw.p"] = answered(1, "spark_content", "1");
  ProbeAnswer parquet_skipped;
  parquet_skipped.status = ProbeAnswer::Status::skipped;
  parquet_skipped.why = "not a delta table (its format is parquet)";
  report.sources["source.p.raw.q"] = parquet_skipped;
  auto out = provider->versions(report, "2026-12-03T10:00:00Z");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(out[0].version);
  EXPECT_EQ(out[1].why_unknown, "not a Delta table: not a delta table (its format is parquet)");
}

}  // namespace
}  // namespace ods::table_format
