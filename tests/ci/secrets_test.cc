// Secrets never leak (the CI steps' part of issue #16), and CI jobs sharing a PostgreSQL state
// store: ci/github/action.yml and ci/gitlab/templates/ods.yml run on examples/shop with a state
// store whose URL carries a password, a warehouse password in the job's environment and a
// distinctive API token; runs on the default branch, then (GitHub) a plan on a pull request,
// which comments. Then every job log, step summary and output, every file of the workspace (job
// artifacts, caches, runner temp), every request the API stand-in recorded (paths and bodies; the
// token is rightly in its headers) and every row and the log of the state server are searched for
// every form of each secret (harness/secret_search.h). The projects carry planted models, macros
// and hooks that read ODS's secrets every way dbt code can (harness/secret_probes.h; issue 26:
// no secret of ODS reaches a process it starts), with a digest key in the job's environment.
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <regex>
#include <sstream>

#include "ci_fixture.h"
#include "harness/postgres_server.h"
#include "harness/secret_probes.h"
#include "harness/secret_search.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStatePassword = "st8-Secret-9d41e7";
constexpr const char* kWarehousePassword = "wh+Secret/c0ffee=";
constexpr const char* kToken = "api-Token-5be2a1";
constexpr const char* kDigestKey = "dk-Ci-Secret-2f8e61b0c4d9a753";

// The variables the probes read: what ODS and the CI steps hold secrets in.
const std::vector<std::string> kProbedVariables{"ODS_DIGEST_KEY", "ODS_STATE",        "ODS_CI_STATE",
                                                "ODS_CI_TOKEN",   "ODS_GITLAB_TOKEN", "ODS_STATE_READER"};

// ODS's and the steps' secrets alone: the search of the probes' environment file, which rightly
// holds the warehouse password (the profile reads it; harness/secret_probes.h).
SecretSearch ods_secret_search() {
  return SecretSearch({{"state password", kStatePassword}, {"API token", kToken}, {"digest key", kDigestKey}});
}

// Every file under `dir` but the probes' environment file of `p`, searched with `search`; that
// file with ods_secret_search(), up to ods's own entries (the processes above ods, the job's
// shell and the step's script, hold the step's inputs: docs/security.md). The number of files searched.
std::size_t expect_clean_workspace(SecretSearch& search, const fs::path& dir, const DbtProject& p,
                                   const std::function<bool(const fs::path&)>& skip = {}) {
  const fs::path probe_env = secret_probe_environment_file(p);
  SecretSearch ods_only = ods_secret_search();
  ods_only.expect_clean(probe_env.string() + " (through ods)", secret_probe_environment_through_ods(p));
  return search.expect_clean_tree(dir, [&](const fs::path& file) { return file == probe_env || (skip && skip(file)); });
}

SecretSearch secret_search() {
  return SecretSearch({{"state password", kStatePassword},
                       {"warehouse password", kWarehousePassword},
                       {"API token", kToken},
                       {"digest key", kDigestKey}});
}

// The job's environment: the warehouse password as a profile would read it (examples/shop's pg
// target reads SHOP_PG_PASSWORD) and as dbt's secret variables name it; ODS's digest key, and the
// probes' marker (harness/secret_probes.h).
std::vector<std::string> warehouse_env() {
  return {std::string("SHOP_PG_PASSWORD=") + kWarehousePassword,
          std::string("DBT_ENV_SECRET_SHOP_PASSWORD=") + kWarehousePassword,
          std::string("ODS_DIGEST_KEY=") + kDigestKey, std::string(kProbeMarkerVariable) + "=visible"};
}

// The API stand-in, accepting the distinctive token.
ApiStandIn::Options standin_options() {
  ApiStandIn::Options options;
  options.token = kToken;
  return options;
}

std::string state_url(const PostgresServer& server, const std::string& user = "") {
  return "postgresql://" + (user.empty() ? server.user() : user) + ":" + kStatePassword +
         "@127.0.0.1:" + std::to_string(server.port()) + "/" + server.database();
}

