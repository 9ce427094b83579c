// No secret of ODS reaches a process it starts (issue 26, the CLI): examples/shop with planted
// models, macros and hooks that read the state URL and the digest key every way dbt code can
// (harness/secret_probes.h), run by `ods state run` (also `--dry-run`, a CI plan), `ods state plan` and `ods state
// test` with $ODS_STATE a PostgreSQL URL holding a password and $ODS_DIGEST_KEY set. Everything ods printed, every file
// of the project (dbt's log, target/*.json, compiled SQL, the DuckDB file, the files the probes wrote), of the runs'
// own home and temporary directory, and every row of the state database are searched for both.
#include <gtest/gtest.h>

#include <iostream>

#include "harness/secret_probes.h"
#include "harness/secret_search.h"
#include "pg_fixture.h"

namespace ods::testing {
namespace {

constexpr const char* kStatePassword = "st8-Child-Secret-4e1b9a";
constexpr const char* kDigestKey = "dk-Child-Secret-0a7c52e9d3f14b68";

TEST(ChildSecrets, DbtStartedByTheCliSeesNeitherTheStateUrlNorTheDigestKey) {
  PostgresServer* server = shared_postgres();
  ASSERT_NE(server, nullptr);
  const std::string dsn = fresh_database();
  const std::string db = dsn.substr(dsn.find("dbname=") + 7);
  // The test server trusts the loopback: the password is carried, not checked.
  const std::string url = "postgresql://" + server->user() + ":" + kStatePassword +
                          "@127.0.0.1:" + std::to_string(server->port()) + "/" + db;
  SecretSearch search({{"state password", kStatePassword}, {"state URL", url}, {"digest key", kDigestKey}});

  DbtProject p("shop");
  ASSERT_EQ(p.generate_data().exit_code, 0);
  plant_secret_probes(p, {"ODS_DIGEST_KEY", "ODS_STATE"});
  const RunPlaces places(p);  // the runs' own HOME and TMPDIR, searched below
  p.add_env({"ODS_STATE=" + url, std::string("ODS_DIGEST_KEY=") + kDigestKey,
             std::string(kProbeMarkerVariable) + "=visible"});

  const std::vector<std::vector<std::string>> commands{
      {"state", "run", "--profiles-dir", p.dir().string()},
      {"state", "run", "--dry-run", "--profiles-dir", p.dir().string()},
      {"state", "plan"},
      {"state", "run", "--profiles-dir", p.dir().string(), "--format", "json"},
      {"state", "test", "--profiles-dir", p.dir().string(), "--state", url},  // the URL in ods's argv too
  };
  for (const auto& args : commands) {
    ProcessResult r = p.ods(args);
    std::string what = "ods";
    for (const auto& a : args) what += " " + a;
    EXPECT_EQ(r.exit_code, 0) << what << "\nstdout:\n" << r.output << "\nstderr:\n" << r.errors;
    search.expect_clean("the output of " + what, r.output + r.errors);
  }
  expect_secret_probes_ran(p);
  // The Python model's own environment (the file's part before its parent's): the user's
  // variables, not ODS's secrets, not even their names.
  const std::string python_env = secret_probe_own_environment(p);
  EXPECT_NE(python_env.find("ODS_DBT="), std::string::npos) << "the user's own ODS_ settings reach dbt";
  EXPECT_EQ(python_env.find("ODS_STATE="), std::string::npos);
  EXPECT_EQ(python_env.find("ODS_DIGEST_KEY="), std::string::npos);

  const std::size_t files = search.expect_clean_tree(p.dir()) + search.expect_clean_tree(places.path());
  ProcessResult rows = server->dump_all_rows();
  ASSERT_EQ(rows.exit_code, 0) << rows.errors;
  search.expect_clean("the state database's rows", rows.output);
  std::cout << "child secrets: " << commands.size() << " commands' output, " << files
            << " files of the project, the runs' home and temporary directory, and the state database searched for "
            << search.forms() << " forms of 3 secrets" << std::endl;
}

}  // namespace
}  // namespace ods::testing
