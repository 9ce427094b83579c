// docs/kubernetes.md's Quickstart executed on the real node (node_world.h), as written: the test
// takes the first ```sh block under "## Quickstart" from the doc itself and runs it with bash,
// with kubectl and helm on PATH, after replacing only what names the reader's own world (each
// replacement must match exactly once, so a doc edit that breaks one fails here):
//   - the state store's DSN (pg.example) -> the in-cluster PostgreSQL's `ods` database;
//   - the operator image (ghcr.io/ods-dev/ods-operator:0.1.0) and the runner repository the chart
//     allows (ghcr.io/ods-dev/ods-runner) -> the images built here;
//   - the warehouse in profiles.yml (warehouse.example) -> the in-cluster `shop` database;
//   - crds/examples/shop-dbtproject.yaml -> a copy with spec.source.git.url and spec.image set, as
//     the doc says to do first, plus the git Secret of the doc's "Private git sources" (the test
//     git server wants a password and its certificate is self-signed).
// Then what the doc promises: the first run builds, a second reuses everything, new source data
// rebuilds only its readers, and `kubectl get dbtprojects` shows the README's columns.
// Shard `node`; runs as root, serially.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "harness/doc_blocks.h"
#include "harness/source_paths.h"
#include "node_world.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The columns of a `kubectl get` header (separated by two or more spaces).
std::vector<std::string> columns(const std::string& header) {
  std::vector<std::string> out;
  static const std::regex kGap(" {2,}");
  std::sregex_token_iterator it(header.begin(), header.end(), kGap, -1);
  for (; it != std::sregex_token_iterator(); ++it) {
    if (!it->str().empty()) out.push_back(*it);
  }
  return out;
}

class QuickstartOnARealNode : public NodeWorldTest {
 protected:
  std::string plan(const std::string& run, const std::string& field) {
    return w().jsonpath({"dbtrun", run, "-n", "analytics"}, "{.status.plan." + field + "}");
  }
};

