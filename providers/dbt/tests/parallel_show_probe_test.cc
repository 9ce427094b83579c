// The dbt show probe in parts at once (relation_probe 0.4): each part's program asks for its
// own share, the answers merge into one report, and a failed part leaves only its share's
// sources unknown, quoting its error. The fakes answer as the program would for their share.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "ods/dbt/show_probe.h"

namespace ods::dbt {
namespace {

// The probe's program: the argument after --inline ("" when there is none).
std::string program_of(const std::vector<std::string>& args) {
  const auto inline_flag = std::find(args.begin(), args.end(), "--inline");
  return inline_flag == args.end() || inline_flag + 1 == args.end() ? "" : *(inline_flag + 1);
}

using nlohmann::json;

std::string show_event(const json& answer) {
  json preview = json::array({{{"ods_probe", answer.dump()}}});
  return json{{"info", {{"name", "ShowNode"}, {"level", "info"}}}, {"data", {{"preview", preview.dump()}}}}.dump();
}

const std::vector<std::string> kSources = {"source.p.raw.a", "source.p.raw.b", "source.p.raw.c", "source.p.raw.d",
                                           "source.p.raw.e"};

// One part's dbt: answers for the share its program names (the sources at positions
// i % shares == share), as the program does; or fails with `error` (a failed dbt show).
class ShareDbt final : public DbtCommand {
 public:
  ShareDbt(std::size_t share, std::size_t shares, std::string error = "")
      : share_(share), shares_(shares), error_(std::move(error)) {}
  std::vector<std::string> last_args;
  std::atomic<int>* running = nullptr;  // how many parts run at this moment
  std::atomic<int>* most_at_once = nullptr;

  ods::Result<DbtCommandResult> run(const std::vector<std::string>& args) override {
    last_args = args;
    if (running) {
      int now = ++*running;
      for (int seen = *most_at_once; now > seen && !most_at_once->compare_exchange_weak(seen, now);) {
      }
      // Wait (bounded) until the others have started too: parts that ran one after another
      // would never overlap here, so the test would see most_at_once == 1.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (*most_at_once < static_cast<int>(shares_) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      --*running;
    }
    DbtCommandResult r;
    if (!error_.empty()) {
      r.exit_code = 1;
      r.error_text = error_;
      return r;
    }
    json answer = {{"sources", json::object()},
                   {"sources_elsewhere", json::object()},
                   {"nodes", json::object()},
                   {"contents", json::object()}};
    for (std::size_t i = 0; i < kSources.size(); ++i) {
      if (i % shares_ == share_)
        answer["sources"][kSources[i]] = {{"status", "ok"}, {"rows", {{"content", {{"n", std::to_string(i)}}}}}};
      else
        answer["sources_elsewhere"][kSources[i]] = i % shares_;
    }
    if (share_ == 0) answer["nodes"] = {{"model.p.m", true}};
    r.events = {show_event(answer)};
    return r;
  }

