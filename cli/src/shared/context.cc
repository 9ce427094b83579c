#include "context.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <string_view>

#include "child_environment.h"
#include "flag_names.h"
#include "ods/dbt/target_choice.h"
#include "ods/state/stores.h"

namespace ods::cli {

namespace fs = std::filesystem;

Environment process_environment() {
  // ODS's secrets leave this process's environment block (child_environment.h): kept here, for
  // ODS alone, and overwritten where /proc/<pid>/environ shows them.
  auto kept = std::make_shared<std::map<std::string, std::string>>();
  for (const std::string& name : secret_variables()) {
    char* value = std::getenv(name.c_str());
    if (value == nullptr) continue;
    (*kept)[name] = value;
    std::memset(value, 0, std::strlen(value));
    ::unsetenv(name.c_str());
  }
  Environment env;
  env.getenv = [kept](const std::string& name) {
    if (const auto it = kept->find(name); it != kept->end()) return it->second;
    const char* v = std::getenv(name.c_str());
    return std::string(v ? v : "");
  };
  env.is_set = [kept](const std::string& name) { return kept->contains(name) || std::getenv(name.c_str()) != nullptr; };
  return env;
}

void hide_secret_arguments(int argc, char** argv) {
  static constexpr std::string_view kUrlFlags[] = {kFlagState, kFlagFrom, kFlagTo};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    for (const std::string_view flag : kUrlFlags) {
      if (arg == flag && i + 1 < argc) {
        std::memset(argv[i + 1], 0, std::strlen(argv[i + 1]));
      } else if (arg.size() > flag.size() && arg.starts_with(flag) && arg[flag.size()] == '=') {
        std::memset(argv[i] + flag.size() + 1, 0, arg.size() - flag.size() - 1);
      }
    }
  }
}

std::vector<FlagSpec> common_flags() {
  return {
      {kFlagProjectDir, true, "the dbt project (default: .)"},
      {kFlagTargetPath, true, "where dbt wrote its artifacts (default: <project-dir>/target)"},
      {kFlagTarget, true, "the dbt target; names the state scope's environment"},
      {kFlagState, true, "state store URL (default: $ODS_STATE or sqlite:<project-dir>/.ods/state.db)"},
      {kFlagFormat, true, "text (default), json, or markdown (plan, run, test)"},
      {kFlagReadOnlyState, false,
       "only read the state, with a credential that cannot write (PostgreSQL: refused when its role can; for a "
       "pull request's plan)"},
  };
}

Result<CommandContext> make_context(const ParsedArgs& args, std::ostream& out, std::ostream& err, Environment env) {
  CommandContext ctx;
  ctx.out = &out;
  ctx.err = &err;
  ctx.env = std::move(env);
  ctx.project_dir = args.get(kFlagProjectDir, ".");
  std::error_code ec;
  if (!fs::is_directory(ctx.project_dir, ec))
    return fail("usage", "--project-dir " + ctx.project_dir.string() + ": no such directory");
  ctx.target_dir = args.has(kFlagTargetPath) ? fs::path(args.get(kFlagTargetPath)) : ctx.project_dir / "target";
  if (ctx.target_dir.is_relative() && args.has(kFlagTargetPath)) ctx.target_dir = ctx.project_dir / ctx.target_dir;
  ctx.target = args.get(kFlagTarget);
  ctx.format = args.get(kFlagFormat, "text");
  if (ctx.format != "text" && ctx.format != "json" && ctx.format != "markdown")
    return fail("usage", "--format must be text, json or markdown, not '" + ctx.format + "'");
  ctx.summary_file = args.get(kFlagSummary);
  ctx.json_file = args.get(kFlagJsonFile);
  for (const auto& [flag, file] :
       {std::pair{kFlagSummary, ctx.summary_file}, std::pair{kFlagJsonFile, ctx.json_file}}) {
    if (file.empty()) continue;
    const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (fs::is_directory(file, ec) || !fs::is_directory(parent, ec))
      return fail("usage", std::string(flag) + " " + file.string() + ": not a file in an existing directory");
  }
  ctx.read_only_state = args.has(kFlagReadOnlyState);
  if (args.has(kFlagState)) {
    ctx.state_url = args.get(kFlagState);
  } else if (std::string v = ctx.env.getenv("ODS_STATE"); !v.empty()) {
    ctx.state_url = v;
  } else {
    ctx.state_url = "sqlite:" + (ctx.project_dir / ".ods" / "state.db").string();
  }
  return ctx;
}

namespace {

// $ODS_STATE_RETENTION: how many snapshots and ledger entries each scope keeps (0 or unset: all).
Result<std::size_t> retention_setting(const CommandContext& ctx) {
  const std::string text = ctx.env.getenv("ODS_STATE_RETENTION");
  if (text.empty()) return std::size_t{0};
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    return fail("usage",
                "ODS_STATE_RETENTION must be a number of snapshots to keep per scope (0: all), not '" + text + "'");
  return value;
}

}  // namespace

Result<void> resolve_target(const ParsedArgs& args, CommandContext& ctx) {
  const auto getenv = [&ctx](const std::string& name) { return ctx.env.getenv ? ctx.env.getenv(name) : std::string(); };
  auto choice = dbt::choose_target(ctx.project_dir, ctx.target, args.get(kFlagProfilesDir), getenv);
  if (!choice) return std::unexpected(choice.error());
  if (ctx.target.empty()) {
    ctx.target = choice->name;
    if (!choice->name.empty()) ctx.target_how = choice->how;
  }
  ctx.profile_default = choice->profile_default;
  return {};
}

Result<std::unique_ptr<contracts::StateStore>> open_store(const CommandContext& ctx, bool create, bool read_only) {
  return open_store_at(ctx, ctx.state_url, create, read_only);
}

Result<std::unique_ptr<contracts::StateStore>> open_store_at(const CommandContext& ctx, const std::string& url,
                                                             bool create, bool read_only) {
  if (ctx.read_only_state && create)
    return fail("usage",
                std::string(kFlagReadOnlyState) +
                    " is for commands that only read the state (plan, explain, diff, history, doctor, grants, run "
                    "--dry-run, test --dry-run); this one records");
  state::OpenOptions options;
  options.read_only = read_only || ctx.read_only_state;
  options.create_if_missing = create && !options.read_only;
  options.refuse_writable_credential = ctx.read_only_state;
  if (auto retention = retention_setting(ctx); !retention) {
    return std::unexpected(retention.error());
  } else {
    options.retention = *retention;
  }
  std::ostream* err = ctx.err;
  options.on_notice = [err](const std::string& notice) { *err << "ods: " << notice << "\n"; };
  auto store = state::open_state_store(url, *ctx.env.clock, options);
  if (!store) {
    Error e = store.error();
    e.message = "state store " + redact_url(url) + ": " + e.message;
    return std::unexpected(e);
  }
  return store;
}

std::string redact_url(const std::string& url) { return state::redact_state_url(url); }

Result<bool> on_off_setting(const CommandContext& ctx, const std::string& name, const std::string& must_be) {
  const std::string value = ctx.env.getenv(name);
  if (value.empty() || value == "on") return true;
  if (value == "off") return false;
  return fail("usage", name + " is '" + value + "': it must be " + must_be + ".");
}

}  // namespace ods::cli
