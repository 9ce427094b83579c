#include "harness/logging_dbt_venv.h"

#include <fstream>
#include <string>

#include "harness/dbt_project.h"

namespace ods::testing {

namespace fs = std::filesystem;

LoggingDbtVenv::LoggingDbtVenv(const fs::path& dir) : dir_(dir), venv_(dir / "venv") {
  fs::create_directories(venv_ / "bin");
  const fs::path real = venv_bin();
  {
    std::ofstream py(venv_ / "bin/python");
    py << "#!/bin/sh\necho start >> " << starts().string() << "\nif [ -e " << broken().string()
       << " ]; then exit 97; fi\nexec " << (real / "python").string() << " \"$@\"\n";
  }
  fs::permissions(venv_ / "bin/python", fs::perms::owner_all, fs::perm_options::add);
  std::ifstream in(real / "dbt");
  std::string first, rest, line;
  std::getline(in, first);
  while (std::getline(in, line)) rest += line + "\n";
  std::ofstream(venv_ / "bin/dbt") << "#!" << (venv_ / "bin/python").string() << "\n" << rest;
  fs::permissions(venv_ / "bin/dbt", fs::perms::owner_all, fs::perm_options::add);
  fs::create_directory_symlink(fs::canonical(real.parent_path() / "lib"), venv_ / "lib");
}

LoggingDbtVenv::~LoggingDbtVenv() {
  std::error_code ec;
  fs::remove_all(venv_, ec);
  fs::remove(starts(), ec);
  fs::remove(broken(), ec);
}

}  // namespace ods::testing
