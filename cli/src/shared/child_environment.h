#pragma once
// What a process ODS starts may see of ODS's environment (issue 26; docs/security.md, "What a
// process ODS starts sees"). ODS's own secrets, and the ways to them, are read by ODS and never
// passed on: dbt runs the project's code (in a pull request's plan, its author's), and whatever
// dbt can read, that code can print, write or send. Every other variable — the warehouse
// credentials the user gave dbt, PATH, DBT_*, ODS_DBT… — reaches dbt unchanged.
#include <memory>
#include <string>
#include <vector>

#include "context.h"
#include "ods/process/child_process.h"

namespace ods::cli {

// The names withheld from every child (dbt, the dbt driver, git), the one list of them:
//   ODS_STATE                the state store URL (it may hold the PostgreSQL password);
//   ODS_DIGEST_KEY           the key of the hooks' keyed digests (guessing a value needs it);
//   ODS_RUN_TOKEN_FILE       where a runner pod's callback token is (`ods pod`);
//   ODS_GIT_CREDENTIALS_DIR  where a runner pod's git Secret is mounted (`ods pod`; the
//                            credentials reach git through its own ProcessSpec::env only).
// libpq's PG* variables are not on it: ODS sets none, and they are equally the user's way of
// giving dbt-postgres its connection, so ODS cannot tell whose they are (docs/security.md).
const std::vector<std::string>& secret_variables();

// `env` as the processes ODS starts see it: each of secret_variables() unset. What ODS
// fingerprints of dbt's environment (hook_digest.h) reads through this view, so a hook reading
// a withheld variable is digested with the value dbt gets: its default.
Environment child_view(const Environment& env);

// The launcher of every process ODS starts: process::make_process_launcher withholding
// secret_variables(). Nothing in cli/ makes a launcher otherwise.
std::unique_ptr<process::ProcessLauncher> make_child_launcher();

// ODS's own process hides them too (what /proc shows of it): context.h, process_environment()
// and hide_secret_arguments().

}  // namespace ods::cli
