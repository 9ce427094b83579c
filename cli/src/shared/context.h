#pragma once
// What every `ods state` command shares: the common flags resolved into settings, the
// output streams, and opening the state store. Injected clock and environment so tests
// can drive commands in-process.
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cli_args.h"
#include "ods/base/clock.h"
#include "ods/contracts/state_store.h"

namespace ods::cli {

struct Environment {
  std::function<std::string(const std::string&)> getenv;  // "" when unset
  // Whether the variable is set (to "" too). Unset function: unknown, so "" counts as unknown.
  std::function<bool(const std::string&)> is_set;
  const Clock* clock = &system_clock();  // never null; outlives the command
  // True when the process ends right after the command (the `ods` executable): a command may
  // then leave its large data (project, snapshot, plan) to the OS instead of destroying it
  // (see release_at_exit). False in tests that run commands in-process.
  bool exits_after_command = false;

  // clock's now as ISO-8601 UTC with microseconds.
  std::string now() const { return format_iso8601(clock->now()); }
};
// This process's environment, for the `ods` executable. A process ODS starts runs as ODS's
// user, so it can read /proc/<ods pid>/environ and /proc/<ods pid>/cmdline: the environment
// and arguments ODS was started with, as they sit in ODS's memory. So the secret variables
// (child_environment.h) are taken out on the call: their values are kept in the returned
// Environment alone, overwritten in place, and unset (what stays visible is each name and the
// value's length). Call once, at start, before any thread or child.
Environment process_environment();
// For the same reason, overwrites in `argv` itself the values of the flags that take a state
// URL (--state, --from, --to; also as --flag=value). Call once the arguments were copied.
void hide_secret_arguments(int argc, char** argv);

struct CommandContext {
  std::filesystem::path project_dir;  // --project-dir, default "."
  std::filesystem::path target_dir;   // --target-path, default <project>/target
  // The dbt target: --target, else as dbt chooses it (resolve_target: $DBT_TARGET, the profile's
  // `target:`); "" when it can't be known before dbt runs. Names the state scope.
  std::string target;
  std::string target_how;              // where `target` came from, for messages ("" when given by --target or unknown)
  std::string profile_default;         // the profile's default target; "" when unknown
  std::string state_url;               // --state, ODS_STATE, or sqlite:<project>/.ods/state.db
  std::string format = "text";         // --format text|json|markdown (markdown: plan, run, test)
  std::filesystem::path summary_file;  // --summary FILE: the Markdown summary also written there ("" when not)
  std::filesystem::path json_file;     // --json-file FILE: the --format json document also written there
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  Environment env;
  // False when the dbt whose artifacts are read ran outside ODS (`ods state record`): the
  // values its hooks read are not this environment's, so no keyed digest is made of them.
  bool hook_values_visible = true;
  // --read-only-state: every store is opened read-only and its credential must be unable to
  // write (state::OpenOptions::refuse_writable_credential); a command that records is refused.
  bool read_only_state = false;
};

// The flags every `ods state` command accepts.
std::vector<FlagSpec> common_flags();

// Resolves the common flags. Errors: "usage" for a bad --format or a project dir that doesn't exist.
[[nodiscard]] Result<CommandContext> make_context(const ParsedArgs& args, std::ostream& out, std::ostream& err,
                                                  Environment env);

// Opens the store at ctx.state_url. `create` false: a missing SQLite file is "not_found"
// and nothing is created (commands that only read). `read_only`: nothing is written at all,
// not even a migration (state::OpenOptions::read_only; plans and dry runs).
// With ctx.read_only_state the store is opened read-only whatever `read_only` says, a
// credential that can write is "writable_credential", and `create` is "usage".
// Sets ctx.target, target_how and profile_default as dbt would choose the target
// (dbt/target_choice.h; --profiles-dir from `args`). Errors: "usage", a target the profile lacks,
// in dbt's words: refused before anything runs.
[[nodiscard]] Result<void> resolve_target(const ParsedArgs& args, CommandContext& ctx);

// An on/off setting from the environment: `name` unset, empty or "on" is true, "off" false.
// Errors: "usage" naming the variable and its value, then "it must be <must_be>".
[[nodiscard]] Result<bool> on_off_setting(const CommandContext& ctx, const std::string& name,
                                          const std::string& must_be);

[[nodiscard]] Result<std::unique_ptr<contracts::StateStore>> open_store(const CommandContext& ctx, bool create,
                                                                        bool read_only = false);
// The same for the store `url` names (ods state copy).
[[nodiscard]] Result<std::unique_ptr<contracts::StateStore>> open_store_at(const CommandContext& ctx,
                                                                           const std::string& url, bool create,
                                                                           bool read_only = false);

// Disposes of `value`, a large per-command structure the command is done with: destroyed
// now, or, when ctx.env.exits_after_command, moved to the heap and never destroyed (its
// memory goes back to the OS at exit; destroying a 50k-node project's maps node by node
// costs a tenth of `ods state plan`'s time). Flush outputs before the command returns.
template <class T>
void release_at_exit(const CommandContext& ctx, T&& value) {
  if (!ctx.env.exits_after_command) return;            // destroyed with the caller's object as usual
  static auto* kept = new std::vector<const void*>();  // reachable, never destroyed
  kept->push_back(new std::decay_t<T>(std::forward<T>(value)));
}

// A state URL for messages: user info and query removed (passwords never printed).
std::string redact_url(const std::string& url);

}  // namespace ods::cli
