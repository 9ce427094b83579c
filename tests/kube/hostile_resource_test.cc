// Custom resources with wrong types and sizes (docs/hardening-crash.md, "Hostile custom
// resources"), on the real kube-apiserver the kube suites share: each DbtProject or DbtRun of
// the first table is refused by the CRD schema, server-side, with a message naming the field;
// each of the second table passes the schema and is refused by the controller (the project or
// run reconciler) with a status condition and an Event naming the field. Nothing changes: no
// object stored by a refused create, no DbtRun, runner Job or token Secret made by the controller.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "kube/kube_client_fixture.h"
#include "ods/control/project_reconciler.h"
#include "ods/control/run_reconciler.h"

namespace ods::testing {
namespace {

namespace res = kube::resources;

struct SchemaCase {
  std::string what;
  bool run;                             // a DbtRun (crds/examples/shop-dbtrun.yaml), else the DbtProject
  std::function<void(Json&)> break_it;  // makes the example invalid
  std::vector<std::string> says;        // parts of the API's message (the field first)
};

std::string text_of(std::size_t bytes) { return std::string(bytes, 'a'); }
Json items_of(std::size_t n) {
  Json out = Json::array();
  for (std::size_t i = 0; i < n; ++i) out.push_back("model_" + std::to_string(i));
  return out;
}

// What the schema refuses, field by field: wrong types, missing required fields, sizes over the
// limits, cron and selector text, Secret references.
std::vector<SchemaCase> schema_cases() {
  auto spec = [](const char* field, Json value) { return [field, value](Json& r) { r["spec"][field] = value; }; };
  return {
      // wrong types
      {"target a number", false, spec("target", 42), {"spec.target", "must be of type string"}},
      {"image an object", false, spec("image", Json{{"name", "x"}}), {"spec.image", "must be of type string"}},
      {"source a string",
       false,
       spec("source", "https://github.com/acme/x.git"),
       {"spec.source", "must be of type object"}},
      {"schedule a number", false, spec("schedule", 6), {"spec.schedule", "must be of type string"}},
      {"suspend a string", false, spec("suspend", "yes"), {"spec.suspend", "must be of type boolean"}},
      {"historyLimit a string", false, spec("historyLimit", "5"), {"spec.historyLimit", "must be of type integer"}},
      {"historyLimit a fraction", false, spec("historyLimit", 2.5), {"spec.historyLimit", "must be of type integer"}},
      {"select a string",
       false,
       [](Json& r) { r["spec"]["selection"]["select"] = "tag:daily"; },
       {"spec.selection.select", "must be of type array"}},
      {"select items numbers",
       false,
       [](Json& r) {
         r["spec"]["selection"]["select"] = {1, 2};
       },
       {"spec.selection.select[0]", "must be of type string"}},
      {"runTests a string",
       false,
       [](Json& r) { r["spec"]["policies"]["runTests"] = "true"; },
       {"spec.policies.runTests", "must be of type boolean"}},
      {"env a map",
       false,
       [](Json& r) {
         r["spec"]["runnerPodTemplate"]["env"] = {{"A", "b"}};
       },
       {"spec.runnerPodTemplate.env", "must be of type array"}},
      {"profileSecretRef a string",
       false,
       spec("profileSecretRef", "shop-dbt-profile"),
       {"spec.profileSecretRef", "must be of type object"}},
      {"run's projectRef a string",
       true,
       [](Json& r) { r["spec"]["projectRef"] = "shop"; },
       {"spec.projectRef", "must be of type object"}},
      {"run's select items objects",
       true,
       [](Json& r) {
         r["spec"]["selection"] = {{"select", {{{"a", 1}}}}};
       },
       {"spec.selection.select[0]", "must be of type string"}},
      // missing required fields
      {"no image", false, [](Json& r) { r["spec"].erase("image"); }, {"spec.image", "Required value"}},
      {"no target", false, [](Json& r) { r["spec"].erase("target"); }, {"spec.target", "Required value"}},
      {"no profile Secret",
       false,
       [](Json& r) { r["spec"].erase("profileSecretRef"); },
       {"spec.profileSecretRef", "Required value"}},
      {"profile Secret without a name",
       false,
       spec("profileSecretRef", Json{{"key", "profiles.yml"}}),
       {"spec.profileSecretRef.name", "Required value"}},
      {"git source without a URL",
       false,
       [](Json& r) { r["spec"]["source"]["git"].erase("url"); },
       {"spec.source.git.url", "Required value"}},
      {"no spec", false, [](Json& r) { r.erase("spec"); }, {"spec", "Required value"}},
      {"run without a spec", true, [](Json& r) { r.erase("spec"); }, {"spec", "Required value"}},
      {"run without a projectRef",
       true,
       [](Json& r) { r["spec"].erase("projectRef"); },
       {"spec.projectRef", "Required value"}},
      {"env item without a name",
       false,
       [](Json& r) {
         r["spec"]["runnerPodTemplate"]["env"] = {{{"value", "x"}}};
       },
       {"spec.runnerPodTemplate.env[0].name", "Required value"}},
      // sizes
      {"target of 129 bytes", false, spec("target", text_of(129)), {"spec.target", "Too long"}},
      {"image of 513 bytes", false, spec("image", text_of(513)), {"spec.image", "Too long"}},
      {"git URL of 2049 bytes",
       false,
       [](Json& r) { r["spec"]["source"]["git"]["url"] = "https://" + text_of(2041); },
       {"spec.source.git.url", "Too long"}},
      {"Secret name of 254 bytes",
       false,
       [](Json& r) { r["spec"]["profileSecretRef"]["name"] = text_of(254); },
       {"spec.profileSecretRef.name", "Too long"}},
      {"schedule of 129 bytes", false, spec("schedule", "0 6 * * " + text_of(121)), {"spec.schedule", "Too long"}},
      {"select of 65 items",
       false,
       [](Json& r) { r["spec"]["selection"]["select"] = items_of(65); },
       {"spec.selection.select", "Too many"}},
      {"select item of 513 bytes",
       false,
       [](Json& r) { r["spec"]["selection"]["select"] = {text_of(513)}; },
       {"spec.selection.select[0]", "Too long"}},
      {"exclude of 65 items",
       false,
       [](Json& r) { r["spec"]["selection"]["exclude"] = items_of(65); },
       {"spec.selection.exclude", "Too many"}},
      {"env of 65 items",
       false,
       [](Json& r) {
         Json env = Json::array();
         for (int i = 0; i < 65; ++i) env.push_back({{"name", "V" + std::to_string(i)}, {"value", "x"}});
         r["spec"]["runnerPodTemplate"]["env"] = env;
       },
       {"spec.runnerPodTemplate.env", "Too many"}},
      {"env value of 4097 bytes",
       false,
       [](Json& r) {
         r["spec"]["runnerPodTemplate"]["env"] = {{{"name", "V"}, {"value", text_of(4097)}}};
       },
       {"spec.runnerPodTemplate.env[0].value", "Too long"}},
      {"historyLimit 0", false, spec("historyLimit", 0), {"spec.historyLimit", "greater than or equal to 1"}},
      {"historyLimit 101", false, spec("historyLimit", 101), {"spec.historyLimit", "less than or equal to 100"}},
      {"historyLimit past int32", false, spec("historyLimit", 4294967297LL), {"spec.historyLimit"}},
      {"run's select of 65 items",
       true,
       [](Json& r) {
         r["spec"]["selection"] = {{"select", items_of(65)}};
       },
       {"spec.selection.select", "Too many"}},
      {"run's project name of 254 bytes",
       true,
       [](Json& r) { r["spec"]["projectRef"]["name"] = text_of(254); },
       {"spec.projectRef.name", "Too long"}},
      {"annotations over 256 KiB",
       false,
       [](Json& r) {
         r["metadata"]["annotations"] = {{"ods.dev/padding", text_of(300 * 1024)}};
       },
       {"metadata.annotations", "Too long"}},
      {"a body over the API's 3 MiB", false, spec("target", text_of(4u << 20)), {"Request entity too large"}},
      {"a name that is no DNS name",
       false,
       [](Json& r) { r["metadata"]["name"] = "Shop Project"; },
       {"metadata.name", "Invalid value"}},
      // cron, selectors, Secret references
      {"schedule of words", false, spec("schedule", "at six"), {"spec.schedule must be a 5-field cron expression"}},
      {"schedule with a letter minute",
       false,
       spec("schedule", "x 6 * * *"),
       {"spec.schedule must be a 5-field cron expression"}},
      {"schedule with a tab-free 7th field",
       false,
       spec("schedule", "0 6 * * * * 2026"),
       {"spec.schedule must be a 5-field cron expression"}},
      {"empty schedule", false, spec("schedule", ""), {"spec.schedule must be a 5-field cron expression"}},
      {"select item with a space",
       false,
       [](Json& r) {
         r["spec"]["selection"]["select"] = {"a", "b c"};
       },
       {"spec.selection.select must list one dbt selector per item"}},
      {"empty select item",
       false,
       [](Json& r) { r["spec"]["selection"]["select"] = {""}; },
       {"spec.selection.select must list one dbt selector per item"}},
      {"exclude item with a space",
       false,
       [](Json& r) { r["spec"]["selection"]["exclude"] = {"tag:slow legacy"}; },
       {"spec.selection.exclude must list one dbt selector per item"}},
      {"run's exclude item with a space",
       true,
       [](Json& r) {
         r["spec"]["selection"] = {{"exclude", {"x y"}}};
       },
       {"spec.selection.exclude must list one dbt selector per item"}},
      {"profile Secret name with a slash",
       false,
       [](Json& r) { r["spec"]["profileSecretRef"]["name"] = "other-namespace/profile"; },
       {"spec.profileSecretRef.name must be a Secret name"}},
      {"profile Secret name empty",
       false,
       [](Json& r) { r["spec"]["profileSecretRef"]["name"] = ""; },
       {"spec.profileSecretRef.name must be a Secret name"}},
      {"profile Secret key a number",
       false,
       [](Json& r) { r["spec"]["profileSecretRef"]["key"] = 7; },
       {"spec.profileSecretRef.key", "must be of type string"}},
      {"git Secret name ending in a dot",
       false,
       [](Json& r) {
         r["spec"]["source"]["git"]["secretRef"] = {{"name", "git."}};
       },
       {"spec.source.git.secretRef.name must be a Secret name"}},
      {"git Secret without a name",
       false,
       [](Json& r) { r["spec"]["source"]["git"]["secretRef"] = Json::object(); },
       {"spec.source.git.secretRef.name", "Required value"}},
  };
}

class HostileResourceTest : public KubeClientTest {
 protected:
  void SetUp() override {
    KubeClientTest::SetUp();
    namespace_ = make_namespace("hostile");
  }

