// `ods` command dispatch and help.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "command_summary.h"
#include "commands.h"
#include "flag_names.h"
#include "git_checkout.h"
#include "pod_environment.h"

namespace ods::cli {

namespace {

// The CMake project version (cli/CMakeLists.txt passes it in), so `ods --version` and the
// release archive's name (scripts/dist.sh) agree.
constexpr const char* kVersion = ODS_VERSION;

void print_usage(std::ostream& out) {
  out << "ods " << kVersion << " — decides which dbt nodes to reuse and which to build, and says why.\n\n"
      << "usage: ods state <command> [options]\n       ods pod [options]   (runner-pod mode, Kubernetes)\n\n"
      << "commands:\n";
  for (const auto& c : state_commands())
    out << "  " << c.name << std::string(10 - c.name.size(), ' ') << c.summary << "\n";
  out << "\nRun `ods state <command> --help` for its options.\n";
}

void print_flags(std::ostream& out, const std::vector<FlagSpec>& flags) {
  for (const auto& f : flags) {
    std::string left = f.name + (f.takes_value ? " VALUE" : "");
    out << "  " << left << std::string(left.size() < 24 ? 24 - left.size() : 1, ' ') << f.help << "\n";
  }
}

void print_command_help(std::ostream& out, const Command& c) {
  out << "usage: ods state " << c.name << " [options]\n\n" << c.summary << "\n\noptions:\n";
  auto flags = common_flags();
  flags.insert(flags.end(), c.extra_flags.begin(), c.extra_flags.end());
  print_flags(out, flags);
}

// `ods pod [options]`.
int run_pod_command(const std::vector<std::string>& rest, std::ostream& out, std::ostream& err, Environment env) {
  for (const auto& a : rest) {
    if (a == "--help" || a == "-h") {
      out << "usage: ods pod [options]\n\nrunner-pod mode: compile and probe, send the project inputs to the "
             "controller, build what its plan selects, send the run results\n\noptions:\n";
      print_flags(out, pod_flags());
      return kExitOk;
    }
  }
  auto parsed = parse_args(rest, pod_flags());
  if (!parsed) {
    err << "ods pod: " << parsed.error().message << "\n";
    return kExitUsage;
  }
  if (parsed->get(kFlagFormat) == "markdown") {
    err << "ods pod: --format markdown is for ods state plan, run and test; use text or json\n";
    return kExitUsage;
  }
  // In a runner pod the operator sets these (docs/kubernetes.md, "The Job a run gets"); a flag wins.
  default_pod_flags(*parsed, env);
  if (auto git = pod_git_source(env, parsed->get(kFlagProjectDir));
      git && parsed->has(kFlagProjectDir) && !std::filesystem::exists(parsed->get(kFlagProjectDir))) {
    if (auto checked_out = checkout_git_source(*git, out); !checked_out) {
      err << "ods pod: " << checked_out.error().message << "\n";
      return kExitFailed;
    }
  }
  auto ctx = make_context(*parsed, out, err, std::move(env));
  if (!ctx) {
    err << "ods pod: " << ctx.error().message << "\n";
    return kExitUsage;
  }
  return cmd_pod(*parsed, *ctx);
}

// `flags` and the CI summary flags (--summary, --json-file) of plan, run and test.
std::vector<FlagSpec> with_summary_flags(std::vector<FlagSpec> flags) {
  auto extra = summary_flags();
  flags.insert(flags.end(), extra.begin(), extra.end());
  return flags;
}

// --format markdown is for the commands that write a summary (those with --summary).
bool takes_markdown(const std::vector<FlagSpec>& flags) {
  return std::ranges::any_of(flags, [](const FlagSpec& f) { return f.name == kFlagSummary; });
}

// The flags of the dbt calls that plan as the next run would (explain, diff: next_run_plan.h).
std::vector<FlagSpec> next_run_flags() {
  return {{kFlagCompile, true, "changed (default: $ODS_COMPILE, else changed) or all, as for run"},
          {kFlagDbt, true, "the dbt executable (default: $ODS_DBT, else dbt on PATH)"},
          {kFlagProfilesDir, true, "passed to dbt"}};
}

}  // namespace

const std::vector<Command>& state_commands() {
  static const std::vector<Command> kCommands = {
      {"plan", "say, for every node, whether it can be reused or must be built, and why",
       with_summary_flags(
           {{kFlagSelect, true,
             "dbt selection, resolved by dbt (dbt ls): every selector dbt accepts except state:, "
             "result:, source_status:"},
            {kFlagExclude, true, "nodes to leave out of the selection, same syntax"},
            {kFlagSelector, true, "a YAML selector of the project's selectors.yml"},
            {kFlagDbt, true, "the dbt executable that resolves a selection (default: $ODS_DBT, else dbt)"},
            {kFlagProfilesDir, true, "passed to dbt"}}),
       cmd_plan},
      {"run", "compile, read the warehouse for evidence, plan, build only what must be built, record the run",
       with_summary_flags(
           {{kFlagSelect, true, "dbt selection (see plan)"},
            {kFlagExclude, true, "nodes to leave out of the selection, same syntax"},
            {kFlagSelector, true, "a YAML selector of the project's selectors.yml"},
            {kFlagDryRun, false, "plan and print; build and record nothing, write no state"},
            {kFlagCutoff, true,
             "early cutoff's waves: auto (where the spared nodes' recorded build time exceeds "
             "another dbt call), always, off (default auto)"},
            {kFlagCompile, true,
             "changed: dbt parse, then compile only the nodes whose compile key changed or can't be keyed; all: "
             "compile the whole project (default: $ODS_COMPILE, else changed)"},
            {kFlagWriteManifest, false,
             "let dbt write target/manifest.json in this run, for tools that read it (by default a run on one "
             "dbt parse writes none: ODS takes the compiled nodes from its dbt driver)"},
            {kFlagDbt, true, "the dbt executable (default: $ODS_DBT, else dbt on PATH)"},
            {kFlagProfilesDir, true, "passed to dbt"},
            {kFlagMetricsFile, true, "also write the scope's run metrics there (OpenMetrics text)"},
            {kFlagPushgateway, true, "also push them to this Prometheus Pushgateway (http://host:9091)"}}),
       cmd_run},
      {"pr",
       "build a pull request's environment: the nodes whose code differs from production's recorded state and "
       "their readers, into --pr-target; the rest read from production; records nothing",
       with_summary_flags(
           {{kFlagPrTarget, true, "the dbt target of the PR's own schema (required; --target is production's)"},
            {kFlagUpstream, true,
             "how the PR reads production's relations: defer (dbt --defer --favor-state), clone (dbt clone), "
             "auto (clone on Snowflake, BigQuery, Databricks; defer elsewhere; the default)"},
            {kFlagDbt, true, "the dbt executable (default: $ODS_DBT, else dbt on PATH)"},
            {kFlagProfilesDir, true, "passed to dbt"}}),
       cmd_pr},
      {"test", "run only the checks (dbt tests) not yet passed on the recorded builds and sources, record the results",
       with_summary_flags(
           {{kFlagSelect, true, "dbt selection (see plan); sources count when dbt selects them"},
            {kFlagExclude, true, "nodes and sources whose checks to leave out, same syntax"},
            {kFlagSelector, true, "a YAML selector of the project's selectors.yml"},
            {kFlagDryRun, false, "decide and print; run and record nothing"},
            {kFlagDbt, true, "the dbt executable (default: $ODS_DBT, else dbt on PATH)"},
            {kFlagProfilesDir, true, "passed to dbt"},
            {kFlagMetricsFile, true, "also write the scope's run metrics there (OpenMetrics text)"},
            {kFlagPushgateway, true, "also push them to this Prometheus Pushgateway (http://host:9091)"}}),
       cmd_test},
      {"record", "record a finished dbt run (target/run_results.json) as the next state", {}, cmd_record},
      {"explain",
       "explain one node's decision with all its evidence, as the next run makes it (dbt parse, compile of what "
       "changed, the warehouse's evidence): ods state explain NODE",
       next_run_flags(), cmd_explain},
      {"diff", "show what changed in each node's code since its last recorded build, as the next run fingerprints it",
       next_run_flags(), cmd_diff},
      {"history",
       "list the recorded snapshots and runs of this scope",
       {{kFlagLimit, true, "how many entries (default 20)"}},
       cmd_history},
      {"doctor", "check the state store's integrity (read-only)", {}, cmd_doctor},
      {"backup", "write a consistent copy of the state store: ods state backup FILE", {}, cmd_backup},
      {"reset",
       "forget this scope's recorded state (asks for --yes)",
       {{kFlagYes, false, "confirm that the scope's state is to be deleted"}},
       cmd_reset},
      {"copy",
       "copy recorded state between stores (SQLite <-> PostgreSQL): ods state copy --to URL",
       {{kFlagFrom, true, "the store to copy from (default: --state, $ODS_STATE or the project's)"},
        {kFlagTo, true, "the store to copy to: sqlite:PATH, postgresql://… or host=… dbname=…"},
        {kFlagScope, true, "the scope to copy, PROJECT/TARGET (default: this project's)"},
        {kFlagAll, false, "copy every scope of the source"},
        {kFlagReplace, false, "replace what the target holds for those scopes"}},
       cmd_copy},
      {"key",
       "say where the digest key of env-reading hooks comes from (never the key); --create writes a new key file",
       {{kFlagCreate, false, "write a new random key to ${XDG_CONFIG_HOME:-~/.config}/ods/digest.key (mode 0600)"}},
       cmd_key},
      {"grants",
       "print the SQL giving a role read-only access to the PostgreSQL state (SELECT on its tables): ods state "
       "grants ROLE",
       {},
       cmd_grants},
  };
  return kCommands;
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, Environment env) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage(args.empty() ? err : out);
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "--version") {
    out << "ods " << kVersion << "\n";
    return kExitOk;
  }
  if (args[0] == "pod") return run_pod_command({args.begin() + 1, args.end()}, out, err, std::move(env));
  if (args[0] != "state") {
    err << "ods: unknown command '" << args[0] << "'; try `ods state plan` (ods --help lists the commands)\n";
    return kExitUsage;
  }
  if (args.size() < 2) {
    print_usage(err);
    return kExitUsage;
  }
  if (args[1] == "--help" || args[1] == "-h" || args[1] == "help") {  // `ods state --help`: the state commands
    print_usage(out);
    return kExitOk;
  }
  const Command* command = nullptr;
  for (const auto& c : state_commands())
    if (c.name == args[1]) command = &c;
  if (!command) {
    err << "ods: unknown command 'state " << args[1] << "' (ods --help lists the commands)\n";
    return kExitUsage;
  }
  std::vector<std::string> rest(args.begin() + 2, args.end());
  for (const auto& a : rest) {
    if (a == "--help" || a == "-h") {
      print_command_help(out, *command);
      return kExitOk;
    }
  }
  auto flags = common_flags();
  flags.insert(flags.end(), command->extra_flags.begin(), command->extra_flags.end());
  auto parsed = parse_args(rest, flags);
  if (!parsed) {
    err << "ods state " << command->name << ": " << parsed.error().message << "\n";
    return kExitUsage;
  }
  if (parsed->get(kFlagFormat) == "markdown" && !takes_markdown(command->extra_flags)) {
    err << "ods state " << command->name << ": --format markdown is for plan, run and test; use text or json\n";
    return kExitUsage;
  }
  auto ctx = make_context(*parsed, out, err, std::move(env));
  if (!ctx) {
    err << "ods state " << command->name << ": " << ctx.error().message << "\n";
    return kExitUsage;
  }
  // The target as dbt would choose it, before anything runs: it names the scope.
  if (auto resolved = resolve_target(*parsed, *ctx); !resolved) {
    err << "ods state " << command->name << ": " << resolved.error().message << "\n";
    return kExitUsage;
  }
  try {
    return command->run(*parsed, *ctx);
  } catch (const std::exception& e) {
    err << "ods: internal error: " << e.what() << "\n";
    return kExitFailed;
  }
}

}  // namespace ods::cli