// The read-only role of pull/merge request plans: `pr_reader`, created on `server` and given
// what `ods state grants` prints (docs/security.md), once a run created the state tables.
// Its URL carries the same distinctive password (trust authentication ignores it).
std::string make_reader(const PostgresServer& server, const DbtProject& p) {
  ProcessResult grants = p.ods({"state", "grants", "pr_reader", "--state", state_url(server)});
  EXPECT_EQ(grants.exit_code, 0) << grants.errors;
  ProcessResult applied = server.psql("CREATE ROLE pr_reader LOGIN;\n" + grants.output);
  EXPECT_EQ(applied.exit_code, 0) << applied.errors << grants.output;
  return state_url(server, "pr_reader");
}

// A plan job's log and summary, refused for holding the writer's credential.
void expect_refused_writer(const std::string& job, const std::string& log, const std::string& summary) {
  for (const std::string& text : {log, summary}) {
    EXPECT_NE(text.find("(role postgres) can write the ODS state"), std::string::npos) << job << ":\n" << text;
    EXPECT_NE(text.find("--read-only-state"), std::string::npos) << job << ":\n" << text;
  }
}

// `log` without GitHub's ::add-mask:: workflow commands: the runner consumes those (they are how a
// step tells it what to hide) and never shows them; expect_masked_first() checks they come first.
std::string without_mask_commands(const std::string& log) {
  std::istringstream lines(log);
  std::string out;
  for (std::string line; std::getline(lines, line);)
    if (!line.starts_with("::add-mask::")) out += line + "\n";
  return out;
}

// What the stand-in was asked, but the headers that carry the token.
void expect_clean_requests(SecretSearch& search, const ApiStandIn& api) {
  for (auto request : api.requests()) {
    for (const char* header : {"authorization", "private-token"}) request["headers"].erase(header);
    search.expect_clean("the API stand-in's request " + request.value("method", "") + " " + request.value("path", "") +
                            " (headers but the token's)",
                        request.dump());
  }
}

// Every row of every database of the state server, and its log.
void expect_clean_state(SecretSearch& search, const PostgresServer& server) {
  ProcessResult rows = server.dump_all_rows();
  ASSERT_EQ(rows.exit_code, 0) << rows.errors;
  EXPECT_NE(rows.output.find("COPY public.snapshots"), std::string::npos) << "the state store holds no snapshots";
  search.expect_clean("the state server's rows", rows.output);
  search.expect_clean("the state server's log", read_text_file(server.dir() / "server.log"));
}

void report(const std::string& what, const SecretSearch& search) {
  std::cout << "secrets (" << what << "): " << search.texts_searched() << " texts, " << search.bytes_searched()
            << " bytes searched for " << search.forms() << " forms of 4 secrets" << std::endl;
}

// Every log line holding the state password is its own ::add-mask:: line, printed before any
// other line mentions the state URL.
void expect_masked_first(const std::string& log) {
  std::istringstream lines(log);
  bool masked = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("::add-mask::")) {
      masked = true;
      continue;
    }
    EXPECT_EQ(line.find(kStatePassword), std::string::npos) << "the password is printed: " << line;
    if (line.find("127.0.0.1") != std::string::npos) {
      EXPECT_TRUE(masked) << "printed before the mask: " << line;
    }
  }
  EXPECT_TRUE(masked);
}

