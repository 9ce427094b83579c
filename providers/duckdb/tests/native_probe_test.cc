// The native DuckDB probe (ods/duckdb/native_probe.h): the profile's output as the database it
// opens (and every field that leaves the probe to dbt), and the program itself, run by ./.venv's
// Python on a real DuckDB file: listing, branches, gates, skip lists, identities, missing
// relations, a database locked by a writer. That it answers as the dbt show probe does, through
// real dbt-duckdb: tests/integration/duckdb_native_probe_test.cc.
#include "ods/duckdb/native_probe.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "harness/source_paths.h"
#include "harness/temp_dir.h"

namespace ods::duckdb {
namespace {

namespace fs = std::filesystem;
using contracts::ProbeAnswer;

fs::path venv_python() { return testing::source_dir() / ".venv" / "bin" / "python"; }

std::map<std::string, std::string> shop_dev() {
  return {{"type", "duckdb"}, {"path", "shop.duckdb"}, {"threads", "2"}};
}

TEST(DuckDbProfileDatabase, ReadsPathDatabaseAndSchemaAsDbtDuckDbDoes) {
  auto db = database_from_profile("dev", shop_dev(), {});
  ASSERT_TRUE(db) << db.error();
  EXPECT_EQ(db->path, "shop.duckdb");
  EXPECT_EQ(db->target.at("database"), "shop");
  EXPECT_EQ(db->target.at("schema"), "main");
  EXPECT_EQ(db->target.at("name"), "dev");
  EXPECT_EQ(db->target.at("type"), "duckdb");
  auto fields = shop_dev();
  fields["path"] = "/data/warehouse.v2.duckdb";
  fields["schema"] = "analytics";
  fields["database"] = "warehouse.v2";
  auto other = database_from_profile("prod", fields, {"retries", "module_paths"});
  ASSERT_TRUE(other) << other.error();
  EXPECT_EQ(other->target.at("database"), "warehouse.v2");
  EXPECT_EQ(other->target.at("schema"), "analytics");
}

TEST(DuckDbProfileDatabase, LeavesToDbtWhatItDoesNotDoAsDbtDoes) {
  const std::vector<std::pair<std::string, std::string>> refused{{"path", ":memory:"},
                                                                 {"path", "md:my_db"},
                                                                 {"path", "ducklake:metadata.ducklake"},
                                                                 {"path", "s3://bucket/db.duckdb"},
                                                                 {"path", "shop.duckdb?x=1"},
                                                                 {"database", "other"},
                                                                 {"is_ducklake", "true"},
                                                                 {"use_credential_provider", "aws"},
                                                                 {"motherduck_token", "x"},
                                                                 {"type", "postgres"}};
  for (const auto& [field, value] : refused) {
    auto fields = shop_dev();
    fields[field] = value;
    auto db = database_from_profile("dev", fields, {});
    EXPECT_FALSE(db) << field << "=" << value;
    if (!db) {
      EXPECT_NE(db.error().find("dev"), std::string::npos) << db.error();
    }
  }
  auto no_path = shop_dev();
  no_path.erase("path");
  EXPECT_FALSE(database_from_profile("dev", no_path, {}));
  for (const char* structured :
       {"attach", "extensions", "plugins", "settings", "config_options", "secrets", "filesystems", "remote"}) {
    auto db = database_from_profile("dev", shop_dev(), {structured});
    ASSERT_FALSE(db) << structured;
    EXPECT_NE(db.error().find(structured), std::string::npos) << db.error();
  }
  auto unknown = database_from_profile("dev", shop_dev(), {"some_new_option"});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("some_new_option"), std::string::npos);
}

class NativeDuckDbProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_python(
        "import duckdb\ncon = duckdb.connect('warehouse.duckdb')\n"
        "con.execute(\"create schema raw; create table raw.orders as select range as id from range(5); "
        "create view raw.orders_view as select * from raw.orders; create schema main2; "
        "create table main2.built as select 1 as x; checkpoint\")\ncon.close()\n");
    relations_.sources = {{"source.p.raw.orders", "warehouse", "raw", "orders"},
                          {"source.p.raw.orders_view", "warehouse", "raw", "ORDERS_VIEW"},
                          {"source.p.raw.gone", "warehouse", "raw", "gone"}};
    relations_.nodes = {{"model.p.built", "warehouse", "main2", "built"},
                        {"model.p.unbuilt", "warehouse", "nowhere", "unbuilt"}};
  }

  void run_python(const std::string& program) {
    std::ofstream(dir_.path() / "setup.py") << program;
    const std::string command =
        "cd " + dir_.path().string() + " && " + venv_python().string() + " setup.py > /dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  Result<contracts::ProbeReport> probe(const contracts::ProbeRequest& request) {
    auto db = database_from_profile("dev", {{"type", "duckdb"}, {"path", "warehouse.duckdb"}}, {});
    EXPECT_TRUE(db);
    return make_native_duckdb_probe(*launcher_, {venv_python(), dir_.path()}, *db, relations_)->probe(request);
  }

  testing::TempDir dir_;
  std::unique_ptr<process::ProcessLauncher> launcher_ = process::make_process_launcher({});
  contracts::ProjectRelations relations_;
};

