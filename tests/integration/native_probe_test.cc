// The native PostgreSQL probe answers as the dbt show probe does (issue 41 item 3,
// ods/postgres/native_probe.h): after `ods state run --target pg` built examples/shop, the
// requests a run's probe sends (the sources' evidence with the relations' identities, under the
// default content limit and under 0; the built nodes' content) go through `dbt show` and through
// libpq, connected from the profile dbt uses, and the reports agree field by field but for the
// seconds. Both calls' wall times are printed (docs/warehouses.md, "Native probe").
#include "ods/postgres/native_probe.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "harness/postgres_shop.h"
#include "harness/probe_compare.h"
#include "harness/shop_baseline.h"
#include "ods/dbt/dbt_command.h"
#include "ods/dbt/profile_output.h"
#include "ods/dbt/show_probe.h"
#include "ods/postgres/postgres_identity.h"
#include "ods/postgres/postgres_versions.h"
#include "ods/postgres/profile_connection.h"

namespace ods::testing {
namespace {

using contracts::ProbeAnswer;
using contracts::ProbeReport;
using contracts::ProbeRequest;

constexpr const char* kLoaded = "shop_native_loaded";
constexpr const char* kPassword = "n4tive-pr0be-secret";  // trust auth: accepted, and must never come back

class NativeProbe : public PostgresShopFixture {
 protected:
  NativeProbe() : PostgresShopFixture(kLoaded, {std::string("SHOP_PG_PASSWORD=") + kPassword}) {}

  static void SetUpTestSuite() { load_shop_raw_tables(kLoaded); }

  // examples/shop built and recorded by `ods state run --target pg` in a fresh copy of the raw tables.
  void SetUp() override {
    PostgresShopFixture::SetUp();
    if (HasFatalFailure()) return;
    // --write-manifest: relations_of() reads target/manifest.json, which a run writes only when asked.
    ODS_ASSERT_OK(ods_state_run({"--write-manifest"}));
  }

  std::string getenv(const std::string& name) const {
    for (const auto& entry : project_->env())
      if (entry.starts_with(name + "=")) return entry.substr(name.size() + 1);
    const char* value = std::getenv(name.c_str());
    return value ? value : "";
  }

  // The connection dbt would use, read from the project's profile as dbt reads it.
  postgres::NativeConnection connection() const {
    auto getenv = [this](const std::string& name) { return this->getenv(name); };
    auto choice = dbt::choose_target(project_->dir(), "pg", project_->dir().string(), getenv);
    EXPECT_TRUE(choice);
    auto output = dbt::read_profile_output(*choice, getenv);
    EXPECT_TRUE(output) << output.error();
    auto connection = postgres::connection_from_profile(output->target, output->fields);
    EXPECT_TRUE(connection) << connection.error();
    return *connection;
  }

  // Runs `request` both ways, compares, prints the wall times.
  void compare(const ProbeRequest& request, const std::string& what) {
    HarnessDbt dbt(*project_);
    auto show = dbt::make_show_probe(dbt, {{"--target", "pg"}});
    auto native = postgres::make_native_postgres_probe(connection(), relations_of(*project_));
    auto reports = compare_probes(*show, *native, request, "native probe", what);
    ASSERT_TRUE(reports);
    auto& natively = reports->second;
    EXPECT_EQ(nlohmann::json(natively.target).dump().find(kPassword), std::string::npos);
    last_native_ = std::move(natively);
  }

