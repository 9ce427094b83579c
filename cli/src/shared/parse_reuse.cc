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

constexpr const char* kDigestFile = "partial_parse.msgpack.sha256";

// `dbt <args>` through `session`; the exit code after reporting when it did not succeed.
int run_parse(const CommandContext& ctx, DbtSession& session, const std::vector<std::string>& args) {
  auto parsed = session.run(args);
  if (!parsed) return report(ctx, parsed.error());
  if (parsed->interrupted) return report(ctx, {"interrupted", "interrupted while parsing; nothing recorded"});
  if (parsed->exit_code != 0) return report_dbt_failure(ctx, "dbt parse", *parsed);
  return kExitOk;
}

// Writes `digest` as the copy's, atomically (a temporary file renamed over it).
Result<void> record_digest(const fs::path& dir, const std::string& digest) {
  const fs::path tmp = dir / (std::string(kDigestFile) + ".tmp");
  ODS_TRY_VOID(
      write_bytes(tmp, digest + "\n",
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read));
  std::error_code ec;
  fs::rename(tmp, dir / kDigestFile, ec);
  if (ec) return fail("io", "Cannot rename " + tmp.string() + " to " + kDigestFile + ": " + ec.message() + ".");
  return {};
}

}  // namespace

fs::path parse_copy_dir(const CommandContext& ctx) { return ctx.target_dir / "ods-parse"; }

std::expected<ParsedManifest, int> parse_project(const CommandContext& ctx, DbtSession& session,
                                                 const std::vector<std::string>& target_path) {
  step(ctx, "parsing the project (dbt parse)");
  std::vector<std::string> plain{"parse"};
  plain.insert(plain.end(), target_path.begin(), target_path.end());
  if (!session.runs_in_driver()) {
    if (int code = run_parse(ctx, session, plain); code != kExitOk) return std::unexpected(code);
    return ParsedManifest{ctx.target_dir / "manifest.json", false};
  }
  // dbt joins a relative --target-path to the project's folder, and the driver's process runs in it.
  const fs::path target_dir = fs::absolute(ctx.target_dir).lexically_normal();
  if (int code = run_parse(ctx, session, {"parse", "--no-write-json", kFlagTargetPath, target_dir.string()});
      code != kExitOk)
    return std::unexpected(code);
  if (!session.one_parse()) {  // the driver declined on its first command: that parse wrote nothing
    if (int code = run_parse(ctx, session, plain); code != kExitOk) return std::unexpected(code);
    return ParsedManifest{ctx.target_dir / "manifest.json", false};
  }

  const fs::path dir = fs::absolute(parse_copy_dir(ctx)).lexically_normal();
  const ParsedManifest copy{dir / "manifest.json", true};
  std::optional<std::string> digest;
  if (auto state = read_bytes(target_dir / "partial_parse.msgpack");
      state && ctx.env.getenv("DBT_PARTIAL_PARSE_FILE_PATH").empty())
    digest = sha256_hex(*state);
  if (digest && fs::exists(copy.manifest)) {
    if (auto recorded = read_bytes(dir / kDigestFile); recorded && *recorded == *digest + "\n") {
      step(ctx, "nothing the parse reads changed since the parse that wrote " + copy.manifest.string() +
                    " (dbt's partial-parse state is the same): its manifest stands, none written");
      return copy;
    }
  }
  std::error_code ec;
  fs::remove(dir / kDigestFile, ec);
  if (ec)
    return std::unexpected(
        report(ctx, {"io", "Cannot remove " + (dir / kDigestFile).string() + ": " + ec.message() + "."}));
  if (auto written = session.write_kept_manifest(dir); !written) return std::unexpected(report(ctx, written.error()));
  if (digest) {
    if (auto recorded = record_digest(dir, *digest); !recorded) return std::unexpected(report(ctx, recorded.error()));
  }
  return ParsedManifest{copy.manifest, false};
}

}  // namespace ods::cli