TEST_F(NativeDuckDbProbeTest, AnswersSourcesNodesAndIdentitiesAsTheDbtShowProgramDoes) {
  contracts::ProbeRequest request;
  request.filter.kinds = {"table"};
  request.statements = {
      {"count", "select count(*)::varchar as n from {relation}"},
      {"big", "select 'ran' as said from {relation}", 1, "", contracts::ProbeCondition{"count", "n", 3}},
      {"named", "select '{schema}.{identifier}.{database}' as name"}};
  request.fallback = contracts::ProbeFallback{{{"view"}, {}}, {{"rows", "select 7 as n, true as b, null as z"}}};
  request.identity_statements = {{"table", "select 'id-' || count(*)::varchar as identity from {relation}"}};
  request.skip_statements = {{"source.p.raw.orders", {"named"}}};
  request.content_nodes = {"model.p.built", "model.p.absent"};
  auto report = probe(request);
  ASSERT_TRUE(report) << report.error().message;

  const ProbeAnswer& orders = report->sources.at("source.p.raw.orders");
  EXPECT_EQ(orders.status, ProbeAnswer::Status::ok);
  EXPECT_EQ(orders.rows.at("count").at("n"), "5");
  EXPECT_FALSE(orders.rows.contains("big")) << "5 rows is over the gate's 3";
  EXPECT_EQ(orders.statements_skipped, std::vector<std::string>{"named"});
  const ProbeAnswer& view = report->sources.at("source.p.raw.orders_view");
  EXPECT_EQ(view.branch, 1u);
  EXPECT_TRUE(view.fallback);
  EXPECT_EQ(view.rows.at("rows"), (contracts::ProbeRow{{"n", "7"}, {"b", "True"}}));
  EXPECT_EQ(report->sources.at("source.p.raw.gone").status, ProbeAnswer::Status::missing);
  EXPECT_EQ(report->sources.at("source.p.raw.gone").why, "relation warehouse.raw.gone does not exist");

  EXPECT_EQ(report->relations_exist,
            (std::map<std::string, bool>{{"model.p.built", true}, {"model.p.unbuilt", false}}));
  EXPECT_EQ(report->relation_kinds.at("model.p.built"), "table");
  EXPECT_EQ(report->relation_identities.at("model.p.built"), "id-1");
  EXPECT_EQ(report->contents.at("model.p.built").rows.at("named").at("name"), "main2.built.warehouse");
  EXPECT_EQ(report->contents.at("model.p.absent").why, "no relation for model.p.absent in the project");
  EXPECT_EQ(report->target.at("database"), "warehouse");
  EXPECT_GT(report->call_seconds, 0);
}

TEST_F(NativeDuckDbProbeTest, AStatementDuckDbRefusesFailsTheCallQuotingIt) {
  contracts::ProbeRequest request;
  request.statements = {{"bad", "select no_such_column from {relation}"}};
  auto report = probe(request);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code, "probe_failed");
  EXPECT_NE(report.error().message.find("no_such_column"), std::string::npos) << report.error().message;
}

TEST_F(NativeDuckDbProbeTest, ADatabaseAWriterHoldsIsRefusedAsLocked) {
  // A writer holds the file (read-write) while the probe runs.
  const fs::path ready = dir_.path() / "ready";
  const std::string holder = "cd " + dir_.path().string() + " && " + venv_python().string() +
                             " -c \"import duckdb, time; c = duckdb.connect('warehouse.duckdb'); open('ready', "
                             "'w').close(); time.sleep(20)\" > /dev/null 2>&1 & echo $! > " +
                             (dir_.path() / "holder.pid").string();
  ASSERT_EQ(std::system(holder.c_str()), 0);
  for (int i = 0; i < 200 && !fs::exists(ready); ++i) EXPECT_EQ(std::system("sleep 0.05"), 0);
  ASSERT_TRUE(fs::exists(ready));
  auto report = probe(contracts::ProbeRequest{});
  EXPECT_EQ(std::system(("kill $(cat " + (dir_.path() / "holder.pid").string() + ")").c_str()), 0);
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().message.find("locked by another process"), std::string::npos) << report.error().message;
}

TEST_F(NativeDuckDbProbeTest, AMissingFileOrInterpreterFailsTheCall) {
  auto db = database_from_profile("dev", {{"type", "duckdb"}, {"path", "nothing.duckdb"}}, {});
  ASSERT_TRUE(db);
  auto missing = make_native_duckdb_probe(*launcher_, {venv_python(), dir_.path()}, *db, relations_)->probe({});
  EXPECT_FALSE(missing);
  EXPECT_FALSE(fs::exists(dir_.path() / "nothing.duckdb")) << "read-only: nothing is created";
  auto no_python =
      make_native_duckdb_probe(*launcher_, {dir_.path() / "no-python", dir_.path()}, *db, relations_)->probe({});
  ASSERT_FALSE(no_python);
  EXPECT_NE(no_python.error().message.find("could not start"), std::string::npos) << no_python.error().message;
}

TEST(DuckDbNativeProbeSource, IsTheProgramImportingDuckDbAndNotDbt) {
  const std::string source(native_probe_source());
  EXPECT_NE(source.find("import duckdb"), std::string::npos);
  EXPECT_EQ(source.find("import dbt"), std::string::npos);
  EXPECT_NE(source.find("read_only=True"), std::string::npos);
}

}  // namespace
}  // namespace ods::duckdb
