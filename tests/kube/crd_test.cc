// The DbtProject and DbtRun CustomResourceDefinitions (crds/) on a real kube-apiserver: they
// install, every field is documented, the examples apply, the printer columns show a project's
// last run, each CEL rule refuses what it should with its message, a run's spec is immutable,
// and a service account needs RBAC to read them. One control plane for the whole suite.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "harness/kube_control_plane.h"

namespace ods::testing {
namespace {

using nlohmann::json;

std::string describe(const ProcessResult& r) {
  return "exit code " + std::to_string(r.exit_code) + "\nstdout:\n" + r.output + "\nstderr:\n" + r.errors;
}

class KubeCrdTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto started = KubeControlPlane::start();
    if (!started) {
      start_error_ = started.error();
      return;
    }
    plane_ = std::move(*started);
    ProcessResult applied = plane_->kubectl({"apply", "-f", (source_dir() / "crds").string()});
    ProcessResult established = plane_->kubectl(
        {"wait", "--for=condition=Established", "--timeout=60s", "crd/dbtprojects.ods.dev", "crd/dbtruns.ods.dev"});
    if (applied.exit_code != 0 || established.exit_code != 0) {
      start_error_ = "kubectl apply -f crds/: " + describe(applied) + "\nkubectl wait: " + describe(established);
      return;
    }
    // The OpenAPI document (kubectl explain) is published a moment after Established.
    ProcessResult explained;
    for (int attempt = 0; attempt < 150; ++attempt) {
      explained = kubectl({"explain", "dbtprojects.spec"});
      if (explained.exit_code == 0 && kubectl({"explain", "dbtruns.spec"}).exit_code == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    start_error_ = "the CRDs' OpenAPI schemas were not published within 30 s: " + describe(explained);
  }
  static void TearDownTestSuite() { plane_.reset(); }

  void SetUp() override { ASSERT_TRUE(plane_ && start_error_.empty()) << start_error_; }

  static ProcessResult kubectl(const std::vector<std::string>& args) { return plane_->kubectl(args); }

  // An example resource (crds/examples/<file>) as JSON.
  static json example(const std::string& file) {
    ProcessResult r = kubectl(
        {"create", "--dry-run=client", "-o", "json", "-f", (source_dir() / "crds" / "examples" / file).string()});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    return json::parse(r.output);
  }

  // `kubectl <verb...> -f <document as a file>`.
  static ProcessResult kubectl_with(const std::vector<std::string>& verb, const json& document) {
    const auto file = plane_->dir() / "document.json";
    std::ofstream(file, std::ios::trunc) << document.dump(2);
    std::vector<std::string> args = verb;
    args.insert(args.end(), {"-f", file.string()});
    return kubectl(args);
  }

  static inline std::unique_ptr<KubeControlPlane> plane_;
  static inline std::string start_error_;
};

// Every property of a schema, at any depth, has a description (metadata excepted: Kubernetes
// documents it). Appends the paths that have none.
void collect_undocumented(const json& schema, const std::string& path, std::vector<std::string>& missing) {
  if (schema.contains("properties"))
    for (const auto& [name, property] : schema["properties"].items()) {
      if (name == "metadata") continue;
      const std::string child = path + "." + name;
      if (property.value("description", "").empty()) missing.push_back(child);
      collect_undocumented(property, child, missing);
    }
  if (schema.contains("items")) collect_undocumented(schema["items"], path + "[]", missing);
  if (schema.contains("additionalProperties") && schema["additionalProperties"].is_object())
    collect_undocumented(schema["additionalProperties"], path + "{}", missing);
}

TEST_F(KubeCrdTest, EveryFieldOfBothResourcesIsDocumented) {
  for (const std::string crd : {"dbtprojects.ods.dev", "dbtruns.ods.dev"}) {
    ProcessResult r = kubectl({"get", "crd", crd, "-o", "json"});
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    const json schema = json::parse(r.output)["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    std::vector<std::string> missing;
    collect_undocumented(schema, crd, missing);
    EXPECT_TRUE(missing.empty()) << crd << ": fields without a description: " << json(missing).dump();
    EXPECT_GT(schema.dump().size(), 1000U) << crd << " has (almost) no schema";
  }
  ProcessResult explained = kubectl({"explain", "dbtprojects.spec.schedule"});
  ASSERT_EQ(explained.exit_code, 0) << describe(explained);
  EXPECT_NE(explained.output.find("5-field cron expression"), std::string::npos) << explained.output;
}

TEST_F(KubeCrdTest, ExamplesApplyAndTheListShowsTheLastRunInPrinterColumns) {
  ProcessResult applied = kubectl({"apply", "-f", (source_dir() / "crds" / "examples").string()});
  ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  EXPECT_NE(applied.output.find("dbtproject.ods.dev/shop created"), std::string::npos) << applied.output;
  EXPECT_NE(applied.output.find("dbtrun.ods.dev/shop-manual-1 created"), std::string::npos) << applied.output;

  // What the controller will write after a run (through the status subresource).
  const json status = {{"status",
                        {{"observedGeneration", 1},
                         {"conditions",
                          {{{"type", "Ready"},
                            {"status", "True"},
                            {"reason", "Succeeded"},
                            {"lastTransitionTime", "2026-01-02T06:05:00Z"}}}},
                         {"lastRun",
                          {{"name", "shop-manual-1"},
                           {"phase", "Succeeded"},
                           {"completionTime", "2026-01-02T06:05:00Z"},
                           {"built", 3},
                           {"reused", 9},
                           {"reusePercent", 75}}}}}};
  ProcessResult patched =
      kubectl({"patch", "dbtproject", "shop", "--subresource=status", "--type=merge", "-p", status.dump()});
  ASSERT_EQ(patched.exit_code, 0) << describe(patched);

  ProcessResult listed = kubectl({"get", "dbtprojects"});
  ASSERT_EQ(listed.exit_code, 0) << describe(listed);
  EXPECT_TRUE(std::regex_search(listed.output, std::regex(R"(^NAME +READY +LAST RUN +BUILT +REUSED +REUSE % +AGE\n)")))
      << listed.output;
  EXPECT_TRUE(std::regex_search(listed.output, std::regex(R"(\nshop +True +\S+ +3 +9 +75 +\S+\n)"))) << listed.output;

  ProcessResult runs = kubectl({"get", "dbtruns"});
  ASSERT_EQ(runs.exit_code, 0) << describe(runs);
  EXPECT_TRUE(std::regex_search(runs.output, std::regex(R"(^NAME +PROJECT +PHASE +BUILT +REUSED +REUSE % +AGE\n)")))
      << runs.output;
  EXPECT_TRUE(std::regex_search(runs.output, std::regex(R"(\nshop-manual-1 +shop +)"))) << runs.output;
}

// The example DbtProject works with examples/shop as it is (issue 25: it named the target `prod`,
// which the project's profile does not have, and selectors matching no node): its target is one
// of the profile's outputs, and every selector names a model of the project (a name, with `+`).
TEST_F(KubeCrdTest, TheExampleProjectNamesATargetAndModelsExamplesShopHas) {
  const json project = example("shop-dbtproject.yaml");
  const std::filesystem::path shop = source_dir() / "examples" / "shop";
  std::ifstream profile_file(shop / "profiles.yml");
  const std::string profile((std::istreambuf_iterator<char>(profile_file)), std::istreambuf_iterator<char>());
  const std::string target = project["spec"]["target"];
  EXPECT_NE(profile.find("\n    " + target + ":\n"), std::string::npos)
      << "examples/shop/profiles.yml has no output '" << target << "'";
  EXPECT_EQ(project["spec"]["source"]["git"]["path"], "examples/shop");
  std::set<std::string> models;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(shop / "models"))
    if (entry.path().extension() == ".sql" || entry.path().extension() == ".py") models.insert(entry.path().stem());
  std::vector<std::string> selectors;
  for (const char* list : {"select", "exclude"})
    for (const auto& s : project["spec"]["selection"].value(list, json::array())) selectors.push_back(s);
  ASSERT_FALSE(selectors.empty());
  for (std::string selector : selectors) {
    const std::string as_written = selector;
    while (!selector.empty() && selector.back() == '+') selector.pop_back();
    while (!selector.empty() && selector.front() == '+') selector.erase(0, 1);
    EXPECT_TRUE(models.contains(selector))
        << "the example's selector '" << as_written << "' names no model of examples/shop";
  }
}

struct InvalidCase {
  std::string what;
  std::string example;                  // crds/examples/<file>
  std::function<void(json&)> break_it;  // makes the example invalid
  std::string message;                  // part of the rule's message
};

TEST_F(KubeCrdTest, EachRuleRefusesWhatItShouldWithAMessageThatSaysWhatToFix) {
  const std::string project = "shop-dbtproject.yaml";
  const std::string run = "shop-dbtrun.yaml";
  const std::vector<InvalidCase> cases = {
      {"schedule in words", project, [](json& r) { r["spec"]["schedule"] = "every day at 6"; },
       "spec.schedule must be a 5-field cron expression"},
      {"schedule with 4 fields", project, [](json& r) { r["spec"]["schedule"] = "0 6 * *"; },
       "spec.schedule must be a 5-field cron expression"},
      {"schedule with 6 fields", project, [](json& r) { r["spec"]["schedule"] = "0 0 6 * * *"; },
       "spec.schedule must be a 5-field cron expression"},
      {"unknown macro", project, [](json& r) { r["spec"]["schedule"] = "@sometimes"; },
       "spec.schedule must be a 5-field cron expression"},
      {"empty image", project, [](json& r) { r["spec"]["image"] = ""; },
       "spec.image must name the runner container image"},
      {"image with a space", project, [](json& r) { r["spec"]["image"] = "ods runner"; },
       "spec.image must name the runner container image"},
      {"both sources", project,
       [](json& r) {
         r["spec"]["source"]["image"] = {{"path", "/project"}};
       },
       "spec.source must set exactly one of git"},
      {"no source", project, [](json& r) { r["spec"]["source"] = json::object(); },
       "spec.source must set exactly one of git"},
      {"git URL of another scheme", project, [](json& r) { r["spec"]["source"]["git"]["url"] = "ftp://acme/x.git"; },
       "spec.source.git.url must be an https://, ssh:// or git@host:path"},
      {"git Secret name with capitals", project,
       [](json& r) {
         r["spec"]["source"]["git"]["secretRef"] = {{"name", "Shop_Git"}};
       },
       "spec.source.git.secretRef.name must be a Secret name"},
      {"digest key Secret name with capitals", project,
       [](json& r) {
         r["spec"]["digestKeySecretRef"] = {{"name", "Shop_Key"}};
       },
       "spec.digestKeySecretRef.name must be a Secret name"},
      {"digest key Secret key with a slash", project,
       [](json& r) {
         r["spec"]["digestKeySecretRef"] = {{"name", "shop-key"}, {"key", "a/b"}};
       },
       "spec.digestKeySecretRef.key must be a Secret data key"},
      {"the digest key as a value in the pod template", project,
       [](json& r) {
         r["spec"]["runnerPodTemplate"]["env"] = {{{"name", "ODS_DIGEST_KEY"}, {"value", "0123456789abcdef"}}};
       },
       "spec.runnerPodTemplate.env must not set ODS_DIGEST_KEY"},
      {"unknown concurrency policy", project, [](json& r) { r["spec"]["policies"]["concurrency"] = "Queue"; },
       "Unsupported value: \"Queue\""},
      {"git path out of the repository", project, [](json& r) { r["spec"]["source"]["git"]["path"] = "../other"; },
       "spec.source.git.path must be a relative directory"},
      {"relative image path", project,
       [](json& r) {
         r["spec"]["source"] = {{"image", {{"path", "project"}}}};
       },
       "spec.source.image.path must be an absolute directory"},
      {"target with a space", project, [](json& r) { r["spec"]["target"] = "prod eu"; },
       "spec.target must be one dbt target name"},
      {"empty target", project, [](json& r) { r["spec"]["target"] = ""; }, "spec.target must be one dbt target name"},
      {"dbt project name with a dash", project, [](json& r) { r["spec"]["dbtProjectName"] = "jaffle-shop"; },
       "spec.dbtProjectName must be a dbt project name"},
      {"selectors in one item", project, [](json& r) { r["spec"]["selection"]["select"] = {"tag:daily orders+"}; },
       "spec.selection.select must list one dbt selector per item"},
      {"empty exclude item", project, [](json& r) { r["spec"]["selection"]["exclude"] = {""}; },
       "spec.selection.exclude must list one dbt selector per item"},
      {"run timeout in words", project, [](json& r) { r["spec"]["policies"]["runTimeout"] = "1 hour"; },
       "spec.policies.runTimeout must be a duration"},
      {"Secret name with capitals", project, [](json& r) { r["spec"]["profileSecretRef"]["name"] = "Shop_Profile"; },
       "spec.profileSecretRef.name must be a Secret name"},
      {"run of a badly named project", run, [](json& r) { r["spec"]["projectRef"]["name"] = "Shop Project"; },
       "spec.projectRef.name must be the name of a DbtProject"},
      {"run's selectors in one item", run,
       [](json& r) {
         r["spec"]["selection"] = {{"select", {"a b"}}};
       },
       "spec.selection.select must list one dbt selector per item"},
  };
  for (const std::string& file : {project, run}) {
    json valid = example(file);
    valid["metadata"]["name"] = "validation-probe";
    ProcessResult accepted = kubectl_with({"create", "--dry-run=server"}, valid);
    ASSERT_EQ(accepted.exit_code, 0) << file << " should be valid: " << describe(accepted);
  }
  for (const auto& c : cases) {
    json resource = example(c.example);
    resource["metadata"]["name"] = "validation-probe";
    c.break_it(resource);
    ProcessResult r = kubectl_with({"create", "--dry-run=server"}, resource);
    EXPECT_NE(r.exit_code, 0) << c.what << ": accepted";
    EXPECT_NE(r.errors.find(c.message), std::string::npos) << c.what << ": expected \"" << c.message << "\" in:\n"
                                                           << r.errors;
  }
}

TEST_F(KubeCrdTest, ARunsSpecCannotChangeButItsStatusCan) {
  json run = example("shop-dbtrun.yaml");
  run["metadata"]["name"] = "immutable-run";
  ProcessResult created = kubectl_with({"create"}, run);
  ASSERT_EQ(created.exit_code, 0) << describe(created);

  const std::string message = "the spec of a DbtRun cannot change after it is created";
  for (const json& change :
       {json{{"spec", {{"trigger", "Schedule"}}}}, json{{"spec", {{"projectRef", {{"name", "another"}}}}}},
        json{{"spec", {{"selection", {{"select", {"orders"}}}}}}}}) {
    ProcessResult r = kubectl({"patch", "dbtrun", "immutable-run", "--type=merge", "-p", change.dump()});
    EXPECT_NE(r.exit_code, 0) << change.dump() << " was accepted";
    EXPECT_NE(r.errors.find(message), std::string::npos) << change.dump() << ":\n" << r.errors;
  }
  ProcessResult spec = kubectl({"get", "dbtrun", "immutable-run", "-o", "jsonpath={.spec}"});
  ASSERT_EQ(spec.exit_code, 0) << describe(spec);
  EXPECT_EQ(json::parse(spec.output), (json{{"projectRef", {{"name", "shop"}}}, {"trigger", "Manual"}}));

  ProcessResult status = kubectl({"patch", "dbtrun", "immutable-run", "--subresource=status", "--type=merge", "-p",
                                  R"({"status":{"phase":"Compiling"}})"});
  EXPECT_EQ(status.exit_code, 0) << describe(status);
  ProcessResult bad_phase = kubectl({"patch", "dbtrun", "immutable-run", "--subresource=status", "--type=merge", "-p",
                                     R"({"status":{"phase":"Sleeping"}})"});
  EXPECT_NE(bad_phase.exit_code, 0) << "an unknown phase was accepted";
}

TEST_F(KubeCrdTest, AServiceAccountReadsDbtProjectsOnlyOnceARoleAllowsIt) {
  auto account = plane_->service_account_kubeconfig("ods-system", "ods-operator");
  ASSERT_TRUE(account) << account.error();
  ProcessResult refused = plane_->kubectl_as(*account, {"get", "dbtprojects", "-n", "default"});
  EXPECT_NE(refused.exit_code, 0) << describe(refused);
  EXPECT_NE(refused.errors.find("system:serviceaccount:ods-system:ods-operator"), std::string::npos) << refused.errors;
  EXPECT_NE(refused.errors.find("forbidden"), std::string::npos) << refused.errors;

  ProcessResult role = kubectl({"create", "role", "dbtproject-reader", "-n", "default", "--verb=get,list,watch",
                                "--resource=dbtprojects.ods.dev"});
  ASSERT_EQ(role.exit_code, 0) << describe(role);
  ProcessResult binding = kubectl({"create", "rolebinding", "ods-operator-reads-projects", "-n", "default",
                                   "--role=dbtproject-reader", "--serviceaccount=ods-system:ods-operator"});
  ASSERT_EQ(binding.exit_code, 0) << describe(binding);
  // The authorizer learns of the binding through a watch: wait for it (not a timing assertion).
  ProcessResult allowed;
  for (int attempt = 0; attempt < 50; ++attempt) {
    allowed = plane_->kubectl_as(*account, {"get", "dbtprojects", "-n", "default", "-o", "name"});
    if (allowed.exit_code == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(allowed.exit_code, 0) << describe(allowed);
  ProcessResult still_refused = plane_->kubectl_as(*account, {"get", "dbtruns", "-n", "default"});
  EXPECT_NE(still_refused.exit_code, 0) << "the role grants dbtprojects only";
}

TEST_F(KubeCrdTest, DescribeShowsThePlanSummaryAndTheCountsPerReason) {
  json run = example("shop-dbtrun.yaml");
  run["metadata"]["name"] = "described-run";
  ProcessResult created = kubectl_with({"create"}, run);
  ASSERT_EQ(created.exit_code, 0) << describe(created);
  const json status = {{"status",
                        {{"phase", "Building"},
                         {"plan",
                          {{"total", 12},
                           {"built", 3},
                           {"reused", 9},
                           {"reusePercent", 75},
                           {"buildReasons", {{"new_upstream_data", 2}, {"reads_run_context", 1}}},
                           {"reuseReasons", {{"unchanged", 9}}}}}}}};
  ProcessResult patched =
      kubectl({"patch", "dbtrun", "described-run", "--subresource=status", "--type=merge", "-p", status.dump()});
  ASSERT_EQ(patched.exit_code, 0) << describe(patched);
  // Kept by the structural schema (an unknown field would be pruned), shown by describe.
  ProcessResult stored = kubectl({"get", "dbtrun", "described-run", "-o", "jsonpath={.status.plan}"});
  ASSERT_EQ(stored.exit_code, 0) << describe(stored);
  EXPECT_EQ(json::parse(stored.output), status["status"]["plan"]);
  ProcessResult described = kubectl({"describe", "dbtrun", "described-run"});
  ASSERT_EQ(described.exit_code, 0) << describe(described);
  // kubectl aligns the values of one level and capitalises the first letter of a key.
  const std::string expected =
      "Status:\n  Phase:  Building\n  Plan:\n    Build Reasons:\n      new_upstream_data:  2\n"
      "      reads_run_context:  1\n    Built:                3\n    Reuse Percent:        75\n"
      "    Reuse Reasons:\n      Unchanged:  9\n    Reused:       9\n    Total:        12\n";
  EXPECT_NE(described.output.find(expected), std::string::npos) << described.output;
}

}  // namespace
}  // namespace ods::testing
