#pragma once
// The one list of Error::code words (ods/base/result.h). A code is stable: scripts, tests, exit
// codes and the operator's conditions match on it, so a new failure reuses a code below when one
// fits and adds a line here when none does (base_tests checks every `fail("<code>"` of the
// product sources against this list). One spelling each: "io", never "io_error".
#include <span>
#include <string_view>

namespace ods {

struct ErrorCode {
  std::string_view code;
  std::string_view meaning;
};

// Sorted by code.
inline constexpr ErrorCode kErrorCodes[] = {
    {"cancelled", "The work was interrupted (a signal, a shutdown) before it finished."},
    {"conflict", "Someone else changed the thing first (compare-and-swap lost, a second owner)."},
    {"corrupt", "Stored state or a document ODS wrote does not have the shape it must have."},
    {"cycle", "The project's graph has a cycle."},
    {"dbt_failed", "dbt ran and reported failure."},
    {"dbt_not_found", "No dbt executable where one was looked for."},
    {"digest_key", "The key of the hooks' keyed digest is unusable: too short, unreadable, or readable by others."},
    {"empty_run", "run_results.json holds no result to record."},
    {"git_credentials", "The credentials for a git checkout cannot be prepared."},
    {"git_failed", "git is missing, or the repository or revision is not reachable."},
    {"internal", "A bug: an invariant of ODS itself does not hold."},
    {"interrupted", "A child process was stopped by a signal ODS forwarded."},
    {"invalid_argument", "A caller passed a value the function does not accept."},
    {"invalid_artifact", "A dbt artifact is malformed (names the file and the field)."},
    {"invalid_config", "A client configuration lacks what it needs (a server URL)."},
    {"invalid_in_cluster_config", "The in-cluster service account files are missing or malformed."},
    {"invalid_inputs", "Project inputs contradict themselves (a node twice, an unknown parent)."},
    {"invalid_kubeconfig", "A kubeconfig file is malformed or names a missing context."},
    {"invalid_phase", "A DbtRun status holds a phase that does not exist."},
    {"invalid_project", "A DbtProject resource is malformed."},
    {"invalid_run", "A run outcome is malformed (a start time that is not a timestamp)."},
    {"invalid_schedule", "A cron schedule does not parse."},
    {"invalid_tls", "A CA, client certificate or key does not load."},
    {"invalid_transition", "A DbtRun phase change that the state machine forbids."},
    {"invalid_url", "A state-store or server URL does not parse."},
    {"invocation_mismatch", "Two artifacts come from different dbt invocations."},
    {"io", "Reading, writing, creating or waiting failed at the operating system."},
    {"kube_api", "The Kubernetes API refused or kept failing a request."},
    {"listen_failed", "A server cannot listen on its address."},
    {"migration_failed", "A state-store schema migration failed (and was rolled back)."},
    {"missing_artifact", "A dbt artifact file does not exist or cannot be opened."},
    {"newer_schema", "A document or database was written by a newer ODS."},
    {"no_project_name", "The manifest names no project."},
    {"not_a_build", "run_results.json comes from a dbt command that builds nothing."},
    {"not_a_test_run", "run_results.json does not come from `dbt test`."},
    {"not_allowed", "A DbtProject names a runner image or service account outside the operator's allow-list."},
    {"not_empty", "A target that must be empty already holds state."},
    {"not_found", "The thing asked for does not exist."},
    {"not_run", "A placeholder for work that never ran (benchmarks)."},
    {"outdated_schema", "A database has an older schema that this command does not migrate."},
    {"permission_denied", "The operating system refused access (an executable, a file)."},
    {"probe_failed", "A relation probe could not be run."},
    {"protocol", "A peer's answer does not follow the pod<->controller protocol (names the field)."},
    {"refused", "A peer (the operator's callback server) answered the request with a refusal."},
    {"run_finished", "The DbtRun already finished; its phase no longer changes."},
    {"sample_run", "run_results.json comes from a sampled run, which proves nothing."},
    {"secret", "A referenced Kubernetes Secret or key cannot be read."},
    {"spawn_failed", "A child process could not be started."},
    {"stale_run", "A run older than the recorded state: recording it would go back in time."},
    {"unavailable", "The resource is busy or down for now; trying again may work."},
    {"unknown_command", "A dbt command ODS does not know."},
    {"unreadable_token", "A service account token file cannot be read."},
    {"unsupported", "The implementation cannot do this (an in-memory store backing up)."},
    {"unsupported_dbt", "A dbt version ODS does not support."},
    {"unsupported_schema", "A dbt artifact schema version ODS does not read."},
    {"usage", "The command line is wrong (names the flag or argument)."},
    {"writable_credential", "A credential that must only read can write (a pull request's state store role)."},
};

// Every code above.
inline constexpr std::span<const ErrorCode> error_codes() { return kErrorCodes; }

// Whether `code` is listed above.
constexpr bool is_known_error_code(std::string_view code) {
  for (const ErrorCode& known : kErrorCodes) {
    if (known.code == code) return true;
  }
  return false;
}

}  // namespace ods
