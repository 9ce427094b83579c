#pragma once
// RelationProbe contract (relation_probe 0.1, ADR-0022 §1): run a few read-only statements
// against each of a set of relations, through a connection the implementation already has
// (for dbt: one `dbt show --inline` call that iterates the graph itself). The request is
// typed data and says nothing about how it runs.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ods/planner/result.h"

namespace ods::contracts {

// Which relations to probe, as data. A relation the implementation can't show matches is
// skipped, never run.
struct ProbeFilter {
  std::vector<std::string> kinds;     // relation kinds to run on: "table", "view"; empty: any
  std::optional<std::string> format;  // a table format the implementation must confirm ("delta")
};

// A read-only SQL template with one placeholder, {relation}, which the implementation fills
// with the relation's name quoted by its own rules.
struct ProbeStatement {
  std::string name;  // names the answer, e.g. "content"
  std::string sql;
};

struct ProbeRequest {
  bool sources = true;  // probe every source of the project (graph.sources)
  bool nodes = true;    // check that every model/seed/snapshot relation exists (no statements run)
  ProbeFilter filter;
  std::vector<ProbeStatement> statements;  // run on each matching source relation, in order
};

// The answer for one relation.
struct ProbeAnswer {
  enum class Status { ok, skipped, unknown, missing };
  Status status = Status::unknown;
  std::string why;  // for skipped / unknown / missing
  // statement name -> first row, column -> value as text (NULL: absent key)
  std::map<std::string, std::map<std::string, std::string>> rows;
  double seconds = 0;  // time the statements took, measured next to the warehouse
};

struct ProbeReport {
  std::map<std::string, ProbeAnswer> sources;   // source id -> answer (every source of the project)
  std::map<std::string, bool> relations_exist;  // node id -> exists (nodes it could check)
  double call_seconds = 0;                      // the whole call, start-up included
};

class RelationProbe {
 public:
  virtual ~RelationProbe() = default;
  // Runs `request`. Success: a report that answers every source the project has and every
  // node it could check (nodes it could not check are absent from relations_exist). Error:
  // nothing was read ("probe_failed", quoting the warehouse's or dbt's error; "cancelled").
  // Not thread-safe; one call at a time.
  [[nodiscard]] virtual ods::Result<ProbeReport> probe(const ProbeRequest& request) = 0;
};

}  // namespace ods::contracts
