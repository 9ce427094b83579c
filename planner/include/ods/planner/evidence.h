#pragma once
// Evidence of data change and its exactness (ADR-0013 "Change evidence", ADR-0022 §3).
// Provider-neutral: the planner knows "a data version with an exactness and an origin",
// never the warehouse behind it.
#include <optional>
#include <string>
#include <string_view>

namespace ods::planner {

// Ordered from weakest to strongest; only semantic or better allows reuse.
enum class Exactness { none = 0, inferred = 1, proxy = 2, semantic = 3, exact = 4 };

std::string_view to_string(Exactness e);
// Returns nullopt for an unknown word.
std::optional<Exactness> exactness_from_string(std::string_view s);
inline bool allows_reuse(Exactness e) { return e >= Exactness::semantic; }

// An opaque version token of a source's data. Two versions are equal only when value,
// exactness, origin and covers_schema are all equal (a change of origin builds once, conservatively).
struct DataVersion {
  std::string value;
  Exactness exactness = Exactness::none;
  std::string origin;       // e.g. "sources_json", "duckdb_content", "delta_history"
  std::string observed_at;  // ISO-8601 UTC, when it was measured
  // A relation's content whose value fingerprints its column names and types, in order, as
  // well as its rows: two equal such contents are the same relation to whoever reads it, so
  // it alone can prove a node's output unchanged after a code change (early cutoff). Part of
  // equality: a content without it never matches one with it (an older record: unknown).
  bool covers_schema{false};
  friend bool operator==(const DataVersion& a, const DataVersion& b) {
    return a.value == b.value && a.exactness == b.exactness && a.origin == b.origin &&
           a.covers_schema == b.covers_schema;
  }
};

// The kind of a source's evidence item saying its exact evidence was left unread because it cost
// more than building what reads it (run/evidence_cost.h); its value says why, with the seconds.
// With no usable version the source's readers build `evidence_costs_more`; with a cheaper
// version that allows reuse, a reuse says `cheaper_evidence`.
inline constexpr const char* kExactEvidenceTooCostly = "exact_evidence_too_costly";

// One piece of evidence behind a decision: what, about which subject, from where, how exact.
struct Evidence {
  std::string kind;     // e.g. "fingerprint", "source_data_version", "relation_exists"
  std::string subject;  // node or source id, or a component name
  std::string value;
  Exactness exactness = Exactness::none;
  std::string origin;  // where it came from ("manifest.json", "sources.json", "state run R")
};

}  // namespace ods::planner
