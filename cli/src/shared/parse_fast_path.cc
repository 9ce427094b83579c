#include "parse_fast_path.h"

#include <unistd.h>

#include <cstdio>
#include <set>
#include <string_view>

#include "file_bytes.h"
#include "flag_names.h"
#include "ods/base/sha256.h"
#include "ods/dbt/cli/dbt_binary.h"
#include "ods/dbt/cli/dbt_driver.h"
#include "ods/dbt/target_choice.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): the names of DBT_* variables set

namespace ods::cli {

namespace fs = std::filesystem;

namespace {

// The names of the variables in this process's environment (their values are read through the
// command's environment, never here).
std::set<std::string> set_variable_names() {
  std::set<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    out.emplace(entry.substr(0, entry.find('=')));
  }
  return out;
}

ParseInputsCheck declined(std::string why) { return ParseInputsCheck{std::nullopt, std::move(why)}; }

class ParseFirstSession final : public DbtSession {
 public:
  ParseFirstSession(std::unique_ptr<DbtSession> inner, const CommandContext& ctx)
      : inner_(std::move(inner)), ctx_(ctx) {}

  ods::Result<dbt::DbtCommandResult> run(const std::vector<std::string>& args) override {
    ODS_TRY_VOID(parse_first(args));
    return inner_->run(args);
  }
  ods::Result<dbt::DbtCommandResult> run_with_progress(const std::vector<std::string>& args,
                                                       const std::string& what) override {
    ODS_TRY_VOID(parse_first(args));
    return inner_->run_with_progress(args, what);
  }
  std::vector<std::string> shared_flags() const override { return inner_->shared_flags(); }
  // Asked before the command it is about (a build writes no manifest on the plan's parse): the
  // driver parses first, so that the answer is the session's as that command will find it.
  bool one_parse() const override {
    (void)parse_first({});
    return inner_->one_parse();
  }
  bool runs_in_driver() override { return inner_->runs_in_driver(); }
  bool may_hold_warehouse() const override { return inner_->may_hold_warehouse(); }
  ods::Result<void> write_kept_manifest(const fs::path& dir) override { return inner_->write_kept_manifest(dir); }
  ods::Result<void> write_compiled_nodes(const fs::path& file) override { return inner_->write_compiled_nodes(file); }
  std::unique_ptr<DbtSession> sibling() const override { return inner_->sibling(); }

 private:
  // The driver's parse before the first command, once; its outcome for every command after.
  ods::Result<void> parse_first(const std::vector<std::string>& args) const {
    if (checked_) return outcome_;
    checked_ = true;
    if (!args.empty() && args.front() == "parse") return outcome_;
    const fs::path target_dir = fs::absolute(ctx_.target_dir).lexically_normal();
    auto parsed = inner_->run({"parse", "--no-write-json", kFlagTargetPath, target_dir.string()});
    if (!parsed) return outcome_ = std::unexpected(parsed.error());
    if (parsed->interrupted || parsed->exit_code != 0)
      return outcome_ =
                 fail("dbt_failed", "dbt parse failed before the run's first dbt command: " + parsed->error_text);
    if (!inner_->one_parse()) return outcome_;  // each command parses itself: what it built is read back
    auto state = read_bytes(target_dir / "partial_parse.msgpack");
    auto recorded = read_bytes(target_dir / "ods-parse" / "partial_parse.msgpack.sha256");
    if (state && recorded && *recorded == sha256_hex(*state) + "\n") return outcome_;
    return outcome_ = fail("conflict",
                           "A file or variable dbt's parse reads changed while ods ran (after the kept parse was "
                           "found standing): nothing of this run is recorded; run it again.");
  }

  std::unique_ptr<DbtSession> inner_;
  const CommandContext& ctx_;
  mutable bool checked_ = false;  // parse_first ran (it runs once, from whichever call comes first)
  mutable ods::Result<void> outcome_;
};

}  // namespace

Result<ParseFastPathSetting> parse_fast_path_setting(const ParsedArgs& args, const CommandContext& ctx) {
  ParseFastPathSetting out;
  ODS_TRY(out.enabled, on_off_setting(ctx, "ODS_PARSE_FAST_PATH",
                                      "'on' (the default: no dbt parse when nothing it reads changed) or 'off' (dbt "
                                      "parses every run)"));
  out.profiles_dir = args.get(kFlagProfilesDir);
  out.dbt = args.has(kFlagDbt) ? args.get(kFlagDbt) : ctx.env.getenv("ODS_DBT");
  return out;
}

ParseInputsCheck check_parse_inputs(const CommandContext& ctx, DbtSession& session, const ParseFastPathSetting& setting,
                                    const std::vector<std::string>& parse_arguments) {
  if (!setting.enabled) return declined(setting.why_disabled);
  if (!session.runs_in_driver()) return declined("dbt does not run in the ods dbt driver");
  auto binary = dbt::resolve_dbt_binary(setting.dbt, ctx.env.getenv);
  if (!binary) return declined("dbt was not found");
  auto python = dbt::console_script_python(*binary);
  if (!python) return declined("dbt is not dbt-core's console script");
  auto choice = dbt::choose_target(ctx.project_dir, ctx.target, setting.profiles_dir, ctx.env.getenv);
  if (!choice) return declined("the target is not known before dbt runs");
  dbt::ParseInputsQuery query;
  query.project_dir = fs::absolute(ctx.project_dir).lexically_normal();
  query.profiles_file = choice->profiles_file.empty() ? fs::path() : fs::absolute(choice->profiles_file);
  query.profile = choice->profile;
  query.target = choice->name;
  query.arguments = parse_arguments;
  for (const auto& flag : session.shared_flags()) query.arguments.push_back(flag);
  if (!setting.profiles_dir.empty())
    query.arguments.insert(query.arguments.end(), {kFlagProfilesDir, setting.profiles_dir});
  query.arguments.push_back("dbt " + binary->string());
  query.python = *python;
  query.skipped = {fs::absolute(ctx.target_dir).lexically_normal()};
  query.set_variable_names = set_variable_names();
  query.getenv = ctx.env.getenv;
  auto digest = dbt::digest_parse_inputs(query);
  if (!digest) return declined(digest.error());
  return ParseInputsCheck{std::move(*digest), ""};
}

bool parse_inputs_unchanged(const ParseInputsCheck& check, const fs::path& copy_dir) {
  if (!check.inputs) return false;
  auto recorded = read_bytes(copy_dir / kParseInputsDigestFile);
  return recorded && *recorded == check.inputs->digest + "\n";
}

std::unique_ptr<DbtSession> parse_before_first_command(std::unique_ptr<DbtSession> inner, const CommandContext& ctx) {
  return std::make_unique<ParseFirstSession>(std::move(inner), ctx);
}

std::string fast_path_line(const dbt::ParseInputsDigest& inputs) {
  return "nothing dbt's parse reads changed (" + std::to_string(inputs.files) + " files, " +
         std::to_string(inputs.variables) + " variables, dbt " + inputs.dbt_version +
         "): the kept parse stands, dbt not started";
}

}  // namespace ods::cli
