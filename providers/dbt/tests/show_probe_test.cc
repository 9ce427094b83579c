// The dbt show probe: its program is fixed-size, its answer is read from the ShowNode event,
// and every failure is an error that quotes dbt.
#include "ods/dbt/show_probe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ods::dbt {
namespace {

using nlohmann::json;

class FakeDbt final : public DbtCommand {
 public:
  DbtCommandResult next;
  std::vector<std::string> last_args;
  ods::Result<DbtCommandResult> run(const std::vector<std::string>& args) override {
    last_args = args;
    return next;
  }
};

std::string show_event(const json& answer) {
  json preview = json::array({{{"ods_probe", answer.dump()}}});
  return json{{"info", {{"name", "ShowNode"}, {"level", "info"}}}, {"data", {{"preview", preview.dump()}}}}.dump();
}

contracts::ProbeRequest request() {
  contracts::ProbeRequest r;
  r.filter.kinds = {"table"};
  r.statements = {{"content", "select count(*) as row_count from {relation}"}};
  return r;
}

TEST(ShowProbe, ProgramIteratesTheGraphAndHasNoProjectNames) {
  std::string program = show_probe_program(request());
  EXPECT_NE(program.find("graph.sources.keys() | sort"), std::string::npos);
  EXPECT_NE(program.find("graph.nodes.values()"), std::string::npos);
  EXPECT_NE(program.find("select count(*) as row_count from {relation}"), std::string::npos);
  EXPECT_LT(program.size(), 10500u);  // fixed: nothing in it grows with the project
}

TEST(ShowProbe, ReadsSourcesAndRelationsFromTheShowNodeEvent) {
  FakeDbt dbt;
  json answer = {
      {"sources",
       {{"source.p.raw.a", {{"status", "ok"}, {"rows", {{"content", {{"row_count", "3"}}}}}, {"seconds", 0.5}}},
        {"source.p.raw.b", {{"status", "missing"}, {"why", "relation p.raw.b does not exist"}}},
        {"source.p.raw.c", {{"status", "skipped"}, {"why", "a view, not table"}}}}},
      {"nodes", {{"model.p.m", true}, {"model.p.gone", false}}},
      {"node_kinds", {{"model.p.m", "table"}}}};
  dbt.next.events = {R"({"info": {"name": "MainReportVersion"}})", show_event(answer)};
  auto probe = make_show_probe(dbt, {{"--target", "dev"}});
  auto report = probe->probe(request());
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(dbt.last_args[0], "show");
  EXPECT_EQ(dbt.last_args.back(), "dev");
  EXPECT_NE(std::find(dbt.last_args.begin(), dbt.last_args.end(), "--no-write-json"), dbt.last_args.end())
      << "the answer is in the events; the call writes no manifest";
  EXPECT_NE(std::find(dbt.last_args.begin(), dbt.last_args.end(), "--no-populate-cache"), dbt.last_args.end())
      << "the program lists the relations it reads itself";
  ASSERT_EQ(report->sources.size(), 3u);
  EXPECT_EQ(report->sources["source.p.raw.a"].status, contracts::ProbeAnswer::Status::ok);
  EXPECT_EQ(report->sources["source.p.raw.a"].rows["content"]["row_count"], "3");
  EXPECT_DOUBLE_EQ(report->sources["source.p.raw.a"].seconds, 0.5);
  EXPECT_EQ(report->sources["source.p.raw.b"].status, contracts::ProbeAnswer::Status::missing);
  EXPECT_EQ(report->sources["source.p.raw.c"].status, contracts::ProbeAnswer::Status::skipped);
  EXPECT_TRUE(report->relations_exist.at("model.p.m"));
  EXPECT_FALSE(report->relations_exist.at("model.p.gone"));
  EXPECT_EQ(report->relation_kinds.at("model.p.m"), "table");  // 0.8: the kind as listed
  EXPECT_FALSE(report->relation_kinds.contains("model.p.gone"));
}

// relation_probe 0.3: nodes named in content_nodes get the statements; their answers are `contents`.
TEST(ShowProbe, ContentNodesAreNamedInTheProgramAndAnsweredApart) {
  contracts::ProbeRequest r = request();
  r.sources = false;
  r.content_nodes = {"model.p.stg"};
  EXPECT_NE(show_probe_program(r).find(R"('contents': ["model.p.stg"])"), std::string::npos);
  FakeDbt dbt;
  json answer = {{"sources", json::object()},
                 {"nodes", json::object()},
                 {"contents",
                  {{"model.p.stg", {{"status", "ok"}, {"rows", {{"content", {{"row_count", "7"}}}}}}},
                   {"model.p.gone", {{"status", "missing"}, {"why", "no relation for model.p.gone in the project"}}}}}};
  dbt.next.events = {show_event(answer)};
  auto report = make_show_probe(dbt, {})->probe(r);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->sources.empty());
  EXPECT_EQ(report->contents.at("model.p.stg").rows["content"]["row_count"], "7");
  EXPECT_EQ(report->contents.at("model.p.gone").status, contracts::ProbeAnswer::Status::missing);
}

