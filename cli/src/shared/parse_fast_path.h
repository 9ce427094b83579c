#pragma once
// The parse's fast path (issue 41 item 3, docs/cli.md "Nothing changed: no dbt process"): before
// `ods state run` starts dbt to parse, ODS digests what dbt's parse reads (ods/dbt/parse_inputs.h)
// and compares it with the digest recorded beside the parse's copy (parse_reuse.h) after the
// last successful parse. Equal: that copy is the parse, and no dbt process starts for it. Any
// doubt (a digest declined, no record, the copy missing, another dbt) is today's path: `dbt parse`.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.h"
#include "context.h"
#include "dbt_session.h"
#include "ods/base/result.h"
#include "ods/dbt/parse_inputs.h"

namespace ods::cli {

// What the fast path needs from the command line, read by parse_fast_path_setting.
struct ParseFastPathSetting {
  bool enabled = true;                                      // $ODS_PARSE_FAST_PATH is not "off"
  std::string why_disabled = "ODS_PARSE_FAST_PATH is off";  // the reason given when not enabled
  std::string profiles_dir;                                 // --profiles-dir as given ("" when not)
  std::string dbt;                                          // --dbt, else $ODS_DBT ("" -> dbt on PATH)
};

// $ODS_PARSE_FAST_PATH: "on" (the default) or "off". Errors: "usage" naming the variable and value.
[[nodiscard]] Result<ParseFastPathSetting> parse_fast_path_setting(const ParsedArgs& args, const CommandContext& ctx);

// This run's digest of the parse's inputs, or why there is none (declined: one clause).
struct ParseInputsCheck {
  std::optional<dbt::ParseInputsDigest> inputs;  // nullopt: declined
  std::string declined;                          // why, when inputs is nullopt
};

// The digest for a parse by `session` (in the ods dbt driver only) with `parse_arguments` (the
// parse's own, before the session's shared flags). Reads files and the environment only; never
// starts a process.
ParseInputsCheck check_parse_inputs(const CommandContext& ctx, DbtSession& session, const ParseFastPathSetting& setting,
                                    const std::vector<std::string>& parse_arguments);

// The file beside the parse's copy holding the digest of the inputs its parse read.
inline constexpr const char* kParseInputsDigestFile = "parse_inputs.sha256";

// True when `check` holds a digest equal to the one recorded in `copy_dir` (kParseInputsDigestFile).
bool parse_inputs_unchanged(const ParseInputsCheck& check, const std::filesystem::path& copy_dir);

// The step line of a fast path taken: "nothing dbt's parse reads changed (N files, M variables,
// dbt X): the kept parse stands, dbt not started".
std::string fast_path_line(const dbt::ParseInputsDigest& inputs);

// `inner` for a run whose parse took the fast path: before its first dbt command (the probe's dbt
// show, dbt ls, dbt build...), the driver parses the project (`dbt parse --no-write-json
// --target-path <target-dir>`; a command that is itself a parse runs as it is), and that
// command runs only when the parse left the kept copy standing: dbt's partial-parse state equals
// the one recorded beside the copy (parse_reuse.h), so every dbt command of the run stands on the
// parse the plan was made from. Otherwise the command fails with "conflict" (a file or variable
// the parse reads changed while ods ran: nothing is recorded) and so does every later one. When
// the driver keeps no parse (one dbt process per command), the commands run as they are.
std::unique_ptr<DbtSession> parse_before_first_command(std::unique_ptr<DbtSession> inner, const CommandContext& ctx);

}  // namespace ods::cli
