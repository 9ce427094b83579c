#include "harness/source_paths.h"

#include <cstdlib>

namespace ods::testing {

namespace {

std::filesystem::path from_env_or(const char* name, const char* configured) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : configured;
}

}  // namespace

std::filesystem::path source_dir() { return from_env_or("ODS_TEST_SOURCE_DIR", ODS_CONFIGURED_SOURCE_DIR); }
std::filesystem::path bin_dir() { return from_env_or("ODS_TEST_BIN_DIR", ODS_CONFIGURED_BIN_DIR); }

}  // namespace ods::testing