// relation_probe 0.9: the identity statements travel in the program, per relation kind, and
// each existing node's identity comes back in relation_identities (an empty one is none).
TEST(ShowProbe, IdentityStatementsAreCarriedAndTheirAnswersRead) {
  contracts::ProbeRequest r = request();
  r.identity_statements = {{"table", "select 'oid=' || 1 as identity from {relation}"}};
  const std::string program = show_probe_program(r);
  EXPECT_NE(program.find(R"({"table":"select 'oid=' || 1 as identity from {relation}"})"), std::string::npos);
  EXPECT_NE(program.find("union all"), std::string::npos);  // a schema's relations in one query
  EXPECT_NE(show_probe_program(request()).find("set ods_identity = {}"), std::string::npos);  // none asked
  FakeDbt dbt;
  json answer = {{"sources", json::object()},
                 {"nodes", {{"model.p.m", true}, {"model.p.v", true}}},
                 {"identities", {{"model.p.m", "oid=1;relfilenode=2"}, {"model.p.v", ""}}}};
  dbt.next.events = {show_event(answer)};
  auto report = make_show_probe(dbt, {})->probe(r);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->relation_identities.at("model.p.m"), "oid=1;relfilenode=2");
  EXPECT_FALSE(report->relation_identities.contains("model.p.v"));
}

// relation_probe 0.11: {metadata_view:NAME} in an identity statement names the view NAME of the
// relation's information schema; the program fills it for each NAME the statements use.
TEST(ShowProbe, IdentityStatementsMayNameTheRelationsInformationSchemaViews) {
  contracts::ProbeRequest r = request();
  r.identity_statements = {
      {"table", "select 1 as identity from {metadata_view:TABLES}"},
      {"view", "select 2 as identity from {metadata_view:VIEWS} where x = '{metadata_view:VIEWS}'"}};
  const std::string program = show_probe_program(r);
  EXPECT_NE(program.find(R"(set ods_identity_views = ["TABLES","VIEWS"])"), std::string::npos);
  EXPECT_NE(program.find("found.rel.information_schema(v)"), std::string::npos);
  EXPECT_NE(show_probe_program(request()).find("set ods_identity_views = []"), std::string::npos);
}

TEST(ShowProbe, AContentListTooLongForOneArgumentAsksForEveryNode) {
  contracts::ProbeRequest r = request();
  for (int i = 0; i < 5000; ++i)
    r.content_nodes.push_back("model.project.a_rather_long_model_name_" + std::to_string(i));
  std::string program = show_probe_program(r);
  EXPECT_LT(program.size(), 12000u);  // stays within one command-line argument
  EXPECT_NE(program.find("'contents': none"), std::string::npos);
}

