#pragma once
// The fixture of the chart's suites on the test control plane (helm_chart_test.cc,
// helm_platform_test.cc): helm (built like kubectl, scripts/kube-binaries.sh helm) and a real
// kube-apiserver, started once per suite by start(); each test fails with start_error_ when
// either is missing. Not thread-safe (one suite at a time, as gtest runs them).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/kube_control_plane.h"

namespace ods::testing {

// A process's exit code, stdout and stderr, for a failing assertion's message.
inline std::string describe(const ProcessResult& r) {
  return "exit code " + std::to_string(r.exit_code) + "\nstdout:\n" + r.output + "\nstderr:\n" + r.errors;
}

// helm/ods in the source tree.
inline std::filesystem::path chart_dir() { return source_dir() / "helm" / "ods"; }

class HelmFixture : public ::testing::Test {
 protected:
  // Finds helm, starts the control plane and creates `namespaces`; true when all of it worked,
  // else false with start_error_ saying what failed.
  static bool start(const std::vector<std::string>& namespaces) {
    auto found = helm_binary();
    if (!found) {
      start_error_ = found.error();
      return false;
    }
    helm_ = *found;
    auto started = KubeControlPlane::start();
    if (!started) {
      start_error_ = started.error();
      return false;
    }
    plane_ = std::move(*started);
    for (const std::string& ns : namespaces) {
      ProcessResult created = kubectl({"create", "namespace", ns});
      if (created.exit_code != 0) {
        start_error_ = "kubectl create namespace " + ns + ": " + describe(created);
        return false;
      }
    }
    return true;
  }
  static void TearDownTestSuite() {
    plane_.reset();
    start_error_.clear();
  }

  void SetUp() override { ASSERT_TRUE(plane_ && start_error_.empty()) << start_error_; }

  static ProcessResult kubectl(const std::vector<std::string>& args) { return plane_->kubectl(args); }

  // helm with its own cache and config under the test's directory (nothing in $HOME).
  static ProcessResult helm(std::vector<std::string> args) {
    args.insert(args.begin(), helm_.string());
    const std::filesystem::path home =
        plane_ ? plane_->dir() / "helm-home" : std::filesystem::temp_directory_path() / "ods-helm-home";
    return run_process(
        args, source_dir(),
        {"HELM_CACHE_HOME=" + (home / "cache").string(), "HELM_CONFIG_HOME=" + (home / "config").string(),
         "HELM_DATA_HOME=" + (home / "data").string()});
  }

  static inline std::unique_ptr<KubeControlPlane> plane_;
  static inline std::string start_error_;
  static inline std::filesystem::path helm_;
};

}  // namespace ods::testing
