#pragma once
// Test harness: the warehouse a copy of examples/shop builds into, behind one interface, so
// a scenario suite runs unchanged on DuckDB (the `dev` target, a file in the project dir) and
// on PostgreSQL (the `pg` target, a private server of harness/postgres_server.h).
//
// Lifecycle in a suite: connect(p) + load(p) on the baseline project, build it, then
// save_baseline(); per scenario begin_scenario() before copying the baseline project
// (DbtProject::copy_of keeps the connection environment) and end_scenario() after.
// On PostgreSQL one server serves the whole test binary (started on first use); the baseline
// database `shop` is renamed to `shop_baseline`, and each scenario gets a fresh `shop`
// created from it as a template (same name: the database is part of the target identity and
// of the compiled SQL), dropped when the scenario ends. On DuckDB the data live in the
// project dir, so copying the project copies them.
//
// Not thread-safe; scenarios run one after another.
#include <memory>
#include <string>
#include <vector>

#include "harness/dbt_project.h"

namespace ods::testing {

class Warehouse {
 public:
  virtual ~Warehouse() = default;

  // For test names: "DuckDb", "Postgres".
  virtual std::string name() const = 0;
  // Empty when the warehouse is usable; else why not (e.g. the server did not start).
  virtual std::string unavailable() const = 0;
  // The `origin` of the content versions its ChangeProvider reports ("duckdb_content").
  virtual std::string content_origin() const = 0;
  // Whether the adapter runs Python models (examples/shop enables order_status_summary only then).
  virtual bool runs_python_models() const = 0;
  // ods/dbt arguments choosing the target ({} for the default target).
  virtual std::vector<std::string> target_args() const = 0;

  // Points `p` at this warehouse (environment entries for dbt, ods and the generator).
  virtual void connect(DbtProject& p) const = 0;
  // scripts/generate_data.py against the project's warehouse, with `args` (e.g. mutations).
  virtual ProcessResult generate_data(const DbtProject& p, const std::vector<std::string>& args = {}) const = 0;
  // Runs SQL statements (';'-separated) against the project's warehouse.
  virtual ProcessResult sql(const DbtProject& p, const std::string& statements) const = 0;
  // SQL that drops table raw.customers and creates it again with the same rows (and columns).
  virtual std::string recreate_customers_sql() const = 0;

  // An environment entry that makes dbt find the warehouse unreachable, and a piece of the
  // error text dbt then prints.
  virtual std::string unreachable_env() const = 0;
  virtual std::string unreachable_error() const = 0;

  virtual void save_baseline() = 0;
  virtual void begin_scenario() = 0;
  virtual void end_scenario() = 0;
};

// Process-wide instances (the PostgreSQL server starts on the first call).
Warehouse& duckdb_warehouse();
Warehouse& postgres_warehouse();

// Writes <p.dir()>/<name>, a dbt wrapper: when the dbt subcommand (any argument) equals
// `subcommand`, it runs the shell line `before` first, then .venv's dbt with all arguments,
// then the shell line `after` (when given; the wrapper exits with dbt's code); any other
// command execs .venv's dbt. Returns its path (for `ods --dbt`).
std::string write_dbt_wrapper(const DbtProject& p, const std::string& name, const std::string& subcommand,
                              const std::string& before, const std::string& after = "");

}  // namespace ods::testing
