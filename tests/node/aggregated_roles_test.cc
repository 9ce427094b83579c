// The chart's ods-view and ods-edit ClusterRoles aggregated into Kubernetes' built-in `view` and
// `edit` by kube-controller-manager's clusterrole-aggregation controller, on the real node
// (node_world.h) with the chart installed: three ServiceAccounts of a team's namespace, each
// authenticating with its own token (no admin certificate, no impersonation) —
//   - one bound to `edit` in the namespace creates a DbtProject and a DbtRun and reads DbtRuns;
//   - one bound to `view` reads DbtProjects and DbtRuns but may not create either;
//   - one with no binding may not even read them.
// Shard `node`; runs as root, serially.
#include <gtest/gtest.h>

#include <fstream>

#include "node_world.h"

namespace ods::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kNamespace = "roles-team";

class AggregatedRoles : public InstalledOperatorTest {
 protected:
  std::filesystem::path account(const std::string& name) {
    auto kubeconfig = w().plane().service_account_kubeconfig(kNamespace, name);
    EXPECT_TRUE(kubeconfig) << kubeconfig.error();
    return kubeconfig ? *kubeconfig : std::filesystem::path{};
  }
  ProcessResult as(const std::filesystem::path& kubeconfig, std::vector<std::string> args) {
    args.insert(args.end(), {"-n", kNamespace});
    return w().plane().kubectl_as(kubeconfig, args);
  }
  ProcessResult apply_as(const std::filesystem::path& kubeconfig, const std::string& file, const std::string& yaml) {
    const std::filesystem::path path = w().dir() / file;
    std::ofstream(path, std::ios::trunc) << yaml;
    return as(kubeconfig, {"apply", "-f", path.string()});
  }
};

// A project that never runs (suspended): only who may write and read it is under test.
std::string suspended_project(NodeWorld& world, const std::string& name) {
  return shop_project(world, name, "  suspend: true\n");
}

std::string hand_made_run(const std::string& name, const std::string& project) {
  return "apiVersion: ods.dev/v1alpha1\nkind: DbtRun\nmetadata: {name: " + name +
         "}\nspec: {projectRef: {name: " + project + "}}\n";
}

TEST_F(AggregatedRoles, EditMayWriteProjectsAndRunsViewMayOnlyReadNoBindingMayNotRead) {
  // The aggregation controller fills the built-in roles with the chart's rules.
  ASSERT_TRUE(NodeWorld::wait(120s, [&] {
    const std::string edit = w().jsonpath({"clusterrole", "edit"}, "{.rules[*].resources}");
    const std::string view = w().jsonpath({"clusterrole", "view"}, "{.rules[*].resources}");
    return edit.find("dbtprojects") != std::string::npos && view.find("dbtruns") != std::string::npos;
  })) << w().kubectl({"get", "clusterrole", "edit", "view", "-o", "yaml"}).output;

  const auto editor = account("editor");
  const auto viewer = account("viewer");
  const auto stranger = account("stranger");
  ASSERT_FALSE(editor.empty() || viewer.empty() || stranger.empty());
  for (const auto& [subject, role] : {std::pair{"editor", "edit"}, std::pair{"viewer", "view"}}) {
    (void)w().kubectl({"delete", "rolebinding", subject, "-n", kNamespace, "--ignore-not-found"});
    ProcessResult bound = w().kubectl({"create", "rolebinding", subject, "-n", kNamespace, "--clusterrole", role,
                                       "--serviceaccount", std::string(kNamespace) + ":" + subject});
    ASSERT_EQ(bound.exit_code, 0) << bound.errors;
  }

  // edit: creates a project and a run, reads the runs.
  ProcessResult created = apply_as(editor, "roles-project.yaml", suspended_project(w(), "team-shop"));
  EXPECT_EQ(created.exit_code, 0) << created.output << created.errors;
  ProcessResult started = apply_as(editor, "roles-run.yaml", hand_made_run("by-editor", "team-shop"));
  EXPECT_EQ(started.exit_code, 0) << started.output << started.errors;
  ProcessResult listed = as(editor, {"get", "dbtruns", "-o", "name"});
  EXPECT_EQ(listed.exit_code, 0) << listed.errors;
  EXPECT_NE(listed.output.find("by-editor"), std::string::npos) << listed.output;

  // view: reads projects and runs; creating either is forbidden.
  ProcessResult viewed = as(viewer, {"get", "dbtprojects,dbtruns", "-o", "name"});
  EXPECT_EQ(viewed.exit_code, 0) << viewed.errors;
  EXPECT_NE(viewed.output.find("team-shop"), std::string::npos) << viewed.output;
  EXPECT_NE(viewed.output.find("by-editor"), std::string::npos) << viewed.output;
  ProcessResult view_create = apply_as(viewer, "roles-project-viewer.yaml", suspended_project(w(), "viewer-shop"));
  EXPECT_NE(view_create.exit_code, 0);
  EXPECT_NE(view_create.errors.find("forbidden"), std::string::npos) << view_create.errors;
  ProcessResult view_run = apply_as(viewer, "roles-run-viewer.yaml", hand_made_run("by-viewer", "team-shop"));
  EXPECT_NE(view_run.exit_code, 0);
  EXPECT_NE(view_run.errors.find("forbidden"), std::string::npos) << view_run.errors;
  EXPECT_NE(as(viewer, {"delete", "dbtrun", "by-editor"}).exit_code, 0);

  // no binding: not even a read.
  for (const char* resource : {"dbtruns", "dbtprojects"}) {
    ProcessResult denied = as(stranger, {"get", resource});
    EXPECT_NE(denied.exit_code, 0) << resource;
    EXPECT_NE(denied.errors.find("forbidden"), std::string::npos) << resource << ": " << denied.errors;
  }

  EXPECT_EQ(w().kubectl({"get", "dbtproject", "viewer-shop", "-n", kNamespace}).exit_code, 1);
  EXPECT_EQ(w().kubectl({"delete", "namespace", kNamespace, "--wait=false"}).exit_code, 0);
}

}  // namespace
}  // namespace ods::testing