TEST(ShowProbe, TheProgramCarriesBothBranchesWithTheirRowLimitsAndNeverListsAMissingNodeSchema) {
  contracts::ProbeRequest r = request();
  r.filter.format = "delta";
  r.statements = {{"history", "describe history {relation} limit 20", 20}};
  r.fallback = contracts::ProbeFallback{{{"table"}, std::nullopt}, {{"content", "select count(*) from {relation}", 1}}};
  std::string program = show_probe_program(r);
  EXPECT_NE(program.find(R"("format":"delta")"), std::string::npos);
  EXPECT_NE(program.find(R"("max_rows":20)"), std::string::npos);
  EXPECT_NE(program.find("select count(*) from {relation}"), std::string::npos);
  EXPECT_NE(program.find("adapter.check_schema_exists"), std::string::npos);
  EXPECT_NE(program.find(".encode('utf-8').hex()"), std::string::npos);
  EXPECT_LT(program.size(), 12000u);
}

// relation_probe 0.10: the skip list travels in the program by id, and a skipped statement's
// gate closes before its SQL is rendered or run: only its name goes into the answer.
TEST(ShowProbe, ASkippedStatementIsNeverRenderedNorRunForItsRelation) {
  contracts::ProbeRequest r = request();
  r.statements.insert(r.statements.begin(), {"metadata", "select 1 as bytes"});
  r.skip_statements = {{"source.p.raw.orders", {"content"}}};
  const std::string program = show_probe_program(r);
  EXPECT_NE(program.find(R"(set ods_skip = {"source.p.raw.orders":["content"]})"), std::string::npos);
  EXPECT_NE(show_probe_program(request()).find("set ods_skip = {}"), std::string::npos);  // none skipped
  const auto loop = program.find("for st in m.branch.statements");
  const auto skip = program.find("if st.name in skipped", loop);
  const auto closed = program.find("set gate.run = false", skip);
  const auto elif = program.find("elif st.only_if", closed);
  const auto rendered = program.find("set sql = st.sql", elif);
  const auto runs = program.find("run_query(sql)", rendered);
  ASSERT_NE(runs, std::string::npos) << program;
  EXPECT_LT(program.rfind("if gate.run", rendered), rendered) << "the render is inside the gate";
  EXPECT_GT(program.rfind("if gate.run", rendered), elif);
  EXPECT_LT(program.size(), 12000u);

  FakeDbt dbt;
  json answer = {
      {"sources",
       {{"source.p.raw.orders",
         {{"status", "ok"}, {"row_sets", {{"metadata", {{{"bytes", "9"}}}}}}, {"statements_skipped", {"content"}}}},
        {"source.p.raw.items",
         {{"status", "ok"}, {"row_sets", {{"metadata", {{{"bytes", "1"}}}}, {"content", {{{"row_count", "3"}}}}}}}}}},
      {"nodes", json::object()}};
  dbt.next.events = {show_event(answer)};
  auto report = make_show_probe(dbt, {})->probe(r);
  ASSERT_TRUE(report) << report.error().message;
  const auto& orders = report->sources.at("source.p.raw.orders");
  EXPECT_EQ(orders.status, contracts::ProbeAnswer::Status::ok);
  EXPECT_EQ(orders.statements_skipped, std::vector<std::string>{"content"});
  EXPECT_FALSE(orders.rows.contains("content")) << "no row, not an empty one";
  EXPECT_EQ(orders.rows.at("metadata").at("bytes"), "9");
  EXPECT_TRUE(report->sources.at("source.p.raw.items").statements_skipped.empty());
}

TEST(ShowProbe, ASkipListTooLongForOneArgumentIsLeftOutAndEveryStatementRuns) {
  contracts::ProbeRequest r = request();
  for (int i = 0; i < 2000; ++i)
    r.skip_statements["source.project.raw.a_rather_long_source_" + std::to_string(i)] = {"content"};
  const std::string program = show_probe_program(r);
  EXPECT_LT(program.size(), 12000u);
  EXPECT_NE(program.find("set ods_skip = {}"), std::string::npos);
}

