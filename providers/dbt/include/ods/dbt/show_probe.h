#pragma once
// RelationProbe through one `dbt show --inline` call (ADR-0016, ADR-0022): a fixed Jinja
// program that iterates graph.sources and graph.nodes itself (nothing grows on the command
// line with the project), checks which relations exist (one listing per schema), runs the
// request's statements on each matching source relation, measures each statement's
// duration, and prints its answer as one JSON value that the provider reads back from
// dbt's ShowNode log event. The call writes no artifacts (--no-write-json: only its events are
// read) and fills no relation cache (--no-populate-cache: it lists what it needs itself).
#include <memory>
#include <string>
#include <vector>

#include "ods/contracts/relation_probe.h"
#include "ods/dbt/dbt_command.h"

namespace ods::dbt {

struct ShowProbeOptions {
  std::vector<std::string> extra_args;  // e.g. {"--target", "pg", "--profiles-dir", "..."}
};

// The probe borrows `dbt` (not owned); it must outlive the probe.
std::unique_ptr<contracts::RelationProbe> make_show_probe(DbtCommand& dbt, ShowProbeOptions options);

// One part of a parallel probe: the dbt command it runs through (not owned; it must outlive
// the probe) and its options (each part needs a --target-path of its own).
struct ShowProbePart {
  DbtCommand* dbt = nullptr;
  ShowProbeOptions options;
};

// The probe split into parts.size() shares (relation_probe 0.4) that run at once, one dbt show
// call per part on a thread of its own: for adapters whose connections are independent (a Spark
// Thrift server, Databricks, PostgreSQL); dbt-spark's session mode is refused by the program.
// Each part stays one fixed-size call, filtered as the serial probe is. The merged report
// answers every source: a part that failed leaves the sources of its share unknown, its why
// quoting that part's error (which sources those are, the other parts say); relations_exist
// is part 0's (empty when part 0 failed: nothing verified). call_seconds: the whole, start to
// last answer. Errors: "cancelled" when a part was interrupted; "probe_failed" when every part
// failed (quoting the first). One part: the serial probe itself.
std::unique_ptr<contracts::RelationProbe> make_parallel_show_probe(std::vector<ShowProbePart> parts);

// The Jinja program for `request` (exposed for tests and for reading). Its size depends only
// on the request's statements, never on the project, but for the lists of ids the request
// names: content_nodes (over 64 KiB of JSON: every node instead, a superset) and
// skip_statements (relation_probe 0.10; over 32 KiB of JSON: left out, so every statement runs
// and no answer names one skipped: more work, never an answer taken for one not read).
std::string show_probe_program(const contracts::ProbeRequest& request);

// Reads the probe's answer from dbt's JSON log lines. Errors: "probe_failed" when no
// ShowNode event carries a well-formed answer (naming what was wrong).
[[nodiscard]] ods::Result<contracts::ProbeReport> parse_show_probe_answer(const std::vector<std::string>& events);

// Reads the program's answer itself: the JSON object it prints (sources, nodes, node_kinds,
// identities, contents, sources_elsewhere, contents_elsewhere, target), as the dbt show program
// and the native DuckDB probe (ods/duckdb/native_probe.h) both answer. Errors: "probe_failed" when
// it is not a JSON object.
[[nodiscard]] ods::Result<contracts::ProbeReport> parse_probe_answer(const std::string& text);

}  // namespace ods::dbt