  // `ods state run --dry-run` on the recorded shop with `env` added: the plan's decisions
  // (node id -> action and reasons) and the command's stderr (its step lines and warnings).
  std::pair<std::map<std::string, std::string>, std::string> dry_run(const std::vector<std::string>& env);
  ProbeReport last_native_;  // compare()'s native report (the dbt one agrees with it)
};

// The run's request: the sources' evidence and every node's relation with its identity.
ProbeRequest run_request(unsigned long long content_max_bytes) {
  ProbeRequest request = postgres::make_postgres_versions({content_max_bytes})->request();
  request.identity_statements = postgres::identity_statements(postgres::IdentityRead::checking);
  return request;
}

TEST_F(NativeProbe, TheRunsSourceRequestIsAnsweredAsDbtAnswersIt) {
  compare(run_request(128ULL * 1024 * 1024), "sources by content");
  compare(run_request(0), "sources by statistics");
}

TEST_F(NativeProbe, TheBuiltNodesContentIsAnsweredAsDbtAnswersIt) {
  ProbeRequest request = postgres::make_postgres_versions({128ULL * 1024 * 1024})->content_request();
  request.sources = false;
  for (const auto& node : relations_of(*project_).nodes) request.content_nodes.push_back(node.id);
  request.content_nodes.push_back("model.shop.no_such_model");
  request.content_nodes.push_back("test.shop.not_a_relation");
  compare(request, "built nodes' content");
  request.shares = 2;
  request.share = 1;
  compare(request, "built nodes' content, share 1 of 2");
}

// Relations the run did not leave: a source gone, a source that is now a view, a model's view
// replaced by a materialized view (another kind: skipped by the content filter, read by its
// identity statement), a model's table dropped.
TEST_F(NativeProbe, MissingRelationsAndOtherKindsAreAnsweredAsDbtAnswersThem) {
  ODS_ASSERT_OK(
      pg_->psql("alter table raw.customers rename to customers_gone; "
                "alter table raw.payments rename to payments_t; "
                "create view raw.payments as select * from raw.payments_t; "
                "drop view main.stg_payments; create materialized view main.stg_payments as select 1 as x; "
                "drop table main.orders_daily",
                kDatabase));
  compare(run_request(128ULL * 1024 * 1024), "changed relations, sources");
  ProbeRequest request = postgres::make_postgres_versions({128ULL * 1024 * 1024})->content_request();
  request.sources = false;
  for (const auto& node : relations_of(*project_).nodes) request.content_nodes.push_back(node.id);
  compare(request, "changed relations, built nodes' content");
}

// relation_probe 0.10: a skipped statement is never sent. Its SQL here fails if PostgreSQL runs
// it (division by zero), so both probes succeeding proves neither sent it; the relations are
// still checked, their other statement runs and the nodes' identities are still read.
TEST_F(NativeProbe, ASkippedStatementIsNeverSentAndTheRestIsAnsweredAsDbtAnswersIt) {
  ProbeRequest request = run_request(128ULL * 1024 * 1024);
  ASSERT_EQ(request.statements.size(), 2u);
  ASSERT_EQ(request.statements[1].name, "content");
  const ProbeRequest real = request;
  request.statements[1].sql = "select (1 / 0)::text as row_count from {relation}";
  for (const auto& source : relations_of(*project_).sources) request.skip_statements[source.id] = {"content"};
  compare(request, "every source's content skipped");
  std::size_t skipped = 0;
  for (const auto& [id, answer] : last_native_.sources) {
    if (answer.status != ProbeAnswer::Status::ok) continue;
    ++skipped;
    EXPECT_EQ(answer.statements_skipped, std::vector<std::string>{"content"}) << id;
    EXPECT_FALSE(answer.rows.contains("content")) << id;
    EXPECT_TRUE(answer.rows.contains("metadata")) << id;
  }
  EXPECT_GT(skipped, 0u);

  // One source skipped: only its content is left out.
  request = real;
  const std::string orders = "source.shop.raw.orders";
  request.skip_statements[orders] = {"content"};
  compare(request, "one source's content skipped");
  ASSERT_EQ(last_native_.sources.at(orders).status, ProbeAnswer::Status::ok);
  EXPECT_FALSE(last_native_.sources.at(orders).rows.contains("content"));
  for (const auto& [id, answer] : last_native_.sources)
    if (id != orders && answer.status == ProbeAnswer::Status::ok) {
      EXPECT_TRUE(answer.statements_skipped.empty()) << id;
      EXPECT_TRUE(answer.rows.contains("content")) << id;
    }
}

TEST_F(NativeProbe, AFailedConnectionIsProbeFailedWithoutThePassword) {
  postgres::NativeConnection bad = connection();
  bad.conninfo += " port=1";
  auto report = postgres::make_native_postgres_probe(bad, relations_of(*project_))->probe(ProbeRequest{});
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code, "probe_failed");
  EXPECT_NE(report.error().message.find("PostgreSQL: "), std::string::npos) << report.error().message;
  EXPECT_EQ(report.error().message.find(kPassword), std::string::npos) << report.error().message;
}

std::pair<std::map<std::string, std::string>, std::string> NativeProbe::dry_run(const std::vector<std::string>& env) {
  project_->add_env(env);
  ProcessResult r = ods_state_run({"--dry-run", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  EXPECT_EQ((r.output + r.errors).find(kPassword), std::string::npos) << "the password was printed";
  std::map<std::string, std::string> decisions;
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  if (doc.is_discarded() || !doc.contains("plan")) {
    ADD_FAILURE() << r.output << r.errors;
    return {decisions, r.errors};
  }
  for (const auto& e : doc.at("plan").at("entries"))
    decisions[e.at("id").get<std::string>()] = e.at("action").get<std::string>() + " " + e.at("reasons").dump();
  return {decisions, r.errors};
}

std::size_t reused(const std::map<std::string, std::string>& decisions) {
  std::size_t n = 0;
  for (const auto& [id, d] : decisions) n += d.starts_with("reuse");
  return n;
}

// The command's probe (issue 41 item 3): on PostgreSQL `ods state run` probes natively unless
// $ODS_NATIVE_PROBE is "off", the step line says which probe ran, and both plan alike against
// what the (native) run in SetUp recorded.
TEST_F(NativeProbe, ARunProbesNativelyAndPlansAsThroughDbtShow) {
  auto [native, native_log] = dry_run({"ODS_NATIVE_PROBE=on"});
  EXPECT_NE(native_log.find("relations (native probe, no dbt process)"), std::string::npos) << native_log;
  EXPECT_EQ(native_log.find("warning"), std::string::npos) << native_log;
  auto [shown, shown_log] = dry_run({"ODS_NATIVE_PROBE=off"});
  EXPECT_NE(shown_log.find("(one dbt show call; not the native probe: ODS_NATIVE_PROBE is off)"), std::string::npos)
      << shown_log;
  EXPECT_EQ(native, shown);
  EXPECT_GT(reused(native), 0u);
}

// A profile the native probe can't render as dbt does (a Jinja filter it doesn't know) leaves
// the probe to dbt show, and the step line says why.
TEST_F(NativeProbe, AProfileItCannotRenderLeavesTheProbeToDbtShowWithTheReason) {
  auto [before, before_log] = dry_run({});
  std::string profiles = project_->read("profiles.yml");
  const std::string host = "host: \"{{ env_var('SHOP_PG_HOST', '127.0.0.1') }}\"";
  const std::size_t at = profiles.find(host);
  ASSERT_NE(at, std::string::npos) << profiles;
  profiles.replace(at, host.size(), "host: \"{{ env_var('SHOP_PG_HOST', '127.0.0.1') | trim }}\"");
  project_->write("profiles.yml", profiles);
  auto [after, after_log] = dry_run({});
  EXPECT_NE(after_log.find("(one dbt show call; not the native probe: field 'host': "), std::string::npos) << after_log;
  EXPECT_EQ(before, after);
}

// A native probe that fails is followed by dbt show for that call, with a warning quoting why:
// here a source in another database, which the native probe refuses while dbt only lists its
// schema (ods/postgres/native_probe.h, "knowingly").
TEST_F(NativeProbe, AFailedNativeProbeIsFollowedByDbtShowWithAWarning) {
  project_->write("models/staging/_sources.yml", project_->read("models/staging/_sources.yml") +
                                                     "\n  - name: elsewhere\n    database: nosuchdb\n"
                                                     "    schema: raw\n    tables:\n      - name: not_here\n");
  auto [shown, shown_log] = dry_run({"ODS_NATIVE_PROBE=off"});
  auto [fallen_back, log] = dry_run({"ODS_NATIVE_PROBE=on"});
  EXPECT_NE(log.find("relations (native probe, no dbt process)"), std::string::npos) << log;
  EXPECT_NE(log.find("ods: warning: the native probe failed (PostgreSQL: source.shop.elsewhere.not_here is in "
                     "database 'nosuchdb'"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("probed through dbt show instead"), std::string::npos) << log;
  EXPECT_EQ(fallen_back, shown);
}

}  // namespace
}  // namespace ods::testing
