#pragma once
// A folder of installed dbt packages (a project's dbt_packages/), kept by the digest of what
// decides the install, so a runner pod whose project's packages were installed before restores
// them instead of running `dbt deps` (`ods pod --packages-cache DIR`, $ODS_PACKAGES_CACHE;
// docs/kubernetes.md, "A packages cache").
//
// Layout: <root>/<key>/entry.json (every file's relative path, size and SHA-256, every folder)
// and <root>/<key>/dbt_packages/. An entry is made in a temporary folder in <root> and renamed
// into place once complete, so a reader sees a whole entry or none; two pods saving the same key
// at once both succeed and one entry stays. A restore checks every file against entry.json as it
// copies it; an entry that does not match (damaged, partly deleted, edited) is reported as such
// and never restored. Nothing here runs dbt; the caller (install_packages) decides what to run.
#include <filesystem>
#include <string>
#include <string_view>

#include "ods/base/result.h"

namespace ods::cli {

// The key of a project's packages: SHA-256 (hex) over a scheme line, `dbt_version`, and the name
// and bytes of `declared` (packages.yml or dependencies.yml) and of package-lock.yml when the
// project has one. Errors: "io" when a file cannot be read.
[[nodiscard]] Result<std::string> packages_cache_key(const std::filesystem::path& project_dir,
                                                     const std::string& declared, const std::string& dbt_version);

// What an entry holds, as its list names it: the scheme written in entry.json, the folder the
// files live in, and whether a save replaces a whole entry already under its key (a slot that
// each save updates) rather than keeping it (content under its own key: the packages).
struct CacheEntryKind {
  std::string_view scheme;
  std::string_view folder;
  bool replace_whole = false;
};
inline constexpr CacheEntryKind kPackagesEntry{"ods-packages/1", "dbt_packages", false};

enum class RestoreOutcome {
  restored,  // `packages_dir` now holds the entry's files
  absent,    // no entry under this key
  damaged,   // an entry that is not whole or does not match its list; `why` says what
};
struct PackagesRestore {
  RestoreOutcome outcome = RestoreOutcome::absent;
  std::string why;  // for damaged: the first mismatch found (a path and what differs)
};

// Copies entry `key` of `root` into `packages_dir` (which must be absent or an empty folder),
// checking each file's size and SHA-256 on the way: the files appear at `packages_dir` by one
// rename once all matched, so a damaged entry leaves `packages_dir` as it was. Marks the entry
// used (its folder's modification time). Errors ("io"): the copy failed for a reason of this
// side (no space, `packages_dir` not writable); the caller installs without the cache.
[[nodiscard]] Result<PackagesRestore> restore_packages(const std::filesystem::path& root, const std::string& key,
                                                       const std::filesystem::path& packages_dir,
                                                       const CacheEntryKind& kind = kPackagesEntry);

enum class SaveOutcome {
  saved,          // this call made the entry
  already_saved,  // a whole entry was there (another pod saved it first)
  not_cacheable,  // `why` says why (a link in the packages: a local package lives in the project)
};
struct PackagesSave {
  SaveOutcome outcome = SaveOutcome::saved;
  std::string why;
};

// Saves `packages_dir` as entry `key` of `root` (created when missing): copied into a temporary
// folder in `root`, listed, then renamed into place; a damaged entry already under `key` is
// replaced. Temporary folders older than a day (left by a pod that died mid-save) are removed.
// Errors ("io"): `root` not writable, no space; the temporary folder is removed.
// With kind.replace_whole, a whole entry under `key` is replaced too (never already_saved); a
// reader between the two renames finds no entry.
[[nodiscard]] Result<PackagesSave> save_packages(const std::filesystem::path& root, const std::string& key,
                                                 const std::filesystem::path& packages_dir,
                                                 const CacheEntryKind& kind = kPackagesEntry);

}  // namespace ods::cli
