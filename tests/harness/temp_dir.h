#pragma once
// Test-only: fresh directories under $TMPDIR/ods-tests, for every suite and test helper.
// Header-only, so a component's tests use it with the include path <source>/tests alone.
#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace ods::testing {

// A new, empty directory $TMPDIR/ods-tests/<prefix><random number>: never one that existed.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  namespace fs = std::filesystem;
  const fs::path base = fs::temp_directory_path() / "ods-tests";
  fs::create_directories(base);
  std::random_device random;
  for (;;) {
    fs::path dir = base / (prefix + std::to_string(random()));
    if (fs::create_directory(dir)) return dir;
  }
}

// A fresh_test_dir removed with everything in it when the TempDir goes.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "t") : path_(fresh_test_dir(prefix)) {}
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The path of `name` in the directory, as text.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace ods::testing
