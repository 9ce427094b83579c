#pragma once
// The git source of a runner pod (DbtProject spec.source.git): the Job sets ODS_GIT_URL,
// ODS_GIT_REVISION, ODS_GIT_PATH and ODS_PROJECT_DIR (<checkout>/<path>); `ods pod` checks the
// revision out before compiling. A shallow fetch of exactly that revision (a branch, a tag or a
// commit), with the `git` on PATH run through the process launcher (ods/process/child_process.h); a private
// repository's credentials come from the Secret the Job mounts at ODS_GIT_CREDENTIALS_DIR (git_credentials.h).
#include <filesystem>
#include <string>

#include "ods/base/result.h"

namespace ods::cli {

struct GitSource {
  std::string url;
  std::string revision;                        // branch, tag or commit
  std::filesystem::path checkout;              // where the working tree goes (must not exist or be empty)
  std::filesystem::path credentials_dir = {};  // the mounted Secret's files; empty: none
  std::filesystem::path scratch = std::filesystem::temp_directory_path();  // for an SSH key's private copy
};

// Checks `source.revision` of `source.url` out into `source.checkout`, printing git's progress to
// `log`. Errors ("git_failed"): git missing, the repository or revision not reachable, the
// folder not empty; the message names the URL and revision and quotes git's error.
[[nodiscard]] Result<void> checkout_git_source(const GitSource& source, std::ostream& log);

// The checkout folder for ODS_PROJECT_DIR = <checkout>/<ODS_GIT_PATH>.
std::filesystem::path checkout_of(const std::filesystem::path& project_dir, const std::string& git_path);

}  // namespace ods::cli