 private:
  std::size_t share_, shares_;
  std::string error_;
};

contracts::ProbeRequest request() {
  contracts::ProbeRequest r;
  r.filter.kinds = {"table"};
  r.statements = {{"content", "select count(*) as n from {relation}"}};
  return r;
}

std::vector<ShowProbePart> parts_of(std::vector<ShareDbt>& dbts) {
  std::vector<ShowProbePart> parts;
  for (std::size_t i = 0; i < dbts.size(); ++i)
    parts.push_back({&dbts[i], {{"--target-path", "target/ods-probe-" + std::to_string(i + 1)}}});
  return parts;
}

TEST(ParallelShowProbe, EachPartAsksForItsShareAndTheyRunAtOnce) {
  std::vector<ShareDbt> dbts;
  for (std::size_t i = 0; i < 3; ++i) dbts.emplace_back(i, 3);
  std::atomic<int> running{0}, most{0};
  for (auto& d : dbts) d.running = &running, d.most_at_once = &most;
  auto report = make_parallel_show_probe(parts_of(dbts))->probe(request());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(most.load(), 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string& program = program_of(dbts[i].last_args);
    EXPECT_NE(program.find("namespace(mine=" + std::to_string(i) + ", of=3)"), std::string::npos) << i;
    EXPECT_EQ(dbts[i].last_args.back(), "target/ods-probe-" + std::to_string(i + 1));
  }
  ASSERT_EQ(report->sources.size(), kSources.size());
  for (std::size_t i = 0; i < kSources.size(); ++i) {
    const auto& a = report->sources.at(kSources[i]);
    EXPECT_EQ(a.status, contracts::ProbeAnswer::Status::ok) << kSources[i];
    EXPECT_EQ(a.rows.at("content").at("n"), std::to_string(i));
  }
  EXPECT_TRUE(report->relations_exist.at("model.p.m"));
}

TEST(ParallelShowProbe, AFailedPartLeavesOnlyItsSourcesUnknownQuotingDbt) {
  std::vector<ShareDbt> dbts;
  dbts.emplace_back(0, 3);
  dbts.emplace_back(1, 3, "Runtime Error: [SCHEMA_NOT_FOUND] The schema `nowhere` cannot be found.");
  dbts.emplace_back(2, 3);
  auto report = make_parallel_show_probe(parts_of(dbts))->probe(request());
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->sources.size(), kSources.size());
  for (std::size_t i = 0; i < kSources.size(); ++i) {
    const auto& a = report->sources.at(kSources[i]);
    if (i % 3 == 1) {
      EXPECT_EQ(a.status, contracts::ProbeAnswer::Status::unknown) << kSources[i];
      EXPECT_NE(a.why.find("part 2 of 3 of the probe failed"), std::string::npos) << a.why;
      EXPECT_NE(a.why.find("The schema `nowhere` cannot be found"), std::string::npos) << a.why;
    } else {
      EXPECT_EQ(a.status, contracts::ProbeAnswer::Status::ok) << kSources[i];
    }
  }
  EXPECT_TRUE(report->relations_exist.at("model.p.m"));
}

TEST(ParallelShowProbe, WhenPartZeroFailsNoRelationIsVerified) {
  std::vector<ShareDbt> dbts;
  dbts.emplace_back(0, 2, "Runtime Error: connection refused");
  dbts.emplace_back(1, 2);
  auto report = make_parallel_show_probe(parts_of(dbts))->probe(request());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->relations_exist.empty());
  EXPECT_EQ(report->sources.at("source.p.raw.a").status, contracts::ProbeAnswer::Status::unknown);
  EXPECT_EQ(report->sources.at("source.p.raw.b").status, contracts::ProbeAnswer::Status::ok);
}

TEST(ParallelShowProbe, EveryPartFailingIsAnErrorQuotingTheFirst) {
  std::vector<ShareDbt> dbts;
  dbts.emplace_back(0, 2, "Runtime Error: connection refused on 127.0.0.1:10000");
  dbts.emplace_back(1, 2, "Runtime Error: connection refused on 127.0.0.1:10000");
  auto report = make_parallel_show_probe(parts_of(dbts))->probe(request());
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code, "probe_failed");
  EXPECT_NE(report.error().message.find("connection refused on 127.0.0.1:10000"), std::string::npos);
}

TEST(ParallelShowProbe, OnePartIsTheSerialProbe) {
  std::vector<ShareDbt> dbts;
  dbts.emplace_back(0, 1);
  auto report = make_parallel_show_probe(parts_of(dbts))->probe(request());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_NE(program_of(dbts[0].last_args).find("namespace(mine=0, of=1)"), std::string::npos);
  EXPECT_EQ(report->sources.size(), kSources.size());
  EXPECT_TRUE(report->sources_elsewhere.empty());
}

TEST(ParallelShowProbe, TheProgramSplitsSourcesAndContentsByPositionAndRefusesSessionMode) {
  contracts::ProbeRequest r = request();
  r.share = 1;
  r.shares = 4;
  std::string program = show_probe_program(r);
  EXPECT_NE(program.find("namespace(mine=1, of=4)"), std::string::npos);
  EXPECT_NE(program.find("graph.sources.keys() | sort"), std::string::npos);
  EXPECT_NE(program.find("target.get('method') == 'session'"), std::string::npos);
  EXPECT_NE(program.find("ods_share.mine == 0"), std::string::npos);  // node existence: share 0's
}

}  // namespace
}  // namespace ods::dbt
