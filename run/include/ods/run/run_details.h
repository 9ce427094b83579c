#pragma once
// The run ledger entry's `details` document, typed: what every writer of the ledger (`ods state
// run`, `ods state test`, `ods state record`, the operator's callback server) keeps beside a
// run's outcome, written and read here only. `ods state history --format json` shows it as is.
//
// The JSON (members absent when not set):
//   {"recorded_by", "summary": "12 success, 1 error" | {the operator's run summary},
//    "command", "counts": {...}, "seconds", "timings": {phase: seconds}, "probe": {"strategy",
//    "call_seconds", "source_seconds", "warnings"}, "node_seconds": {node id: seconds},
//    "time_saved_seconds", "exact_evidence_seconds": {id: seconds}, "exact_evidence_skipped": [id],
//    "head", "planned_entry", "dbt_invocation_id", "waves": {"number",
//    "last", "why", "mode", "extra_call_seconds", "building", "held_back", "built_earlier",
//    "relations_exist", "cut_off"}, "metrics": {the scope's run metrics, run_metrics.h}}
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ods/run/probe_details.h"
#include "ods/run/run_metrics.h"

namespace ods::run {

// The operator's early-cutoff state of a run in waves (operator/callback's run_waves.h):
// the planned entry holds wave 1's, each wave's entry the next wave's, so a restarted
// controller carries on.
struct WaveDetails {
  int number = 1;  // the wave the pod builds now
  bool last = true;
  std::string why;
  std::string mode;                                            // "auto" | "always" (run::CutoffMode)
  double extra_call_seconds = 0;                               // what one more wave costs (two dbt calls)
  std::vector<std::string> building;                           // BUILD node ids of this wave
  std::vector<std::string> held_back;                          // BUILD node ids held back behind it
  std::map<std::string, bool> built_earlier;                   // built by the waves before: id -> for code
  std::optional<std::map<std::string, bool>> relations_exist;  // the pod's, for the re-plans
  std::optional<int> cut_off;  // held-back nodes the re-plan after the wave before reused (not in wave 1)
};

struct RunDetails {
  std::string recorded_by;  // "ods state run" | "ods state test" | "ods state record" | "ods-operator"
  std::string summary;      // dbt's result line ("12 success, 1 error"); see run_summary
  // The operator's run summary (ods::callback::RunSummary's JSON), kept as the "summary" member
  // instead of the line above.
  std::optional<nlohmann::json> run_summary;
  std::optional<std::string> command;     // dbt's command (`ods state record`)
  std::optional<nlohmann::json> counts;   // the command's counts object (its JSON report's "counts")
  std::optional<double> seconds;          // the whole command (`ods state test`)
  std::map<std::string, double> timings;  // phase ("compile", "probe", "build", "total", ...) -> seconds
  std::optional<ProbeDetails> probe;      //
  std::optional<std::map<std::string, double>> node_seconds;  // node id -> dbt's build seconds
  std::optional<double> time_saved_seconds;                   // the reused nodes' last build times
  // The cost rule's record (evidence_cost.h): a source's or node's id -> the seconds its exact
  // evidence (a source's content fingerprint, a built node's measured content) took in this run;
  // and the ids whose exact evidence the rule left unread, as costing more than what reads them.
  std::optional<std::map<std::string, double>> exact_evidence_seconds;
  std::vector<std::string> exact_evidence_skipped;
  std::optional<std::optional<std::string>> head;  // the snapshot planned against (inner nullopt: none)
  std::optional<std::string> planned_entry;        // the operator's planned ledger entry of the run
  std::optional<std::string> dbt_invocation_id;
  std::optional<WaveDetails> waves;  // a run in waves (its "number" and "last" required)
  // The scope's run metrics with this run counted (`ods state run|test`; the last entry of a
  // run in waves): the totals the next run adds to (latest_metrics).
  std::optional<RunMetrics> metrics;

  // The one line a person reads in `ods state history`: the summary line, else the operator
  // summary's message.
  std::string summary_line() const;
};

// The document (compact JSON).
std::string to_json(const RunDetails& details);

// Reads what to_json wrote. Lenient, as the ledger is history: text that isn't a JSON object
// reads as empty details, and a member of the wrong type is left unset.
RunDetails details_from_json(std::string_view text);

}  // namespace ods::run
