// The frame of a table format's ChangeProvider: the probe's own reasons, another branch's
// answer, the reader for the rest, in source-id order.
#include "ods/table_format/format_versions.h"

#include <gtest/gtest.h>

namespace ods::table_format {
namespace {

using contracts::ProbeAnswer;

ProbeAnswer answered(ProbeAnswer::Status status, std::string why = "", std::size_t branch = 0) {
  ProbeAnswer a;
  a.status = status;
  a.why = std::move(why);
  a.branch = branch;
  a.fallback = branch > 0;
  a.seconds = 0.5;
  return a;
}

TEST(FormatVersions, TheReaderGetsOnlyItsOwnAnswersAndTheRestSayWhy) {
  contracts::ProbeReport report;
  report.sources["source.p.s.e_view"] = answered(ProbeAnswer::Status::skipped, "a view, not table");
  report.sources["source.p.s.d_gone"] = answered(ProbeAnswer::Status::missing, "relation s.gone does not exist");
  report.sources["source.p.s.c_silent"] = answered(ProbeAnswer::Status::unknown);
  report.sources["source.p.s.b_other"] = answered(ProbeAnswer::Status::ok, "", 1);
  report.sources["source.p.s.a_mine"] = answered(ProbeAnswer::Status::ok);
  std::vector<std::string> read;
  auto out = format_versions(report, "2026-12-04T03:00:00Z", "a Lake table",
                             [&](contracts::SourceVersion v, const ProbeAnswer&, const std::string& observed_at) {
                               read.push_back(v.source_id);
                               v.version = planner::DataVersion{"v1", planner::Exactness::exact, "lake", observed_at};
                               return v;
                             });
  EXPECT_EQ(read, std::vector<std::string>{"source.p.s.a_mine"});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].source_id, "source.p.s.a_mine");
  ASSERT_TRUE(out[0].version);
  EXPECT_DOUBLE_EQ(out[0].probe_seconds, 0.5);
  EXPECT_EQ(out[1].why_unknown, "not a Lake table: another branch's answer");
  EXPECT_EQ(out[2].why_unknown, "the probe had no answer");
  EXPECT_EQ(out[3].why_unknown, "relation s.gone does not exist");
  EXPECT_EQ(out[4].why_unknown, "not a Lake table: a view, not table");
  for (std::size_t i = 1; i < out.size(); ++i) EXPECT_FALSE(out[i].version) << out[i].source_id;
}

TEST(FormatVersions, ASkippedAnswerWithoutAReasonSaysTheProbeSkippedIt) {
  contracts::ProbeReport report;
  report.sources["source.p.s.t"] = answered(ProbeAnswer::Status::skipped);
  auto out = format_versions(report, "", "a Lake table",
                             [](contracts::SourceVersion v, const ProbeAnswer&, const std::string&) { return v; });
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].why_unknown, "not a Lake table: the probe skipped it");
}

}  // namespace
}  // namespace ods::table_format
