#pragma once
// The runner pod ↔ controller protocol (docs/kubernetes.md, "Runner pod ↔ controller"):
// the JSON bodies both sides exchange, with readers that validate every field and name the
// offending one. Shared by the callback server and `ods pod`; no HTTP here.
//
//   POST /v1/runs/<namespace>/<name>/inputs   InputsRequest  -> PlanAnswer
//   POST /v1/runs/<namespace>/<name>/results  ResultsRequest -> RecordedAnswer
//   POST /v1/runs/<namespace>/<name>/wave     WaveReport     -> WaveAnswer  (early cutoff:
//        a pod that asked for waves reports each wave but the last; the answer is the next)
//   POST /v1/runs/<namespace>/<name>/head     HeadRequest    -> HeadAnswer  (the parse's fast
//        path in the pod: before it compiles, the state its run continues; any time, nothing written)
//   Authorization: Bearer <run token>  (ods/callback/run_token.h)
//   errors: {"error": {"code": "...", "field": "...", "message": "..."}}
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ods/planner/inputs.h"
#include "ods/planner/planner.h"
#include "ods/run/probe_details.h"

namespace ods::callback {

inline constexpr int kProtocolVersion = 1;
// The version of the wave messages (WaveReport, WaveAnswer, the plan answer's `wave`): each
// carries "wave_protocol" beside "protocol"; a reader refuses another.
inline constexpr int kWaveProtocolVersion = 1;

// A refused body: the field (a JSON path such as "build.results.node_status") and why.
struct FieldError {
  std::string field;
  std::string message;
};
template <class T>
using Parsed = std::expected<T, FieldError>;

// What the pod's probe measured, as the run's ledger entry keeps it.
using ProbeReport = run::ProbeDetails;

// What the pod compiled and probed: everything the controller needs to plan.
struct InputsRequest {
  planner::ProjectInputs inputs;  // the manifest's planner inputs, each source's version chosen
  std::optional<std::map<std::string, bool>> relations_exist;  // node id -> relation exists
  std::optional<std::vector<std::string>> selected;            // node ids (the pod's --select)
  std::optional<std::vector<std::string>> check_selected;      // node and source ids whose checks it selects
  ProbeReport probe;
  double compile_seconds = 0, probe_seconds = 0;
  // Early cutoff (docs/early-cutoff.md): "auto" or "always" when the pod can measure the
  // content of what it builds and report waves; nullopt or "off": one wave (older pods).
  std::optional<std::string> cutoff = std::nullopt;
};

// Which wave a selection is, for a pod that asked for waves.
struct WaveInfo {
  int number = 1;
  // true: the wave's build goes to `results`, as a one-wave run's; false: to `wave` (nodes
  // are held back behind it; the answer is the next selection). A failed wave goes to
  // `results` either way: the nodes held back behind it are not built.
  bool last = true;
  std::string why;  // the boundary, or why there is none (run::Wave::why)
};

// The controller's plan for the run.
struct PlanAnswer {
  std::string run_id;  // the run uid: the run id in the ledger and snapshots
  std::string scope;
  std::string plan_json;            // the ExecutionPlan document (`ods state plan --format json`)
  std::vector<std::string> select;  // `dbt build --select` arguments; empty: build nothing
  int build = 0, reuse = 0;
  std::optional<WaveInfo> wave = std::nullopt;  // present when the pod asked for waves
};

// What dbt's run_results.json said, read against the pod's manifest.
struct BuildResults {
  std::string invocation_id;  // dbt's
  std::string started_at, finished_at;
  std::map<std::string, std::string> node_status;  // node id -> dbt status
  std::map<std::string, bool> node_tests_passed, source_tests_passed;
  std::map<std::string, double> node_seconds;
  std::string summary;  // "12 success, 1 error"
};

struct BuildReport {
  int exit_code = 0;                    // dbt build's
  std::optional<BuildResults> results;  // nullopt: dbt ran no node (no readable run_results.json)
  std::string error_text;               // dbt's error text, shortened
  double seconds = 0;
};

struct ResultsRequest {
  planner::ProjectInputs inputs;     // the same inputs the plan was made from (digest-checked)
  std::optional<BuildReport> build;  // nullopt: dbt build was not started (nothing to build)
  double total_seconds = 0;          // the pod's whole run
  // Early cutoff: node id -> the content of its relation measured right after this build
  // (planner::RunOutcome::node_contents); empty from pods that measure none.
  std::map<std::string, planner::DataVersion> node_contents = {};
};

// One wave's build, reported by a pod whose plan (or previous wave answer) said `last: false`.
struct WaveReport {
  int wave = 1;                   // the number of the wave built
  planner::ProjectInputs inputs;  // the same inputs the plan was made from (digest-checked)
  BuildReport build;              // its results required: a wave that ran no node is the last
  std::map<std::string, planner::DataVersion> node_contents;  // as in ResultsRequest
};

// The controller's answer to a wave: it recorded the wave, re-planned the nodes held back
// behind it, and this is what builds next.
struct WaveAnswer {
  std::string run_id;
  WaveInfo wave;                           // the next wave
  std::vector<std::string> select;         // its `dbt build --select` arguments; empty: nothing left to build
  std::string plan_json;                   // the whole run's plan, the held-back nodes' entries re-planned
  int build = 0, reuse = 0;                // of the whole plan
  int cut_off = 0;                         // held-back nodes this re-plan reused
  std::optional<std::string> snapshot_id;  // the snapshot that recorded the wave
};

struct RecordedAnswer {
  std::string run_id;
  std::string outcome;  // "success" | "partial" | "failed" | "reused"
  std::optional<std::string> snapshot_id;
  int built = 0, reused = 0, failed = 0, skipped = 0;
  std::string summary;
  bool already_recorded = false;  // the results had been recorded before (this answer is the first one's)
};

// What the pod asks before it compiles: the state the run continues (a body of its own so that
// the request is versioned like the others; it carries nothing else yet).
struct HeadRequest {};

// The controller's answer to a HeadRequest: the head of the run's scope, so that the pod's
// compile takes the recorded SQL of every node whose compile key is unchanged (as `ods state
// run` does from its own store), and the scope, which names where the pod keeps its parse.
struct HeadAnswer {
  std::string scope;
  std::optional<std::string> snapshot_id;          // nullopt: the scope has recorded nothing yet
  std::optional<planner::StateSnapshot> snapshot;  // present exactly when snapshot_id is
};

std::string to_json(const InputsRequest& request);
std::string to_json(const PlanAnswer& answer);
std::string to_json(const ResultsRequest& request);
std::string to_json(const RecordedAnswer& answer);
std::string to_json(const WaveReport& report);
std::string to_json(const WaveAnswer& answer);
std::string to_json(const HeadRequest& request);
std::string to_json(const HeadAnswer& answer);
std::string error_json(const std::string& code, const std::string& field, const std::string& message);

// Readers: each refuses a body that is not JSON, lacks a required field, has a field of the
// wrong type, or declares another protocol version, naming the field.
[[nodiscard]] Parsed<InputsRequest> parse_inputs_request(std::string_view body);
[[nodiscard]] Parsed<PlanAnswer> parse_plan_answer(std::string_view body);
[[nodiscard]] Parsed<ResultsRequest> parse_results_request(std::string_view body);
[[nodiscard]] Parsed<RecordedAnswer> parse_recorded_answer(std::string_view body);
[[nodiscard]] Parsed<WaveReport> parse_wave_report(std::string_view body);
[[nodiscard]] Parsed<WaveAnswer> parse_wave_answer(std::string_view body);
[[nodiscard]] Parsed<HeadRequest> parse_head_request(std::string_view body);
[[nodiscard]] Parsed<HeadAnswer> parse_head_answer(std::string_view body);

}  // namespace ods::callback
