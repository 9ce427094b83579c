// The release archive (scripts/dist.sh, `make dist`) made from the built ods: named after the
// project version, its checksum file in sha256sum format, and once unpacked anywhere it runs
// with a bare environment, every library resolving from the bundle or the system's glibc and
// C++ runtime.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "harness/dbt_project.h"
#include "harness/temp_dir.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

std::string project_version() {
  std::ifstream in(source_dir() / "CMakeLists.txt");
  const std::regex project(R"(^project\(ods VERSION ([0-9][0-9.]*))");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, project)) return m[1];
  }
  return "";
}

// glibc and the GCC C++ runtime: what the archive leaves to the system.
bool is_system_library(const std::string& soname) {
  static const std::regex system(
      R"(^(linux-vdso|ld-linux-x86-64|libc|libm|libpthread|libdl|librt|libresolv|libutil|libanl|libstdc\+\+|libgcc_s)\.so.*)");
  return std::regex_match(soname, system);
}

class DistArchive : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out_ = new TempDir("dist");
    made_ = new ProcessResult(run_process({(source_dir() / "scripts" / "dist.sh").string(), "--binary",
                                           ods_binary().string(), "--out", out_->file("out")},
                                          source_dir()));
  }
  static void TearDownTestSuite() {
    delete made_;
    delete out_;
  }
  void SetUp() override { ASSERT_EQ(made_->exit_code, 0) << made_->output << made_->errors; }

  static std::string name() { return "ods-" + project_version() + "-linux-x86_64"; }
  static fs::path archive() { return fs::path(out_->file("out")) / (name() + ".tar.gz"); }

  // The archive unpacked into a fresh directory; returns its top directory.
  fs::path unpack(const TempDir& into) const {
    ProcessResult r = run_process({"tar", "-xzf", archive().string(), "-C", into.path().string()}, into.path());
    EXPECT_EQ(r.exit_code, 0) << r.errors;
    return into.path() / name();
  }

  static TempDir* out_;
  static ProcessResult* made_;
};

TempDir* DistArchive::out_ = nullptr;
ProcessResult* DistArchive::made_ = nullptr;

TEST_F(DistArchive, IsNamedAfterTheProjectVersionWithASha256File) {
  ASSERT_FALSE(project_version().empty());
  ASSERT_TRUE(fs::exists(archive())) << made_->output;
  const std::string sums = read_text_file(archive().string() + ".sha256");
  EXPECT_TRUE(std::regex_match(
      sums, std::regex("[0-9a-f]{64}  " + std::regex_replace(name(), std::regex(R"(\.)"), R"(\.)") + "\\.tar\\.gz\n")))
      << sums;
  ProcessResult check = run_process({"sha256sum", "--check", "--strict", name() + ".tar.gz.sha256"}, out_->file("out"));
  EXPECT_EQ(check.exit_code, 0) << check.output << check.errors;
  // A damaged archive fails the same check.
  TempDir copy("dist-bad");
  fs::copy_file(archive(), copy.path() / archive().filename());
  fs::copy_file(archive().string() + ".sha256", copy.file(name() + ".tar.gz.sha256"));
  std::fstream(copy.path() / archive().filename(), std::ios::in | std::ios::out | std::ios::binary).seekp(100).put('x');
  EXPECT_NE(run_process({"sha256sum", "--check", "--strict", name() + ".tar.gz.sha256"}, copy.path()).exit_code, 0);
}

TEST_F(DistArchive, RunsWithABareEnvironmentFromAnywhere) {
  TempDir into("dist-unpacked");
  const fs::path top = unpack(into);
  for (const char* file :
       {"bin/ods", "LIBRARIES.txt", "README.txt", "share/ods/ci/ods_ci.py", "share/ods/ci/review_comment.py"})
    EXPECT_TRUE(fs::exists(top / file)) << file;
  ProcessResult version =
      run_process({"/usr/bin/env", "-i", "LD_LIBRARY_PATH=", (top / "bin" / "ods").string(), "--version"}, into.path());
  EXPECT_EQ(version.exit_code, 0) << version.errors;
  EXPECT_EQ(version.output, "ods " + project_version() + "\n");
  ProcessResult help =
      run_process({"/usr/bin/env", "-i", (top / "bin" / "ods").string(), "state", "plan", "--help"}, into.path());
  EXPECT_EQ(help.exit_code, 0) << help.errors;
  EXPECT_NE(help.output.find("--summary"), std::string::npos) << help.output;
}

TEST_F(DistArchive, EveryLibraryResolvesFromTheBundleOrGlibc) {
  TempDir into("dist-ldd");
  const fs::path top = unpack(into);
  const fs::path lib = fs::canonical(top / "lib");
  std::set<std::string> bundled;
  for (const auto& f : fs::directory_iterator(lib)) bundled.insert(f.path().filename().string());
  EXPECT_FALSE(bundled.empty()) << "ods links libraries beyond glibc (libpq, libsqlite3, …)";
  const std::string listed = read_text_file(top / "LIBRARIES.txt");
  std::vector<fs::path> files{top / "bin" / "ods"};
  for (const auto& name : bundled) {
    files.push_back(lib / name);
    EXPECT_NE(listed.find("lib/" + name + "  from "), std::string::npos) << name << " missing in LIBRARIES.txt";
  }
  const std::regex line(R"(^\s*(\S+) => (\S+)( \(0x[0-9a-f]+\))?$)");
  for (const auto& file : files) {
    ProcessResult ldd = run_process({"/usr/bin/env", "-i", "LD_LIBRARY_PATH=", "ldd", file.string()}, into.path());
    ASSERT_EQ(ldd.exit_code, 0) << file << ldd.errors;
    EXPECT_EQ(ldd.output.find("not found"), std::string::npos) << file << ":\n" << ldd.output;
    std::istringstream lines(ldd.output);
    for (std::string text; std::getline(lines, text);) {
      std::smatch m;
      if (!std::regex_match(text, m, line)) continue;
      const std::string soname = m[1], path = m[2];
      if (is_system_library(soname)) {
        EXPECT_FALSE(bundled.contains(soname)) << soname << " is the system's, not bundled";
      } else {
        EXPECT_EQ(fs::canonical(path).parent_path(), lib) << file << " resolves " << soname << " from " << path;
      }
    }
  }
  EXPECT_NE(listed.find("The system must provide glibc >= 2."), std::string::npos) << listed;
}

}  // namespace
}  // namespace ods::testing
