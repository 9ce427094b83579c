#pragma once
// RelationProbe through one `dbt show --inline` call (ADR-0016, ADR-0022): a fixed Jinja
// program that iterates graph.sources and graph.nodes itself (nothing grows on the command
// line with the project), checks which relations exist (one listing per schema), runs the
// request's statements on each matching source relation, measures each statement's
// duration, and prints its answer as one JSON value that the provider reads back from
// dbt's ShowNode log event.
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

// The Jinja program for `request` (exposed for tests and for reading). Its size depends only
// on the request's statements, never on the project.
std::string show_probe_program(const contracts::ProbeRequest& request);

// Reads the probe's answer from dbt's JSON log lines. Errors: "probe_failed" when no
// ShowNode event carries a well-formed answer (naming what was wrong).
[[nodiscard]] ods::Result<contracts::ProbeReport> parse_show_probe_answer(const std::vector<std::string>& events);

}  // namespace ods::dbt