// Two CI jobs in separate clones of examples/shop, each running ci/github/action.yml with `state`
// set to one PostgreSQL state store and building into the same warehouse: the second job reuses
// what the first built. Then a pull request's plan in the second clone: with the writer's
// credential it is refused (the step fails, its summary and comment say why); with the read-only
// role `ods state grants` made it plans and updates that comment. The action masks the URL's
// password before anything prints it; nothing any job left holds a secret.
TEST(CiSecretsNeverLeak, GitHubTwoClonesShareAPostgresStateThenAPullRequestIsPlanned) {
  auto server = PostgresServer::start();
  ASSERT_TRUE(server.has_value()) << server.error();
  ApiStandIn api(standin_options());
  DbtProject first("shop");
  ProcessResult loaded = first.generate_data();
  ASSERT_EQ(loaded.exit_code, 0) << loaded.output << loaded.errors;
  DbtProject second("shop");  // another clone: no target/, no state, the same warehouse
  for (const DbtProject* clone : {&first, &second}) plant_secret_probes(*clone, kProbedVariables);
  std::vector<std::string> env = warehouse_env();
  env.push_back("SHOP_DUCKDB_PATH=" + (first.dir() / "shop.duckdb").string());
  const nlohmann::json run_inputs = {{"command", "run"}, {"state", state_url(**server)}, {"github-token", kToken}};
  nlohmann::json plan_inputs = run_inputs;
  plan_inputs["command"] = "plan";

  auto job1 = run_action(shop_action_spec(run_inputs, first.dir().parent_path(), api.url(), "main", 0, kToken, env));
  ASSERT_EQ(job1.at("conclusion"), "success") << job1.at("log");
  const int built = std::stoi(job1.at("outputs").at("built").get<std::string>());
  EXPECT_GT(built, 5);
  auto job2 = run_action(shop_action_spec(run_inputs, second.dir().parent_path(), api.url(), "main", 0, kToken, env));
  ASSERT_EQ(job2.at("conclusion"), "success") << job2.at("log");
  // All but what examples/shop builds every time (dim_customers; orders_daily settles on its 2nd run)
  // and the probes (a hook calling a macro, a Python model).
  const int built2 = std::stoi(job2.at("outputs").at("built").get<std::string>());
  EXPECT_LE(built2, 4) << job2.at("summary");
  EXPECT_EQ(built2 + std::stoi(job2.at("outputs").at("reused").get<std::string>()), built);
  EXPECT_FALSE(fs::exists(second.dir().parent_path() / ".ods-state" / "state.db"));

  second.replace_in("models/marts/fct_orders.sql", "o.amount,\n", "o.amount,\n    o.amount * 2 as doubled_amount,\n");
  auto writer_plan =
      run_action(shop_action_spec(plan_inputs, second.dir().parent_path(), api.url(), "feature", 7, kToken, env));
  EXPECT_EQ(writer_plan.at("conclusion"), "failure") << writer_plan.at("log");
  EXPECT_EQ(writer_plan.at("outputs").at("exit-code"), "1") << writer_plan.at("outputs");
  expect_refused_writer("the writer's plan", writer_plan.at("log"), writer_plan.at("summary"));
  plan_inputs["state"] = make_reader(**server, second);
  auto plan =
      run_action(shop_action_spec(plan_inputs, second.dir().parent_path(), api.url(), "feature", 7, kToken, env));
  ASSERT_EQ(plan.at("conclusion"), "success") << plan.at("log");
  EXPECT_GT(std::stoi(plan.at("outputs").at("reused").get<std::string>()), 5) << plan.at("summary");
  ASSERT_EQ(api.requests("POST").size(), 1u) << "the plans' one review comment: " << plan.at("log");
  EXPECT_EQ(api.requests("PATCH").size(), 1u) << "the reader's plan updates the refusal's comment";

  SecretSearch search = secret_search();
  for (const auto* job : {&job1, &job2, &writer_plan, &plan}) {
    const std::string name = job == &job1          ? "the first run job"
                             : job == &job2        ? "the second run job"
                             : job == &writer_plan ? "the writer's plan job"
                                                   : "the plan job";
    expect_masked_first(job->at("log"));
    EXPECT_TRUE(job->at("uses").empty()) << "no cache with PostgreSQL state: " << job->at("uses").dump();
    search.expect_clean(name + "'s log", without_mask_commands(job->at("log")));
    for (const auto& s : job->at("steps")) {
      search.expect_clean(name + "'s step " + s.value("name", "") + " log",
                          without_mask_commands(s.value("log", std::string())));
      search.expect_clean(name + "'s step " + s.value("name", "") + " outputs", s.at("outputs").dump());
    }
    search.expect_clean(name + "'s step summary", job->at("summary").get<std::string>());
    search.expect_clean(name + "'s outputs", job->at("outputs").dump());
  }
  // The workspaces: the projects' target/ and logs/, the plan JSON and summary, runner temp, and
  // what the probes wrote.
  for (const auto* clone : {&first, &second}) {
    expect_secret_probes_ran(*clone);
    EXPECT_GT(expect_clean_workspace(search, clone->dir().parent_path(), *clone), 20u);
  }
  expect_clean_requests(search, api);
  expect_clean_state(search, **server);
  report("GitHub Action", search);
}

