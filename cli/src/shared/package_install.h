#pragma once
// The packages a project declares, installed before `dbt compile` (`ods pod`: a fresh git
// checkout has none, and dbt compile refuses a project whose packages are missing), from the
// packages cache when one is given (packages_cache.h; docs/kubernetes.md, "A packages cache").
#include <filesystem>
#include <optional>
#include <string>

#include "context.h"
#include "dbt_session.h"
#include "ods/dbt/cli/dbt_invocation.h"

namespace ods::cli {

// dbt-core's version as the Python of `options.dbt` (resolved as the session does) reports it,
// when that dbt is dbt-core's console script (dbt::console_script_python); nullopt for any other
// dbt (a wrapper, a binary) or when Python does not answer. Runs Python once (tens of ms), with
// ODS's secrets withheld (make_child_launcher).
std::optional<std::string> dbt_core_version(const CommandContext& ctx, const dbt::DbtInvocationOptions& options);

// When the project declares packages (packages.yml or dependencies.yml in ctx.project_dir) and
// its packages folder (dbt_packages) is absent or empty: with `cache_root` empty, `dbt deps` with
// a step line. With a cache, its key is packages_cache_key over the declaring file, package-lock.yml
// and dbt_core_version(`options`): an entry restores dbt_packages and dbt deps does not run ("packages
// restored from cache <key>"); no entry, or a damaged one (a warning says what is wrong with it), runs
// dbt deps and saves the result under the key ("packages saved to cache <key>"). A dbt whose version
// is unknown, packages that hold a link (a local package) or a cache that fails (not writable, no
// space) leave the cache aside with a line saying why: the cache never fails a run.
// A project without those files, or with its packages already installed (an image built with them:
// the image's files are read-only), is left alone. dbt deps runs through `dbt`, with ODS's secrets
// withheld as every dbt call. kExitOk, or the exit code after the reason was printed (kExitFailed:
// dbt deps failed, naming its error, or could not start).
int install_packages(const CommandContext& ctx, DbtSession& dbt, const std::filesystem::path& cache_root,
                     const dbt::DbtInvocationOptions& options);

}  // namespace ods::cli
