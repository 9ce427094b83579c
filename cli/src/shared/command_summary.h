#pragma once
// The summary of `ods state plan`, `ods state run` (also --dry-run) and `ods state test`: the
// counts, selection, scope and state store every form of their report shows (the "summary"
// object of the JSON document, the Markdown's totals), and delivering those forms: printed
// (--format json|markdown) and written beside the normal output (--summary FILE,
// --json-file FILE). docs/cli.md, "Summaries for CI", is the contract CI steps rely on.
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_args.h"
#include "context.h"
#include "ods/contracts/state_store.h"
#include "ods/planner/plan.h"

namespace ods::cli {

// Where the state lives, fit to print and to publish: never a user name, password, query or
// any other connection setting but the server and database.
struct StoreDescription {
  std::string kind;      // "sqlite" | "postgresql" | "memory" | "unknown"
  std::string location;  // the SQLite file; "HOST:PORT/DBNAME" for PostgreSQL; "" for memory
};
// `url` as ods::state::parse_store_url and parse_postgres_conninfo read it (the location is ""
// for a PostgreSQL string libpq can't parse).
StoreDescription describe_store(const std::string& url);

struct CommandSummary {
  std::string command;  // "plan" | "run" | "test"
  bool dry_run = false;
  std::string scope;
  StoreDescription state;
  // run: nodes dbt built successfully; plan and dry run: nodes to build. test: nodes and
  // sources whose checks passed (dry run: to be run).
  int built = 0;
  int reused = 0;                 // REUSE nodes (test: checks skipped)
  int failed = 0;                 // nodes (test: nodes and sources) dbt reported as failed
  int skipped = 0;                // nodes dbt skipped (after a failure upstream)
  double time_saved_seconds = 0;  // the reused nodes' last recorded build durations
  std::string selection;          // the dbt selection of the BUILD set, space-separated ("" when none)
  std::string outcome;            // run/test: the ledger outcome ("success", "reused", ...); "" for plans
};

// The "summary" object: built, reused, failed, skipped, time_saved_seconds, selection, scope,
// state {kind, location}, dry_run, command, outcome.
nlohmann::json to_json(const CommandSummary& summary);

// The flags plan, run and test add for CI: --summary FILE, --json-file FILE.
std::vector<FlagSpec> summary_flags();

// The seconds `plan`'s REUSE nodes took when last built (ods::run::time_saved_seconds) from
// ctx's store, opened read-only; 0 when there is none or it cannot be read.
double time_saved_seconds(const CommandContext& ctx, const planner::ExecutionPlan& plan);

// A JSON document whose top-level members are `members` (name, the value's JSON text written
// with indent 2, as dump(2) or a planner document written pretty), in the order given: callers
// give them in name order, as nlohmann orders an object's members. Nested documents are
// spliced as text, never parsed again (a 10k-node plan is written once).
std::string document_of_members(const std::vector<std::pair<std::string, std::string>>& members);

// The summary of `plan` before anything is built: built = its BUILD nodes, reused = its
// REUSE nodes, selection = plan.select, the scope and ctx's store.
CommandSummary planned_summary(const CommandContext& ctx, const planner::ExecutionPlan& plan, std::string command,
                               bool dry_run, double time_saved);

// True when the command must produce its JSON document or Markdown (--format json|markdown,
// --summary, --json-file), so a plain text run does no extra work.
bool report_wanted(const CommandContext& ctx);

// The `ods state plan --format json` document: the planner's, its "summary" object extended
// with `summary`'s members (its "build" and "reuse" stay). Pretty, no trailing newline.
std::string plan_document(const planner::ExecutionPlan& plan, const CommandSummary& summary);

struct MarkdownInput;

// Delivers a command's report: prints `json_document()` (--format json) or the Markdown of
// `markdown()` (--format markdown) on ctx.out, and writes --json-file / --summary, replacing
// each file. Each callback is called only when its form is wanted. Returns false after
// printing "ods: cannot write …" on ctx.err when a file could not be written.
[[nodiscard]] bool deliver_report(const CommandContext& ctx, const std::function<std::string()>& json_document,
                                  const std::function<MarkdownInput()>& markdown);

}  // namespace ods::cli
