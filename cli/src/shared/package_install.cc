#include "package_install.h"

#include <filesystem>

#include "child_environment.h"
#include "dbt_steps.h"
#include "exit_codes.h"
#include "ods/dbt/cli/dbt_binary.h"
#include "ods/dbt/cli/dbt_driver.h"
#include "packages_cache.h"

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

int run_dbt_deps(const CommandContext& ctx, DbtSession& dbt, const std::string& declared, const std::string& why) {
  step(ctx, "installing the packages " + declared + " names (dbt deps" + why + ")");
  auto deps = dbt.run({"deps"});
  if (!deps) return report(ctx, deps.error());
  if (deps->interrupted) return report(ctx, {"interrupted", "interrupted while installing packages; nothing recorded"});
  if (deps->exit_code != 0) return report_dbt_failure(ctx, "dbt deps", *deps);
  return kExitOk;
}

void cache_warning(const CommandContext& ctx, const fs::path& root, const std::string& what) {
  *ctx.err << "ods: warning: the packages cache " << root.string() << ": " << what << "\n";
}

}  // namespace

std::optional<std::string> dbt_core_version(const CommandContext& ctx, const dbt::DbtInvocationOptions& options) {
  auto binary = dbt::resolve_dbt_binary(options.dbt.string(), ctx.env.getenv);
  if (!binary) return std::nullopt;
  const auto python = dbt::console_script_python(*binary);
  if (!python) return std::nullopt;
  process::ProcessSpec spec;
  spec.argv = {python->string(), "-c", "import importlib.metadata as m; print(m.version('dbt-core'))"};
  std::string version;
  spec.on_line = [&version](process::Stream stream, std::string_view line) {
    if (stream == process::Stream::standard_output && version.empty()) version = line;
  };
  auto started = make_child_launcher()->start(std::move(spec));
  if (!started) return std::nullopt;
  auto ended = (*started)->wait();
  if (!ended || ended->exit_code != 0 || version.empty() ||
      version.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz.+-") != std::string::npos)
    return std::nullopt;
  return version;
}

int install_packages(const CommandContext& ctx, DbtSession& dbt, const fs::path& cache_root,
                     const dbt::DbtInvocationOptions& options) {
  std::string declared;
  for (const char* file : {"packages.yml", "dependencies.yml"})
    if (declared.empty() && fs::exists(ctx.project_dir / file)) declared = file;
  if (declared.empty()) return kExitOk;
  std::error_code ec;
  const fs::path installed = ctx.project_dir / "dbt_packages";
  if (fs::is_directory(installed, ec) && !fs::is_empty(installed, ec)) return kExitOk;
  if (cache_root.empty()) return run_dbt_deps(ctx, dbt, declared, "");

  const auto version = dbt_core_version(ctx, options);
  if (!version) {
    step(ctx, "packages not cached: the dbt version is unknown (dbt is not dbt-core's console script)");
    return run_dbt_deps(ctx, dbt, declared, "");
  }
  auto key = packages_cache_key(ctx.project_dir, declared, *version);
  if (!key) {
    cache_warning(ctx, cache_root, key.error().message);
    return run_dbt_deps(ctx, dbt, declared, "");
  }
  auto restored = restore_packages(cache_root, *key, installed);
  if (!restored) {
    cache_warning(ctx, cache_root, restored.error().message + "; installing without it");
  } else if (restored->outcome == RestoreOutcome::restored) {
    step(ctx, "packages restored from cache " + *key + " (" + declared + ", dbt " + *version + "; dbt deps not run)");
    return kExitOk;
  } else if (restored->outcome == RestoreOutcome::damaged) {
    cache_warning(ctx, cache_root, "entry " + *key + " is damaged (" + restored->why + "); installing again");
  }
  if (int code = run_dbt_deps(ctx, dbt, declared, "; not in the cache: " + *key); code != kExitOk) return code;
  auto saved = save_packages(cache_root, *key, installed);
  if (!saved)
    cache_warning(ctx, cache_root, saved.error().message + "; the packages are installed, not cached");
  else if (saved->outcome == SaveOutcome::saved)
    step(ctx, "packages saved to cache " + *key);
  else if (saved->outcome == SaveOutcome::already_saved)
    step(ctx, "packages already in cache " + *key + " (saved by another run meanwhile)");
  else
    step(ctx, "packages not cached: " + saved->why);
  return kExitOk;
}

}  // namespace ods::cli
