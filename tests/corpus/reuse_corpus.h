#pragma once
// The reuse-efficiency scenario corpus (issues #14, #27): a dbt project taken through a
// sequence of changes, each followed by `ods state run`, each judged against what `dbt build`
// does with the same change.
//
// Per step, before the run, the compile-key differential (issue 28, docs/compile-key.md): the
// plan of a dry run compiling only the nodes whose compile key changed must give every node the
// fingerprint a dry run compiling the whole project gives it. The run after them parses again
// with nothing changed, so it stands on the dry run's parse (the manifest not written again,
// cli/src/shared/parse_reuse.h): its plan must give every node that fingerprint too.
// The parse's fast path (issue 41 item 3): when the step changed a file dbt's parse reads or the
// run's environment (corpus/parse_inputs_seen.h), the first command after it (the keyed dry run)
// must not stand on the fast path; the report counts the fast path's takes and decline reasons.
// Per step, two controls:
//   the dbt build control  an identical copy of the project taken just before the run (same
//                          warehouse file, same state), on which `dbt build` runs: its exit
//                          status must agree with `ods state run`'s (0 vs non-zero) and its
//                          relations' rows with the run's;
//   the full-build control a copy of the project as the run left it, built from scratch on the
//                          same data (harness/relation_contents.h: dbt build --full-refresh, no
//                          snapshots, no tests); taken only when the dbt build control succeeded
//                          (otherwise dbt build skips what a failing test gates, and a full
//                          build without tests would not), and only for projects with
//                          incremental models (without_full_build_control).
// A relation is *unchanged* at a step when `dbt build` left its rows (count and
// order-independent hash) as they were before the run: an oracle could have reused it. Per
// step the corpus counts
//   reused / unchanged   relations ods reused among the unchanged (a relation dbt build
//                        skipped, gated by a failing test, or failed to build counts in
//                        neither),
//   wrong reuses         reused relations whose rows differ from a control's,
//   diverged builds      built relations whose rows differ from a control's,
//   lost                 unchanged relations ods built anyway, with its first reason code,
//   exit mismatch        `ods state run` exited 0 where dbt build failed, or the reverse.
// A snapshot's rows carry the times they were taken (check strategy: dbt_valid_from; hard
// deletes: dbt_valid_to), so a snapshot is judged on chosen columns (judge_columns), against
// the dbt build control only (the full-build control leaves snapshots out). DuckDB only, the
// relations in schema `main`.
#include <gtest/gtest.h>

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
  std::vector<std::string> wrong;     // reused, rows differ from a control
  std::vector<std::string> diverged;  // built, rows differ from a control
  // The compile-key differential (issue 28): before the run, `ods state run --dry-run` plans
  // with the keyed compile and with --compile all on the same state; nodes whose fingerprints
  // differ, and how many nodes the keyed plan took the recorded compiled SQL for.
  std::vector<std::string> keyed_mismatch;
  int keyed_taken = 0;
  // The full compile's fingerprints, and the run's nodes whose fingerprint differs from them
  // when the run stood on an earlier parse's manifest (parse_reused).
  std::map<std::string, std::string> full_fingerprints;
  std::vector<std::string> parse_mismatch;
  bool parse_reused = false;
  bool parse_fast = false;  // the parse's fast path stood for dbt parse (no dbt started to parse)
  // The parse's fast path at the first command after the change (the keyed dry run): "taken",
  // else why it declined as the command said it; and the parse inputs the change touched (files
  // dbt's parse reads, or the run's environment), which the fast path must never stand on.
  std::string first_parse;
  std::vector<std::string> parse_inputs_changed;
  int ods_exit = -1;  // `ods state run`
  int dbt_exit = -1;  // `dbt build` on the identical copy
  bool exit_mismatch() const { return (ods_exit == 0) != (dbt_exit == 0); }
};

class ReuseCorpus {
 public:
  // `relations`: the models, seeds and snapshots judged (versioned models as `<name>_v<N>`,
  // their relation name); `run_args`: extra `ods state run` arguments.
  ReuseCorpus(DbtProject& project, std::vector<std::string> relations, std::vector<std::string> run_args);

  // Judges `relation` on these SQL expressions (comma-separated) instead of the whole row, and
  // against the dbt build control only; for snapshots, whose time columns differ run to run.
  void judge_columns(const std::string& relation, std::string columns);

  // Leaves the full-build control out: for a project without incremental models (and
  // snapshots, which it leaves out anyway) `dbt build` rebuilds every judged relation from
  // scratch, so the dbt build control is a full build already.
  void without_full_build_control() { full_build_control_ = false; }

  // The first run, which must exit 0 (it builds everything). The first step is judged on the
  // run right after it: an incremental model built for the first time must be reused there.
  // Whether it succeeded (the calling test fails when not).
  bool start();
  // Applies the step's change, runs, judges; the outcome is also kept for report().
  StepOutcome step(const CorpusStep& s);

  const std::vector<StepOutcome>& outcomes() const { return outcomes_; }
  // The --cutoff of the run arguments ("auto", ods's default, when they give none).
  std::string cutoff() const;
  int reused_total() const;
  int unchanged_total() const;
  int wrong_total() const;
  int diverged_total() const;
  int exit_mismatch_total() const;
  int keyed_mismatch_total() const;  // the compile-key differential's differing fingerprints
  int keyed_taken_total() const;     // nodes whose recorded compiled SQL the keyed plans took
  int parse_mismatch_total() const;  // nodes of runs on a reused parse whose fingerprint differed
  int parse_reused_total() const;    // runs that stood on an earlier parse's manifest
  // Steps whose change touched a parse input, and those of them the fast path stood on anyway
  // (each a wrong fast path: step() fails the test on it).
  int parse_inputs_changed_total() const;
  int fast_path_on_changed_inputs_total() const;
  // One line per step and the overall share, titled, then the project's row of the corpus
  // table ("| title | steps | wrong | exit mismatches | reuse % |").
  void report(std::ostream& out, const std::string& title) const;

 private:
  // `ods state run --format json` on the project: its exit status and document; `errors`, when
  // given, gets what it printed on stderr.
  std::pair<int, nlohmann::json> run(std::string* errors = nullptr) const;
  // The compile-key differential of one step into `out` (see StepOutcome::keyed_mismatch).
  void compare_compiles(StepOutcome& out) const;
  // What each judged relation of `p` holds ("rows/hash"); relations that don't exist are absent.
  std::map<std::string, std::string> contents(const DbtProject& p) const;

  DbtProject& project_;
  std::vector<std::string> relations_;
  std::vector<std::string> run_args_;
  std::map<std::string, std::string> judged_columns_;
  bool full_build_control_ = true;
  std::vector<StepOutcome> outcomes_;
};

// The --cutoff modes each corpus project runs under, as a gtest parameter: `always` (every wave
// boundary drawn: the reuse the corpus measures) and `auto`, the default, where whether a
// boundary is drawn depends on measured call times; and a test name for each.
inline auto cutoff_modes() { return ::testing::Values(std::string("always"), std::string("auto")); }
inline std::string cutoff_mode_name(const ::testing::TestParamInfo<std::string>& mode) { return mode.param; }

// The relation name of a dbt unique id: its last part, or `<name>_v<N>` for a model version
// ("model.p.dim.v2" -> "dim_v2").
std::string relation_of_unique_id(const std::string& unique_id);

}  // namespace ods::testing
