#pragma once
// The reuse-efficiency scenario corpus (issue #14): a dbt project taken through a sequence of
// changes, each followed by `ods state run`, each judged against a full-build control.
//
// The control of a step is a second copy of the project as the run left it, built from
// scratch on the same data (harness/relation_contents.h: dbt build --full-refresh). A relation
// is *unchanged* at a step when the control's rows (count and order-independent hash) equal
// the previous step's control. Per step the corpus counts
//   reused / unchanged   relations ods reused among those the control left unchanged,
//   wrong reuses         reused relations whose rows differ from the control's,
//   diverged builds      built relations whose rows differ from the control's,
//   lost                 unchanged relations ods built anyway, with its first reason code.
// Snapshots are not judged (their rows carry the time they were taken). DuckDB only.
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "harness/dbt_project.h"

namespace ods::testing {

struct CorpusStep {
  std::string name;
  // Applied to the project before the run (data, code or environment); fails the test on error.
  std::function<void(DbtProject&)> change;
};

struct StepOutcome {
  std::string step;
  int unchanged = 0;
  int reused = 0;                     // of the unchanged
  std::vector<std::string> lost;      // "name (first reason code)"
  std::vector<std::string> wrong;     // reused, rows differ from the control
  std::vector<std::string> diverged;  // built, rows differ from the control
};

class ReuseCorpus {
 public:
  // `relations`: the models and seeds judged; `run_args`: extra `ods state run` arguments.
  ReuseCorpus(DbtProject& project, std::vector<std::string> relations, std::vector<std::string> run_args);

  // Two runs (the second is an incremental model's steady state) and the first control.
  // Whether all succeeded (the calling test fails when not).
  bool start();
  // Applies the step's change, runs, judges; the outcome is also kept for report().
  StepOutcome step(const CorpusStep& s);

  const std::vector<StepOutcome>& outcomes() const { return outcomes_; }
  int reused_total() const;
  int unchanged_total() const;
  int wrong_total() const;
  int diverged_total() const;
  // One line per step and the overall share, titled.
  void report(std::ostream& out, const std::string& title) const;

 private:
  // `ods state run --format json` on the project; fails the test on a non-zero exit.
  nlohmann::json run() const;
  // A copy of the project built from scratch; what its relations hold.
  std::map<std::string, std::string> control() const;

  DbtProject& project_;
  std::vector<std::string> relations_;
  std::vector<std::string> run_args_;
  std::map<std::string, std::string> previous_control_;
  std::vector<StepOutcome> outcomes_;
};

}  // namespace ods::testing
