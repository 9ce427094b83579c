#include "parse_reuse.h"

#include <optional>
#include <system_error>

#include "dbt_steps.h"
#include "exit_codes.h"
#include "file_bytes.h"
#include "flag_names.h"
#include "ods/base/sha256.h"

namespace ods::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDigestFile = kPartialParseDigestFile;

// `dbt <args>` through `session`; the exit code after reporting when it did not succeed.
int run_parse(const CommandContext& ctx, DbtSession& session, const std::vector<std::string>& args) {
  auto parsed = session.run(args);
  if (!parsed) return report(ctx, parsed.error());
  if (parsed->interrupted) return report(ctx, {"interrupted", "interrupted while parsing; nothing recorded"});
  if (parsed->exit_code != 0) return report_dbt_failure(ctx, "dbt parse", *parsed);
  return kExitOk;
}

// Writes `digest` as the copy's `file`, atomically (a temporary file renamed over it).
Result<void> record_digest(const fs::path& dir, const std::string& digest, const char* file = kDigestFile) {
  const fs::path tmp = dir / (std::string(file) + ".tmp");
  ODS_TRY_VOID(
      write_bytes(tmp, digest + "\n",
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read));
  std::error_code ec;
  fs::rename(tmp, dir / file, ec);
  if (ec) return fail("io", "Cannot rename " + tmp.string() + " to " + file + ": " + ec.message() + ".");
  return {};
}

// Removes the digests recorded beside the copy (before it is rewritten). Errors: "io".
Result<void> remove_digests(const fs::path& dir) {
  for (const char* file : {kParseInputsDigestFile, kDigestFile}) {
    std::error_code ec;
    fs::remove(dir / file, ec);
    if (ec) return fail("io", "Cannot remove " + (dir / file).string() + ": " + ec.message() + ".");
  }
  return {};
}

// Records the digest of the parse's inputs (`check`, taken before dbt started) beside the copy.
Result<void> record_inputs(const fs::path& dir, const ParseInputsCheck& check) {
  if (!check.inputs) return {};
  return record_digest(dir, check.inputs->digest, kParseInputsDigestFile);
}

}  // namespace

fs::path parse_copy_dir(const CommandContext& ctx) { return ctx.target_dir / "ods-parse"; }

namespace {

// Whether dbt's partial-parse state (target/partial_parse.msgpack) is still the one the kept copy
// in `dir` was recorded with: a dbt command run outside ODS since (`dbt run` of other code, then
// the code reverted) parses and rewrites it, and the driver's parse before the run's first dbt
// command would then find it moved and refuse the run (parse_before_first_command), run after run.
bool kept_state_stands(const fs::path& target_dir, const fs::path& dir) {
  auto state = read_bytes(target_dir / "partial_parse.msgpack");
  auto recorded = read_bytes(dir / kDigestFile);
  return state && recorded && *recorded == sha256_hex(*state) + "\n";
}

// The driver's parse command (its own arguments), as parse_project runs it.
std::vector<std::string> kept_parse(const CommandContext& ctx) {
  // dbt joins a relative --target-path to the project's folder, and the driver's process runs in it.
  return {"parse", "--no-write-json", kFlagTargetPath, fs::absolute(ctx.target_dir).lexically_normal().string()};
}

}  // namespace

std::expected<ParsedManifest, int> parse_project(const CommandContext& ctx, DbtSession& session,
                                                 const std::vector<std::string>& target_path,
                                                 const ParseFastPathSetting& fast) {
  const fs::path target_dir = fs::absolute(ctx.target_dir).lexically_normal();
  const std::vector<std::string> kept = kept_parse(ctx);
  const fs::path dir = fs::absolute(parse_copy_dir(ctx)).lexically_normal();
  const ParseInputsCheck check = check_parse_inputs(ctx, session, fast, kept);
  const bool inputs_unchanged = parse_inputs_unchanged(check, dir) && fs::exists(dir / "manifest.json") &&
                                ctx.env.getenv("DBT_PARTIAL_PARSE_FILE_PATH").empty();
  const bool state_stands = inputs_unchanged && kept_state_stands(target_dir, dir);
  if (state_stands) {
    step(ctx, fast_path_line(*check.inputs));
    return ParsedManifest{dir / "manifest.json", true, true, ""};
  }
  const std::string declined =
      !check.inputs      ? check.declined
      : inputs_unchanged ? "dbt's partial-parse state (target/partial_parse.msgpack) is not the kept parse's: a dbt "
                           "command parsed since"
                         : "something dbt's parse reads changed since the kept parse, or none was recorded";
  step(ctx, "parsing the project (dbt parse); not the parse's fast path: " + declined);
  std::vector<std::string> plain{"parse"};
  plain.insert(plain.end(), target_path.begin(), target_path.end());
  if (!session.runs_in_driver()) {
    if (int code = run_parse(ctx, session, plain); code != kExitOk) return std::unexpected(code);
    return ParsedManifest{ctx.target_dir / "manifest.json", false, false, declined};
  }
  if (int code = run_parse(ctx, session, kept); code != kExitOk) return std::unexpected(code);
  if (!session.one_parse()) {  // the driver declined on its first command: that parse wrote nothing
    if (int code = run_parse(ctx, session, plain); code != kExitOk) return std::unexpected(code);
    return ParsedManifest{ctx.target_dir / "manifest.json", false, false, declined};
  }

  const ParsedManifest copy{dir / "manifest.json", true, false, declined};
  std::optional<std::string> digest;
  if (auto state = read_bytes(target_dir / "partial_parse.msgpack");
      state && ctx.env.getenv("DBT_PARTIAL_PARSE_FILE_PATH").empty())
    digest = sha256_hex(*state);
  if (digest && fs::exists(copy.manifest)) {
    if (auto recorded = read_bytes(dir / kDigestFile); recorded && *recorded == *digest + "\n") {
      step(ctx, "nothing the parse reads changed since the parse that wrote " + copy.manifest.string() +
                    " (dbt's partial-parse state is the same): its manifest stands, none written");
      if (auto noted = record_inputs(dir, check); !noted) return std::unexpected(report(ctx, noted.error()));
      return copy;
    }
  }
  if (auto removed = remove_digests(dir); !removed) return std::unexpected(report(ctx, removed.error()));
  if (auto written = session.write_kept_manifest(dir); !written) return std::unexpected(report(ctx, written.error()));
  if (digest) {
    if (auto recorded = record_digest(dir, *digest); !recorded) return std::unexpected(report(ctx, recorded.error()));
    if (auto recorded = record_inputs(dir, check); !recorded) return std::unexpected(report(ctx, recorded.error()));
  }
  return ParsedManifest{copy.manifest, false, false, declined};
}

}  // namespace ods::cli