  // How many objects of `resource` the namespace holds.
  std::size_t count(const kube::Resource& resource) {
    auto listed = client().list(resource, namespace_, {});
    EXPECT_TRUE(listed) << listed.error().message;
    return listed ? (*listed)["items"].size() : 0;
  }
  void expect_nothing_in_the_namespace(const std::string& after) {
    for (const auto* resource : {&res::kDbtProjects, &res::kDbtRuns, &res::kJobs, &res::kPods, &res::kSecrets})
      EXPECT_EQ(count(*resource), 0u) << after << ": " << resource->plural << " exist";
  }
  // The Warning Events of the namespace with `reason`, their messages.
  std::vector<std::string> events(const std::string& reason) {
    std::vector<std::string> out;
    auto listed = client().list(control::kCoreEvents, namespace_, {});
    EXPECT_TRUE(listed) << listed.error().message;
    if (listed)
      for (const Json& e : (*listed)["items"])
        if (e.value("reason", "") == reason) out.push_back(e.value("message", ""));
    return out;
  }

  std::string namespace_;
};

TEST_F(HostileResourceTest, TheSchemaRefusesWrongTypesSizesCronSelectorsAndSecretRefsNamingTheField) {
  const auto cases = schema_cases();
  for (const std::string file : {"shop-dbtproject.yaml", "shop-dbtrun.yaml"}) {
    Json valid = example(file, namespace_);
    valid["metadata"]["name"] = "probe-valid";
    auto created = client().create(file == "shop-dbtrun.yaml" ? res::kDbtRuns : res::kDbtProjects, namespace_, valid);
    ASSERT_TRUE(created) << file << " should be valid: " << created.error().message;
    ASSERT_TRUE(
        client().remove(file == "shop-dbtrun.yaml" ? res::kDbtRuns : res::kDbtProjects, {namespace_, "probe-valid"}));
  }
  ASSERT_TRUE(eventually([&] { return count(res::kDbtProjects) + count(res::kDbtRuns) == 0; }));
  // Read once (kubectl converts the YAML): each case breaks a copy.
  const Json project_example = example("shop-dbtproject.yaml", namespace_);
  const Json run_example = example("shop-dbtrun.yaml", namespace_);
  for (const auto& c : cases) {
    Json resource = c.run ? run_example : project_example;
    resource["metadata"]["name"] = "probe";
    c.break_it(resource);
    auto created = client().create(c.run ? res::kDbtRuns : res::kDbtProjects, namespace_, resource);
    if (created) {
      ADD_FAILURE() << c.what << ": accepted";
      (void)client().remove(c.run ? res::kDbtRuns : res::kDbtProjects, {namespace_, "probe"});
      continue;
    }
    const int status = created.error().status;
    EXPECT_TRUE(status == 422 || status == 413 || status == 400) << c.what << ": status " << status;
    for (const auto& part : c.says)
      EXPECT_NE(created.error().message.find(part), std::string::npos)
          << c.what << ": expected \"" << part << "\" in:\n"
          << created.error().message.substr(0, 2000);
  }
  expect_nothing_in_the_namespace("after the refused creates");
  std::cout << "[ hostile  ] " << cases.size() << " custom resources refused by the schema\n";
}

TEST_F(HostileResourceTest, TheControllerRefusesWhatTheSchemaCannotSayAndStartsNothing) {
  // Schedules of the right shape with values out of range or days that never come.
  const std::vector<std::string> schedules = {"61 * * * *",     "0 24 * * *", "0 6 32 * *",  "0 6 * 13 *",
                                              "0 6 * * FUNDAY", "0 6 31 2 *", "5-1 * * * *", "*/0 * * * *",
                                              "0 6 0 * *",      "0 6 * * 8"};
  ods::Clock& clock = ods::system_clock();
  control::EventRecorder recorder(client(), clock);
  control::DbtProjectReconciler projects(client(), clock, recorder);
  int refused = 0;
  for (std::size_t i = 0; i < schedules.size(); ++i) {
    const std::string name = "cron-" + std::to_string(i);
    Json project = example("shop-dbtproject.yaml", namespace_);
    project["metadata"]["name"] = name;
    project["spec"]["schedule"] = schedules[i];
    auto created = client().create(res::kDbtProjects, namespace_, project);
    ASSERT_TRUE(created) << schedules[i] << " was refused by the schema: " << created.error().message;
    auto reconciled = projects.reconcile({namespace_, name});
    ASSERT_TRUE(reconciled) << schedules[i] << ": " << reconciled.error().message;
    const Json stored = *client().get(res::kDbtProjects, {namespace_, name});
    Json stalled;
    for (const Json& condition : stored.value("status", Json::object()).value("conditions", Json::array()))
      if (condition["type"] == "Stalled") stalled = condition;
    EXPECT_EQ(stalled.value("status", ""), "True") << schedules[i] << ": " << stored.value("status", Json()).dump();
    EXPECT_EQ(stalled.value("reason", ""), "InvalidSchedule") << schedules[i];
    EXPECT_NE(stalled.value("message", "").find("spec.schedule"), std::string::npos) << stalled.dump();
    EXPECT_NE(stalled.value("message", "").find(schedules[i]), std::string::npos) << stalled.dump();
    refused += stalled.value("reason", "") == "InvalidSchedule";
  }
  ASSERT_TRUE(eventually([&] { return events("InvalidSchedule").size() >= schedules.size(); }))
      << events("InvalidSchedule").size() << " InvalidSchedule Events for " << schedules.size() << " projects";
  for (const auto& message : events("InvalidSchedule")) EXPECT_EQ(message.rfind("spec.schedule: ", 0), 0u) << message;
  EXPECT_EQ(count(res::kDbtRuns), 0u) << "a project with an invalid schedule started a run";

  // Runs the run reconciler must refuse before it makes a Job: of a project that does not exist,
  // and of a project whose runTimeout has the schema's shape but is no usable duration.
  control::DbtRunReconciler runs(client(), clock, recorder, [](const Json&) { return std::string("token"); },
                                 {.callback_url = "http://127.0.0.1:1"});
  struct RunCase {
    std::string what, project, run_timeout, reason, says;
  };
  const std::vector<RunCase> run_cases = {
      {"run of no project", "nowhere", "", "ProjectNotFound", "DbtProject nowhere does not exist"},
      {"timeout of zero", "zero-timeout", "0s", "InvalidProject", "spec.policies.runTimeout"},
      {"timeout past any clock", "huge-timeout", "99999999999999999999h", "InvalidProject", "spec.policies.runTimeout"},
  };
  for (const auto& c : run_cases) {
    if (!c.run_timeout.empty()) {
      Json project = example("shop-dbtproject.yaml", namespace_);
      project["metadata"]["name"] = c.project;
      project["spec"].erase("schedule");
      project["spec"]["policies"]["runTimeout"] = c.run_timeout;
      auto created = client().create(res::kDbtProjects, namespace_, project);
      ASSERT_TRUE(created) << c.what << ": " << created.error().message;
    }
    Json run = example("shop-dbtrun.yaml", namespace_);
    run["metadata"]["name"] = "run-of-" + c.project;
    run["spec"]["projectRef"]["name"] = c.project;
    auto created = client().create(res::kDbtRuns, namespace_, run);
    ASSERT_TRUE(created) << c.what << ": " << created.error().message;
    auto reconciled = runs.reconcile({namespace_, "run-of-" + c.project});
    ASSERT_TRUE(reconciled) << c.what << ": " << reconciled.error().message;
    const Json stored = *client().get(res::kDbtRuns, {namespace_, "run-of-" + c.project});
    const Json status = stored.value("status", Json::object());
    EXPECT_EQ(status.value("phase", ""), "Failed") << c.what << ": " << status.dump();
    EXPECT_EQ(status.value("reason", ""), c.reason) << c.what << ": " << status.dump();
    EXPECT_NE(status.value("message", "").find(c.says), std::string::npos) << c.what << ": " << status.dump();
    refused += status.value("reason", "") == c.reason;
  }
  EXPECT_EQ(count(res::kJobs), 0u) << "a refused run got a runner Job";
  EXPECT_EQ(count(res::kPods), 0u);
  EXPECT_EQ(count(res::kSecrets), 0u) << "a refused run got a token Secret";
  std::cout << "[ hostile  ] " << refused << " custom resources refused by the controller\n";
}

}  // namespace
}  // namespace ods::testing
