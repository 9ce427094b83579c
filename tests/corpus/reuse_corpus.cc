#include "corpus/reuse_corpus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <numeric>

#include "harness/relation_contents.h"
#include "harness/warehouse.h"

namespace ods::testing {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// One step's line of the report.
std::string step_line(const StepOutcome& o) {
  char line[160];
  std::snprintf(line, sizeof line, "  %-62s %3d / %-3d wrong %zu", o.step.c_str(), o.reused, o.unchanged,
                o.wrong.size());
  std::string out = line;
  if (!o.lost.empty()) out += "  lost: " + joined(o.lost);
  if (!o.wrong.empty()) out += "  WRONG: " + joined(o.wrong);
  if (!o.diverged.empty()) out += "  diverged builds: " + joined(o.diverged);
  return out + "\n";
}

}  // namespace

ReuseCorpus::ReuseCorpus(DbtProject& project, std::vector<std::string> relations, std::vector<std::string> run_args)
    : project_(project), relations_(std::move(relations)), run_args_(std::move(run_args)) {}

nlohmann::json ReuseCorpus::run() const {
  std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", project_.dir().string()};
  args.insert(args.end(), run_args_.begin(), run_args_.end());
  ProcessResult r = project_.ods(args);
  EXPECT_EQ(r.exit_code, 0) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
  return doc;
}

std::map<std::string, std::string> ReuseCorpus::control() const {
  DbtProject copy = DbtProject::copy_of(project_);
  if (!full_build(copy, duckdb_warehouse(), /*with_tests=*/false)) return {};
  return relation_contents(copy, duckdb_warehouse(), relations_);
}

bool ReuseCorpus::start() {
  for (int i = 0; i < 2; ++i)
    if (run().is_discarded() || ::testing::Test::HasFailure()) return false;
  previous_control_ = control();
  return !::testing::Test::HasFailure();
}

StepOutcome ReuseCorpus::step(const CorpusStep& s) {
  StepOutcome out;
  out.step = s.name;
  s.change(project_);
  const nlohmann::json doc = run();
  if (doc.is_discarded() || !doc.contains("plan")) return out;
  const auto after = relation_contents(project_, duckdb_warehouse(), relations_);
  const auto ctl = control();
  std::map<std::string, const nlohmann::json*> entries;
  for (const auto& e : doc.at("plan").at("entries")) entries[e.at("name").get<std::string>()] = &e;
  for (const auto& rel : relations_) {
    auto it = entries.find(rel);
    EXPECT_NE(it, entries.end()) << s.name << ": no plan entry for " << rel;
    if (it == entries.end()) continue;
    const bool reused = it->second->at("action") == "reuse";
    const bool unchanged = ctl.count(rel) && previous_control_.count(rel) && ctl.at(rel) == previous_control_.at(rel);
    const bool same_as_control = after.count(rel) && ctl.count(rel) && after.at(rel) == ctl.at(rel);
    if (unchanged) ++out.unchanged;
    if (unchanged && reused) ++out.reused;
    if (unchanged && !reused) {
      const auto& reasons = it->second->at("reasons");
      out.lost.push_back(rel + " (" + (reasons.empty() ? "?" : reasons.at(0).at("code").get<std::string>()) + ")");
    }
    if (!same_as_control) (reused ? out.wrong : out.diverged).push_back(rel);
  }
  previous_control_ = ctl;
  std::cout << step_line(out) << std::flush;  // as it happens, for a long run's log
  outcomes_.push_back(out);
  return out;
}

int ReuseCorpus::reused_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0, [](int n, const auto& o) { return n + o.reused; });
}
int ReuseCorpus::unchanged_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0, [](int n, const auto& o) { return n + o.unchanged; });
}
int ReuseCorpus::wrong_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0,
                         [](int n, const auto& o) { return n + static_cast<int>(o.wrong.size()); });
}
int ReuseCorpus::diverged_total() const {
  return std::accumulate(outcomes_.begin(), outcomes_.end(), 0,
                         [](int n, const auto& o) { return n + static_cast<int>(o.diverged.size()); });
}

void ReuseCorpus::report(std::ostream& out, const std::string& title) const {
  out << "reuse corpus: " << title << " (" << relations_.size()
      << " relations judged; reused / unchanged by the full-build control)\n";
  for (const auto& o : outcomes_) out << step_line(o);
  char line[160];
  const int u = unchanged_total();
  std::snprintf(line, sizeof line, "  overall %d / %d = %.1f%%, %d wrong reuses\n", reused_total(), u,
                u ? 100.0 * reused_total() / u : 0.0, wrong_total());
  out << line;
}

}  // namespace ods::testing