// relation_probe 0.5: each further fallback is one more branch, after the fallback, in order.
TEST(ShowProbe, FurtherFallbacksAreBranchesAfterTheFallbackInOrder) {
  contracts::ProbeRequest r = request();
  r.filter.format = "delta";
  r.statements = {{"history", "describe history {relation} limit 20", 20}};
  r.fallback = contracts::ProbeFallback{{{"table"}, std::string("iceberg")}, {{"snapshots", "select 2", 20}}};
  r.further_fallbacks = {{{{"table"}, std::nullopt}, {{"content", "select 3", 1}}}};
  std::string program = show_probe_program(r);
  auto delta = program.find(R"("format":"delta")"), iceberg = program.find(R"("format":"iceberg")"),
       other = program.find("select 3");
  ASSERT_NE(delta, std::string::npos);
  ASSERT_NE(iceberg, std::string::npos);
  ASSERT_NE(other, std::string::npos);
  EXPECT_LT(delta, iceberg);
  EXPECT_LT(iceberg, other);
  EXPECT_NE(program.find("'branch': m.index"), std::string::npos);
}

TEST(ShowProbe, ReadsRowSetsTheFallbackFlagTheBranchAndAHexAnswer) {
  json answer = {
      {"sources",
       {{"source.p.raw.d",
         {{"status", "ok"},
          {"row_sets",
           {{"history", {{{"version", "2"}, {"operationMetrics", R"({"numOutputRows": "1"})"}}, {{"version", "1"}}}}}},
          {"seconds", 0.1}}},
        {"source.p.raw.p", {{"status", "ok"}, {"fallback", true}, {"row_sets", {{"content", json::array()}}}}},
        {"source.p.raw.i",
         {{"status", "ok"}, {"fallback", true}, {"branch", 2}, {"row_sets", {{"snapshots", json::array()}}}}}}},
      {"nodes", json::object()}};
  std::string text = answer.dump(), hex;
  const char* digits = "0123456789abcdef";
  for (unsigned char c : text) {
    hex.push_back(digits[c >> 4]);
    hex.push_back(digits[c & 15]);
  }
  json preview = json::array({{{"ods_probe", hex}}});
  std::string event =
      json{{"info", {{"name", "ShowNode"}, {"level", "info"}}}, {"data", {{"preview", preview.dump()}}}}.dump();
  auto report = parse_show_probe_answer({event});
  ASSERT_TRUE(report) << report.error().message;
  const auto& d = report->sources.at("source.p.raw.d");
  ASSERT_EQ(d.row_sets.at("history").size(), 2u);
  EXPECT_EQ(d.row_sets.at("history")[0].at("operationMetrics"), R"({"numOutputRows": "1"})");
  EXPECT_EQ(d.rows.at("history").at("version"), "2");  // the first row, as in 0.1
  EXPECT_FALSE(d.fallback);
  EXPECT_EQ(d.branch, 0u);
  const auto& p = report->sources.at("source.p.raw.p");
  EXPECT_TRUE(p.fallback);
  EXPECT_EQ(p.branch, 1u);  // an answer without a branch (before 0.5): the fallback's
  EXPECT_EQ(report->sources.at("source.p.raw.i").branch, 2u);
  EXPECT_TRUE(p.rows.at("content").empty());
}

// Snowflake upper-cases an unquoted alias: the answer comes in ODS_PROBE.
TEST(ShowProbe, ReadsTheAnswerFromAnUpperCaseColumn) {
  json answer = {{"sources", {{"source.p.raw.a", {{"status", "missing"}, {"why", "gone"}}}}},
                 {"nodes", json::object()}};
  json preview = json::array({{{"ODS_PROBE", answer.dump()}}});
  auto report = parse_show_probe_answer(
      {json{{"info", {{"name", "ShowNode"}, {"level", "info"}}}, {"data", {{"preview", preview.dump()}}}}.dump()});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->sources["source.p.raw.a"].status, contracts::ProbeAnswer::Status::missing);
}

