#pragma once
// Test harness: what relations hold, compared with a full build from scratch (the control of
// the early-cutoff scenarios and of the reuse-efficiency corpus, tests/corpus).
#include <map>
#include <string>
#include <vector>

#include "harness/dbt_project.h"
#include "harness/warehouse.h"

namespace ods::testing {

// Each relation's row count and order-independent hash of its rows: relation name ->
// "rows/hash". On DuckDB read straight from the project's file (DbtProject::duckdb_file, the
// relations in schema `main`: examples/shop's and bench/gen_project.py's layout); elsewhere
// through one `dbt show --inline` in `w`'s target (refs resolved as dbt's own). Fails the
// calling test when the read fails or a relation is missing from the answer.
std::map<std::string, std::string> relation_contents(const DbtProject& p, const Warehouse& w,
                                                     const std::vector<std::string>& relations);

// `dbt build --full-refresh` of every node but snapshots (whose rows carry the time they were
// taken) and, unless `with_tests`, tests: every table and view replaced, incremental models
// rebuilt from scratch. Whether dbt succeeded (the calling test fails when not).
bool full_build(const DbtProject& p, const Warehouse& w, bool with_tests = true);

}  // namespace ods::testing
