#pragma once
// The `ods` commands. Each takes the parsed flags and a context and returns the process
// exit code (exit_codes.h): 0 success, 1 the command failed or refused (a message on stderr
// says why), 2 usage error, 130 interrupted.
#include <iosfwd>
#include <string>
#include <vector>

#include "cli_args.h"
#include "context.h"
#include "exit_codes.h"

namespace ods::cli {

struct Command {
  std::string name;  // "plan" (under "ods state")
  std::string summary;
  std::vector<FlagSpec> extra_flags;  // beyond common_flags()
  int (*run)(const ParsedArgs&, CommandContext&);
};

const std::vector<Command>& state_commands();

// Entry point: `args` without the program name. Never throws.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, Environment env);

int cmd_plan(const ParsedArgs&, CommandContext&);
int cmd_record(const ParsedArgs&, CommandContext&);
int cmd_run(const ParsedArgs&, CommandContext&);
int cmd_pr(const ParsedArgs&, CommandContext&);
int cmd_test(const ParsedArgs&, CommandContext&);
int cmd_explain(const ParsedArgs&, CommandContext&);
int cmd_diff(const ParsedArgs&, CommandContext&);
int cmd_history(const ParsedArgs&, CommandContext&);
int cmd_doctor(const ParsedArgs&, CommandContext&);
int cmd_backup(const ParsedArgs&, CommandContext&);
int cmd_reset(const ParsedArgs&, CommandContext&);
int cmd_copy(const ParsedArgs&, CommandContext&);
int cmd_key(const ParsedArgs&, CommandContext&);
int cmd_grants(const ParsedArgs&, CommandContext&);

// `ods pod` (runner-pod mode, cmd_pod.cc): its own flags (no state store flag: the
// controller keeps the state).
std::vector<FlagSpec> pod_flags();
int cmd_pod(const ParsedArgs&, CommandContext&);

}  // namespace ods::cli