TEST(ShowProbe, AFailedDbtCallIsAnErrorQuotingDbt) {
  FakeDbt dbt;
  dbt.next.exit_code = 1;
  dbt.next.error_text = "IO Error: Could not set lock on file \"shop.duckdb\"";
  auto report = make_show_probe(dbt, {})->probe(request());
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code, "probe_failed");
  EXPECT_NE(report.error().message.find("Could not set lock"), std::string::npos);
}

// A statement the warehouse refuses fails the whole call (Jinja can't catch it), quoting the
// warehouse: Snowflake's answer for a table the role may not read
// (https://docs.snowflake.com/en/user-guide/security-access-control-overview: "does not exist or
// not authorized"), BigQuery's 403 (https://cloud.google.com/bigquery/docs/error-messages,
// accessDenied). Every source is then unknown and every relation unverified (evidence_gathering).
TEST(ShowProbe, APermissionErrorOfTheWarehouseFailsTheCallQuotingIt) {
  for (const std::string& refused :
       {std::string("Database Error in sql_operation inline_query (from remote system.sql)\n  002003 (42S02): SQL "
                    "compilation error:\n  Object 'RAW.PUBLIC.ORDERS' does not exist or not authorized."),
        std::string("Database Error in sql_operation inline_query (from remote system.sql)\n  Access Denied: Table "
                    "my-project:raw.orders: User does not have permission to query table my-project:raw.orders, or "
                    "perhaps it does not exist.")}) {
    FakeDbt dbt;
    dbt.next.exit_code = 1;
    dbt.next.error_text = refused;
    auto report = make_show_probe(dbt, {})->probe(request());
    ASSERT_FALSE(report);
    EXPECT_EQ(report.error().code, "probe_failed");
    EXPECT_NE(report.error().message.find(refused.substr(refused.rfind('\n') + 3, 30)), std::string::npos)
        << report.error().message;
  }
}

TEST(ShowProbe, TheProgramCarriesConditionsAndMetadataViews) {
  contracts::ProbeRequest r = request();
  contracts::ProbeStatement metadata{"metadata", "select bytes from {metadata_view} where name = '{identifier}'"};
  metadata.metadata_view = "TABLES";
  contracts::ProbeStatement content{"content", "select count(*) as row_count from {relation}"};
  content.only_if = contracts::ProbeCondition{"metadata", "bytes", 4096};
  r.statements = {metadata, content};
  std::string program = show_probe_program(r);
  EXPECT_NE(program.find(R"("only_if":{"column":"bytes","max":4096,"statement":"metadata"})"), std::string::npos)
      << program;
  EXPECT_NE(program.find(R"("metadata_view":"TABLES")"), std::string::npos);
  EXPECT_NE(program.find(R"("only_if":"")"), std::string::npos) << "no condition: an empty string, no JSON null";
  EXPECT_NE(program.find("found.rel.information_schema(st.metadata_view)"), std::string::npos);
  EXPECT_LT(program.size(), 10500u);  // relation_probe 0.9's identity read added about 1,000 characters
}

TEST(ShowProbe, AnInterruptedCallIsCancelled) {
  FakeDbt dbt;
  dbt.next.interrupted = true;
  auto report = make_show_probe(dbt, {})->probe(request());
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code, "cancelled");
}

TEST(ShowProbe, AnAnswerOfAnotherShapeIsAnError) {
  for (const std::string& bad :
       {std::string(R"({"info": {"name": "ShowNode"}, "data": {"preview": "[{\"x\": 1}]"}})"),
        std::string(R"({"info": {"name": "ShowNode"}, "data": {"preview": "[{\"ods_probe\": \"not json\"}]"}})"),
        std::string("not json at all")}) {
    auto report = parse_show_probe_answer({bad});
    EXPECT_FALSE(report) << bad;
  }
  EXPECT_FALSE(parse_show_probe_answer({}));
}

}  // namespace
}  // namespace ods::dbt
