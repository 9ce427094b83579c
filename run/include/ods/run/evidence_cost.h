#pragma once
// Evidence bounded by what it could spare (issue 38; docs/warehouses.md, "Evidence bounded by
// cost"): a relation's exact evidence (a source's content fingerprint in the probe, a built
// node's content measured for early cutoff) is read only while it costs less than building what
// reads it. The seconds are the ones recorded in the run ledger: the evidence's own (the probe's
// source_seconds, early cutoff's content_seconds) and each node's build (node_seconds).
// Vendor-neutral and pure: which evidence is exact and which is cheaper is the ChangeProvider's;
// this says only whether the exact one is worth its seconds, and why not.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ods/planner/inputs.h"

namespace ods::run {

// Once judged too costly, exact evidence is read again only when it costs at most this fraction
// of what it could spare (hysteresis: a relation near the line does not flip between exact and
// cheap from one run to the next as timings vary by tens of percent under load).
inline constexpr double kEvidenceReturnFraction = 0.5;

// The evidence costs the ledger recorded, per relation (a source or a node id).
struct RecordedEvidenceCosts {
  std::map<std::string, double> seconds;  // id -> the seconds its exact evidence took when last read
  std::set<std::string> skipped;          // ids whose newest mention judged the exact evidence too costly
};

// Whether exact evidence that took `evidence_seconds` when last read costs more than the
// `spare_seconds` of building what reads it: more than spare, or, when it was judged too costly
// last time (`skipped_last_time`), more than kEvidenceReturnFraction of spare.
bool evidence_costs_more(double evidence_seconds, double spare_seconds, bool skipped_last_time);

// What building everything downstream of a relation costs, by the recorded build times.
struct DownstreamSeconds {
  double seconds = 0;    // the sum of the known build times (stops once past the `enough` asked)
  bool unknown = false;  // some node downstream has no recorded build time (and the sum stayed below `enough`)
};

// The nodes downstream of each node or source, walked from the project's parents lists.
class Downstream {
 public:
  explicit Downstream(const planner::ProjectInputs& inputs);
  // The build seconds of every node downstream of `id` (its readers, theirs ...), each once, by
  // `node_seconds`; the walk stops once the sum is past `enough`. Nothing downstream: 0, known.
  DownstreamSeconds seconds_below(const std::string& id, const std::map<std::string, double>& node_seconds,
                                  double enough) const;
  // Every node downstream of any of `ids`, each once (the ones whose build times seconds_below reads).
  std::vector<std::string> nodes_below(const std::vector<std::string>& ids) const;

 private:
  std::unordered_map<std::string, std::vector<std::string>> children_;
};

// One relation's verdict: nullopt when its exact evidence is read (unknown seconds, on either
// side, read it as before), else the sentence saying why not, with both figures.
std::optional<std::string> exact_evidence_too_costly(const std::string& id, const Downstream& downstream,
                                                     const RecordedEvidenceCosts& recorded,
                                                     const std::map<std::string, double>& node_seconds,
                                                     const std::string& what);

// Of `ids` (sources before the probe, built nodes with readers before early cutoff's content
// measurement), those whose exact evidence is read, and those left unread with why (`what` names
// the evidence in the sentence: "its content fingerprint", "measuring its content").
struct ExactChoice {
  std::vector<std::string> read;              // in `ids`' order
  std::map<std::string, std::string> unread;  // id -> why (exact_evidence_too_costly)
};
ExactChoice choose_exact(const Downstream& downstream, const std::vector<std::string>& ids,
                         const RecordedEvidenceCosts& recorded, const std::map<std::string, double>& node_seconds,
                         const std::string& what);

}  // namespace ods::run
