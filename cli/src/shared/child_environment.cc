// What a process ODS starts may see of ODS's environment (see child_environment.h).
#include "child_environment.h"

#include <algorithm>

namespace ods::cli {

const std::vector<std::string>& secret_variables() {
  static const std::vector<std::string> kNames{"ODS_STATE", "ODS_DIGEST_KEY", "ODS_RUN_TOKEN_FILE",
                                               "ODS_GIT_CREDENTIALS_DIR"};
  return kNames;
}

namespace {

bool withheld(const std::string& name) {
  const auto& names = secret_variables();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Environment child_view(const Environment& env) {
  Environment view = env;
  view.getenv = [inner = env.getenv](const std::string& name) {
    return withheld(name) || !inner ? std::string() : inner(name);
  };
  if (env.is_set) {
    view.is_set = [inner = env.is_set](const std::string& name) { return !withheld(name) && inner(name); };
  }
  return view;
}

std::unique_ptr<process::ProcessLauncher> make_child_launcher() {
  return process::make_process_launcher(secret_variables());
}

}  // namespace ods::cli