// The GitLab template's run pipeline on the shared PostgreSQL state, then merge request pipelines'
// plans, with the writer's URL in ODS_STATE as a project-level variable (which overrides any job's
// variables) throughout: without ODS_STATE_READER the plan reads no production state and says so
// first (issue 39, item 13); with the writer's URL in ODS_STATE_READER it is refused; with the
// read-only role's it plans (issue 39, item 15: the plan jobs read ODS_STATE_READER alone, so the
// project-level ODS_STATE can't override it). Its merge request note is left to the GitHub test
// above (the same ci/common code writes both).
TEST(CiSecretsNeverLeak, GitLabRunPipelineOnAPostgresState) {
  auto server = PostgresServer::start();
  ASSERT_TRUE(server.has_value()) << server.error();
  ApiStandIn api(standin_options());
  GitLabRepo repo;
  repo.set_up([](const DbtProject& p) { plant_secret_probes(p, kProbedVariables); });
  ASSERT_FALSE(HasFatalFailure());
  std::vector<std::string> variables = warehouse_env();
  variables.insert(variables.end(), {"ODS_STATE=" + state_url(**server), std::string("ODS_GITLAB_TOKEN=") + kToken});

  ProcessResult run = repo.pipeline(api, 0, variables);
  ASSERT_EQ(run.exit_code, 0) << run.output << run.errors;
  const auto counts = GitLabRepo::dotenv_line(run.output);
  ASSERT_FALSE(counts.is_null()) << run.output;
  EXPECT_GT(std::stoi(counts.at("built").get<std::string>()), 5) << run.output;

  ProcessResult no_reader = repo.pipeline(api, 5, variables);
  EXPECT_EQ(no_reader.exit_code, 0) << no_reader.output << no_reader.errors;
  EXPECT_NE(no_reader.output.find("> **Warning: no production state was reachable,** so this"), std::string::npos)
      << no_reader.output;
  EXPECT_NE(no_reader.output.find("`ODS_STATE` is set, but this job reads production's state only through "
                                  "`ODS_STATE_READER`"),
            std::string::npos)
      << no_reader.output;

  std::vector<std::string> with_writer = variables;
  with_writer.push_back("ODS_STATE_READER=" + state_url(**server));
  ProcessResult writer_plan = repo.pipeline(api, 5, with_writer);
  EXPECT_NE(writer_plan.exit_code, 0) << writer_plan.output << writer_plan.errors;
  expect_refused_writer("the writer's merge request pipeline", writer_plan.output + writer_plan.errors,
                        writer_plan.output);
  variables.push_back("ODS_STATE_READER=" + make_reader(**server, repo.project()));
  ProcessResult plan = repo.pipeline(api, 5, variables);
  EXPECT_EQ(plan.exit_code, 0) << plan.output << plan.errors;
  EXPECT_TRUE(std::regex_search(plan.output, std::regex(", [1-9][0-9]* to reuse\\."))) << plan.output;

  SecretSearch search = secret_search();
  search.expect_clean("the run pipeline's output", run.output + run.errors);
  search.expect_clean("the merge request pipelines' output", no_reader.output + no_reader.errors + writer_plan.output +
                                                                 writer_plan.errors + plan.output + plan.errors);
  // The repository: the job logs (.gitlab-ci-local/output), artifacts, caches and the build folders.
  // gitlab-ci-local's own copies of the pipeline's variables (its expanded job scripts and
  // variable files, as a runner holds them) are the runner's, not anything the template wrote.
  const fs::path own = repo.dir() / ".gitlab-ci-local";
  EXPECT_GT(search.expect_clean_tree(repo.dir(),
                                     [&](const fs::path& p) {
                                       const auto rel = p.lexically_relative(own).string();
                                       return rel.starts_with("scripts/") || rel.starts_with("variables");
                                     }),
            20u);
  expect_secret_probes_ran(repo.project());  // the probes write beside the project copied in
  expect_clean_workspace(search, repo.project().dir(), repo.project());
  expect_clean_requests(search, api);
  expect_clean_state(search, **server);
  report("GitLab template", search);
}

}  // namespace
}  // namespace ods::testing
