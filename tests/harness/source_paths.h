#pragma once
// Where a test finds the source tree and the built binaries.
//
// Each is read at run time: $ODS_TEST_SOURCE_DIR / $ODS_TEST_BIN_DIR when set (non-empty), else
// the paths this build tree was configured with, compiled into source_paths.cc alone (its
// ODS_CONFIGURED_* definitions). No other test object carries a clone's path, so ccache gives a
// clean clone the objects another clone compiled (docs/hardening.md, "ccache across clones").
#include <filesystem>

namespace ods::testing {

// The clone's root (the folder with the top CMakeLists.txt).
std::filesystem::path source_dir();
// The build tree's bin/ (ods, ods-operator); tests/ beside it holds the test binaries.
std::filesystem::path bin_dir();

}  // namespace ods::testing
