#pragma once
// ChangeProvider contract (change_provider 0.3, ADR-0022 §1): the data version of each
// requested source, from the warehouse. Advertises the capability `relation_versions`.
// 0.2 (additive): a version may come with more evidence (e.g. the commit time behind it).
// 0.3 (additive): content_request(), the statements for built nodes' content.
// 0.4 (additive): content_covers_schema(), whether those contents fingerprint the columns too.
#include <optional>
#include <string>
#include <vector>

#include "ods/base/result.h"
#include "ods/contracts/relation_probe.h"
#include "ods/planner/evidence.h"

namespace ods::contracts {

// One source's answer: a version, or unknown with why. Never both.
struct SourceVersion {
  std::string source_id;
  std::optional<planner::DataVersion> version;
  std::string why_unknown;
  double probe_seconds = 0;  // latency of its statements
  // 0.2: what else the answer showed, kept on the source next to the version choice (e.g. the
  // commit a table version names, with its time and operation)
  std::vector<planner::Evidence> evidence;
};

class ChangeProvider {
 public:
  virtual ~ChangeProvider() = default;
  // The name of the strategy ("duckdb_content", "postgres_content", "delta_history").
  virtual std::string origin() const = 0;
  // The statements and filter it needs run on each source relation.
  virtual ProbeRequest request() const = 0;
  // 0.3: the statements and filter for built nodes' content (early cutoff): the source request
  // unless a provider reads sources by other evidence (metadata) than content. versions() reads
  // its answers as it reads sources'.
  virtual ProbeRequest content_request() const { return request(); }
  // 0.4: whether every content versions() reads from content_request()'s answers fingerprints the
  // relation's column names and types as well as its rows (DataVersion::covers_schema): then an
  // equal content proves an equal output even after a code change, and early cutoff may follow
  // code changes. False unless a provider says so (rule 2).
  virtual bool content_covers_schema() const { return false; }
  // Turns a probe report into one SourceVersion per source of the report, in id order.
  // A missing, skipped or unparseable answer is unknown (rule 2), never a partial value.
  // `observed_at` is when the probe ran (ISO-8601 UTC). Pure; thread-safe.
  virtual std::vector<SourceVersion> versions(const ProbeReport& report, const std::string& observed_at) const = 0;
};

}  // namespace ods::contracts
