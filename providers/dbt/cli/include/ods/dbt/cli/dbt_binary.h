#pragma once
// Which dbt executable ODS runs.
#include <filesystem>
#include <functional>
#include <string>

#include "ods/base/result.h"

namespace ods::dbt {

// Reads an environment variable; "" when it is unset.
using GetEnv = std::function<std::string(const std::string& name)>;

// The dbt to run, as an absolute path: `explicit_path` (from `--dbt PATH`) when not empty,
// else $ODS_DBT when set, else `dbt` on $PATH. A choice without a '/' is looked up on $PATH
// as a shell would; a relative path is taken from the current directory.
// Errors: "dbt_not_found" when the chosen file does not exist or no $PATH directory has it
// (the message names the choice, where it came from and every place tried);
// "permission_denied" when the chosen file exists but is not an executable file.
[[nodiscard]] Result<std::filesystem::path> resolve_dbt_binary(const std::string& explicit_path, const GetEnv& getenv);

}  // namespace ods::dbt