TEST_F(QuickstartOnARealNode, TheDocsQuickstartRunsAsWrittenAndTheProjectBuildsReusesAndRebuildsReaders) {
  // A cluster as a reader has it: nothing of ODS installed (an earlier suite's release is gone).
  (void)w().helm({"uninstall", "ods", "-n", "ods-system", "--wait"});
  for (const char* ns : {"ods-system", "analytics"}) {
    (void)w().kubectl({"delete", "namespace", ns, "--ignore-not-found", "--wait=true", "--timeout=180s"});
  }

  std::string script = first_sh_block_in_section(read_text(source_dir() / "docs" / "kubernetes.md"), "## Quickstart");
  ASSERT_FALSE(script.empty()) << "no ```sh block under ## Quickstart in docs/kubernetes.md";
  ASSERT_TRUE(replace_once(script, "host=pg.example port=5432 dbname=ods user=ods password=… sslmode=require",
                           w().cluster_dsn("ods")))
      << script;
  // The operator image, and the runner image projects may name (the chart allows
  // image.runner.repository by default).
  const std::string& runner = w().image("runner");
  ASSERT_TRUE(replace_once(
      script,
      "--set image.operator.repository=ghcr.io/ods-dev/ods-operator --set image.operator.tag=0.1.0 "
      "\\\n  --set image.runner.repository=ghcr.io/ods-dev/ods-runner\n",
      "--set image.operator.repository=" + w().operator_repository() + " --set image.operator.tag=" +
          w().operator_tag() + " \\\n  --set image.runner.repository=" + runner.substr(0, runner.rfind(':')) + "\n"))
      << script;
  ASSERT_TRUE(replace_once(script, "host: warehouse.example, port: 5432, user: shop, password: \"…\"",
                           std::string("host: ") + kWarehouseHost + ", port: 5432, user: postgres, password: \"" +
                               w().postgres_password() + "\""))
      << script;
  const auto git = w().git_secret_data();
  const fs::path work = w().dir() / "quickstart";
  fs::create_directories(work / "crds" / "examples");
  std::ofstream(work / "git-ca.crt") << git.at("ca.crt");
  ASSERT_TRUE(replace_once(script, "kubectl apply -n analytics -f crds/examples/shop-dbtproject.yaml",
                           "kubectl -n analytics create secret generic shop-git --from-literal=username=" +
                               git.at("username") + " --from-literal=password=" + git.at("password") +
                               " --from-file=ca.crt=git-ca.crt\n"
                               "kubectl apply -n analytics -f crds/examples/shop-dbtproject.yaml"))
      << script;
  std::string project = read_text(source_dir() / "crds" / "examples" / "shop-dbtproject.yaml");
  ASSERT_TRUE(replace_once(project, "url: https://github.com/ods-dev/ods.git", "url: " + w().git_url()));
  ASSERT_TRUE(replace_once(project, "      path: examples/shop\n",
                           "      path: examples/shop\n      secretRef: {name: shop-git}\n"));
  ASSERT_TRUE(replace_once(project, "image: ghcr.io/ods-dev/ods-runner:0.1.0", "image: " + w().image("runner")));
  std::ofstream(work / "crds" / "examples" / "shop-dbtproject.yaml") << project;
  fs::create_symlink(source_dir() / "helm", work / "helm");
  std::ofstream(work / "quickstart.sh") << "set -euo pipefail\nset -x\n" << script;

  // kubectl and helm on PATH, the cluster in KUBECONFIG, as on a reader's machine.
  auto kube_bin = kube_binaries_dir();
  ASSERT_TRUE(kube_bin) << kube_bin.error();
  auto helm = helm_binary();
  ASSERT_TRUE(helm) << helm.error();
  const std::string path = kube_bin->string() + ":" + helm->parent_path().string() +
                           ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  ProcessResult ran =
      run_process({"/bin/bash", (work / "quickstart.sh").string()}, work,
                  {"PATH=" + path, "KUBECONFIG=" + w().plane().kubeconfig().string(), "HOME=" + work.string()});
  ASSERT_EQ(ran.exit_code, 0) << ran.output << ran.errors << w().diagnostics("analytics");
  const auto applied_at = std::chrono::steady_clock::now();  // the script's last steps: apply, get
  EXPECT_NE(ran.output.find("dbtproject.ods.dev/shop"), std::string::npos) << ran.output;

  // The first run, started by the apply: builds the selection, reuses nothing.
  std::vector<std::string> runs;
  ASSERT_TRUE(NodeWorld::wait(120s, [&] { return !(runs = w().runs_of("analytics", "shop")).empty(); }))
      << w().diagnostics("analytics");
  ASSERT_EQ(w().wait_run_finished("analytics", runs.front()), "Succeeded") << w().diagnostics("analytics");
  const auto first_succeeded = std::chrono::steady_clock::now();
  std::cout << "quickstart: from kubectl apply of the DbtProject to its first Succeeded run "
            << std::chrono::duration_cast<std::chrono::seconds>(first_succeeded - applied_at).count() << " s"
            << std::endl;
  const std::string built = plan(runs.front(), "built");
  EXPECT_NE(built, "0");
  EXPECT_EQ(plan(runs.front(), "reused"), "0");

  // A second run: nothing changed, everything is reused.
  auto run = [&](const std::string& name) {
    EXPECT_EQ(w().apply("apiVersion: ods.dev/v1alpha1\nkind: DbtRun\nmetadata: {name: " + name +
                            "}\nspec: {projectRef: {name: shop}}\n",
                        "analytics")
                  .exit_code,
              0);
    return w().wait_run_finished("analytics", name);
  };
  ASSERT_EQ(run("second"), "Succeeded") << w().diagnostics("analytics");
  EXPECT_EQ(plan("second", "built"), "0") << w().kubectl({"describe", "dbtrun", "second", "-n", "analytics"}).output;
  EXPECT_EQ(plan("second", "reused"), built);

  // New orders: only their readers are rebuilt, for that reason.
  ProcessResult appended = w().generate_shop_data({"--append-orders", "25"});
  ASSERT_EQ(appended.exit_code, 0) << appended.output << appended.errors;
  ASSERT_EQ(run("third"), "Succeeded") << w().diagnostics("analytics");
  const std::string rebuilt = plan("third", "built");
  EXPECT_NE(rebuilt, "0");
  EXPECT_LT(std::stoi(rebuilt.empty() ? "0" : rebuilt), std::stoi(built.empty() ? "0" : built));
  // Every build for that reason alone; what reads neither orders nor payments (stg_customers,
  // the seed country_codes) reused.
  const auto reasons = nlohmann::json::parse(plan("third", "buildReasons"), nullptr, false);
  ASSERT_TRUE(reasons.is_object()) << plan("third", "buildReasons");
  EXPECT_EQ(reasons.size(), 1u) << reasons.dump();
  EXPECT_EQ(reasons.value("new_upstream_data", 0), std::stoi(rebuilt.empty() ? "0" : rebuilt)) << reasons.dump();
  EXPECT_NE(plan("third", "reused"), "0");

  // kubectl get dbtprojects: the README's columns, the last run's counts.
  ProcessResult table = w().kubectl({"get", "dbtprojects", "-n", "analytics"});
  ASSERT_EQ(table.exit_code, 0) << table.errors;
  std::istringstream lines(table.output);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(columns(header),
            (std::vector<std::string>{"NAME", "READY", "LAST RUN", "BUILT", "REUSED", "REUSE %", "AGE"}))
      << table.output;
  const auto values = columns(row);
  ASSERT_EQ(values.size(), 7u) << table.output;
  EXPECT_EQ(values[0], "shop");
  EXPECT_EQ(values[1], "True");
  EXPECT_EQ(values[3], rebuilt) << table.output;
}

}  // namespace
}  // namespace ods::testing
