#pragma once
// The control plane the operator/kube suites share in one test process (crd_test keeps its own):
// started on first use with the watch cache off for ConfigMaps (--watch-cache-sizes=configmaps#0),
// so a watch of ConfigMaps from a compacted resourceVersion really gets 410 Gone, and the CRDs of
// crds/ applied. Each test works in a namespace of its own.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "harness/kube_control_plane.h"
#include "ods/kube/client.h"
#include "ods/kube/config.h"
#include "ods/kube/rest_client.h"

namespace ods::testing {

using kube::Json;

class KubeClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  void SetUp() override;

  static KubeControlPlane& plane();
  // A client with the admin certificate (system:masters), through load_kubeconfig + make_client.
  static kube::Client& client();
  // A client for another kubeconfig; fails the test when it cannot be made.
  static std::unique_ptr<kube::Client> client_for(const std::filesystem::path& kubeconfig);
  // Creates a namespace "<prefix>-<n>" unique in this process and returns its name.
  static std::string make_namespace(const std::string& prefix);
  // An example resource of crds/examples/<file> as JSON, in `namespace_name`.
  static Json example(const std::string& file, const std::string& namespace_name);
  // etcd's current revision; compacts etcd's history up to it (older resourceVersions expire).
  static std::string compact_etcd();

  // Polls `done` every 50 ms until it is true or `limit` passes; returns done().
  static bool eventually(const std::function<bool()>& done, std::chrono::seconds limit = std::chrono::seconds(30));
};

inline const kube::Resource kConfigMaps{"", "v1", "configmaps"};
inline const kube::Resource kNamespaces{"", "v1", "namespaces", false};

// A ConfigMap named `name` with data {key: value} and labels.
Json config_map(const std::string& name, const std::string& value, const Json& labels = Json::object());

// The runner tests' resources: a DbtProject `name` reading `source` (e.g. {"image": {...}} or
// {"git": {...}}) with the runner image, the profile Secret shop-profile, target prod and
// `policies`; that profile Secret; a DbtRun `name` of project `project` with `spec_extra` merged.
Json runner_project(const std::string& name, const Json& source, const Json& policies);
Json runner_profile_secret();
Json runner_run(const std::string& name, const std::string& project, const Json& spec_extra = Json::object());
// Writes `script` as the executable shell file `dir`/ods (the runner the stand-in starts); its path.
std::string write_runner_script(const std::filesystem::path& dir, const std::string& script);

}  // namespace ods::testing
