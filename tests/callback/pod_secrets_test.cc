// No secret of ODS reaches a process it starts (issue 26, the runner pod): `ods pod` configured as
// the operator's runner Job configures it (docs/kubernetes.md, "The Job a run gets": the callback
// URL, the run and the token file in the environment, $ODS_DIGEST_KEY from the project's Secret,
// $ODS_GIT_CREDENTIALS_DIR naming a mounted git Secret) on a copy of examples/shop with planted
// models, macros and hooks that read those variables every way dbt code can, and follow a path to
// its file, and read the Secret volumes at their paths (harness/secret_probes.h). Everything the pod
// printed, every file of the project and of the pod's home and temporary directory, and what the
// controller recorded are searched for the token, the digest key and the git password; what the
// probes read at the mount paths holds the token and the git password (docs/security.md, "Files
// are not variables") and nothing else of ODS's.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>

#include "callback_fixture.h"
#include "harness/secret_probes.h"
#include "harness/secret_search.h"
#include "harness/temp_dir.h"
#include "ods/callback/run_token.h"

namespace ods::testing {
namespace {

constexpr const char* kDigestKey = "dk-Pod-Secret-6b1f03c27a9e4d58";
constexpr const char* kGitPassword = "git-Pod-Secret-93d1c4";

TEST(PodSecrets, DbtInTheRunnerPodSeesNeitherTheTokenNorTheDigestKeyNorTheGitSecret) {
  auto store = fresh_postgres_store();
  ASSERT_NE(store, nullptr);
  TestRuns runs;
  PhaseLog log;
  auto server = start_test_server(runs, log, *store);
  ASSERT_NE(server, nullptr);
  runs.add("team", "run-1", "uid-1");
  const std::string token = callback::RunTokens::from_key(kControllerKey)->token_for("team", "run-1", "uid-1");

  // The Secret volumes, outside the project (as in the pod: /var/run/ods/run, /var/run/ods/git).
  TempDir secrets("pod-secrets");
  std::filesystem::create_directories(secrets.path() / "git");
  std::ofstream(secrets.path() / "token") << token << "\n";
  std::ofstream(secrets.path() / "git" / "username") << "ci";
  std::ofstream(secrets.path() / "git" / "password") << kGitPassword;

  auto p = shop_project();
  // The probes also read the Secret volumes at their paths, as code in a pod can read
  // /var/run/ods/run/token and /var/run/ods/git/* whether or not a variable names them.
  plant_secret_probes(*p, {"ODS_DIGEST_KEY", "ODS_RUN_TOKEN_FILE", "ODS_GIT_CREDENTIALS_DIR"},
                      {secrets.path() / "token", secrets.path() / "git"});
  const RunPlaces places(*p);  // the pod's own HOME and TMPDIR (in a pod: under /var/run/ods/work and /tmp)
  p->add_env({"ODS_CALLBACK_URL=" + server->url(), "ODS_RUN=team/run-1",
              "ODS_RUN_TOKEN_FILE=" + (secrets.path() / "token").string(),
              "ODS_GIT_CREDENTIALS_DIR=" + (secrets.path() / "git").string(),
              std::string("ODS_DIGEST_KEY=") + kDigestKey, std::string(kProbeMarkerVariable) + "=visible"});
  SecretSearch search({{"callback token", token}, {"digest key", kDigestKey}, {"git password", kGitPassword}});

  ProcessResult pod = p->ods(
      {"pod", "--profiles-dir", p->dir().string(), "--retry-for", "120", "--dbt", (venv_bin() / "dbt").string()});
  EXPECT_EQ(pod.exit_code, 0) << pod.output << pod.errors;
  search.expect_clean("the output of ods pod", pod.output + pod.errors);
  expect_secret_probes_ran(*p);
  // What the probes read at the mount paths: the token and the git Secret, as docs/security.md
  // says ("Files are not variables": the pod's user can read its Secret volumes), and nothing
  // else of ODS's; every other file of the project, and the pod's home and temporary directory,
  // hold no secret at all.
  const std::filesystem::path mounts = secret_probe_mounts_file(*p);
  const std::string mounted = read_text_file(mounts);
  EXPECT_NE(mounted.find(token), std::string::npos) << "the probes did not read the token at its path";
  EXPECT_NE(mounted.find(kGitPassword), std::string::npos) << "the probes did not read the git Secret at its path";
  SecretSearch digest_key(std::vector<std::pair<std::string, std::string>>{{"digest key", kDigestKey}});
  digest_key.expect_clean(mounts.string(), mounted);
  const std::size_t files = search.expect_clean_tree(p->dir(), [&](const std::filesystem::path& f) {
    return f == mounts;
  }) + search.expect_clean_tree(places.path());

  auto recorded = recorded_runs(*store);
  ASSERT_TRUE(recorded.contains("uid-1"));
  EXPECT_EQ(recorded["uid-1"].outcome, "success");
  for (const auto& [uid, run] : recorded) search.expect_clean("the ledger entry of " + uid, run.plan + run.details);
  auto latest = store->latest("shop/default");
  ASSERT_TRUE(latest && *latest);
  search.expect_clean("the recorded snapshot", (*latest)->document);
  std::cout << "pod secrets: the pod's output, " << files << " project files and the recorded run searched for "
            << search.forms() << " forms of 3 secrets" << std::endl;
}

}  // namespace
}  // namespace ods::testing
