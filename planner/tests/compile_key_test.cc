// The compile key's planner parts (docs/compile-key.md): which Jinja a key may cover
// (compile_key_blocker, compile_impure_word), the key recorded with a build and carried by a
// reuse whose SQL is unchanged (record), and its place in the snapshot document (1.4).
#include <gtest/gtest.h>

#include "ods/planner/jinja_purity.h"
#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"

using namespace ods::planner;

namespace {

std::optional<std::string> blocker(std::string_view code) {
  auto reads = compile_key_reads(code);
  return reads ? std::nullopt : std::optional<std::string>(reads.error());
}

TEST(CompileKeyReads, PlainSqlWithRefsSourcesConfigAndThisIsKeyable) {
  for (const char* code : {"select 1", "select * from {{ ref('orders') }}",
                           "{{ config(materialized='table', tags=['a']) }} select * from {{ source('raw', 'o') }}",
                           "select '{{ this }}' as me, '{{ this.schema }}' as s",
                           "{% set cols = ['a', 'b'] %}select {% for c in cols %}{{ c }}{% if not loop.last %},{% "
                           "endif %}{% endfor %} from {{ ref('x', v=2) }}",
                           "{% if true and not none %}select 1{% else %}select 2{% endif %}"}) {
    EXPECT_EQ(blocker(code), std::nullopt) << code;
  }
}

TEST(CompileKeyReads, VarsByLiteralNameAndMacroCallsAreListed) {
  auto reads = compile_key_reads(
      "select {{ cents('x') }}, {{ dbt_utils.star(ref('a')) }} where k >= {{ var(\"min_k\") }} and j = {{ var('j', "
      "3) }} {{ cents('y') }}");
  ASSERT_TRUE(reads) << reads.error();
  EXPECT_EQ(reads->vars, (std::vector<std::string>{"j", "min_k"}));
  EXPECT_EQ(reads->calls, (std::vector<std::string>{"cents", "dbt_utils.star"}));
}

TEST(CompileKeyReads, WhatTheParseDoesNotShowIsNotKeyable) {
  const std::pair<const char*, const char*> cases[] = {
      {"select '{{ env_var(\"HOME\") }}'", "calls env_var at line 1"},
      {"select '{{ var(name) }}'", "calls var without a literal name at line 1"},
      {"select '{{ target.name }}'", "reads target at line 1"},
      {"select '{{ run_started_at }}'", "reads run_started_at at line 1"},
      {"select '{{ invocation_id }}'", "reads invocation_id at line 1"},
      {"select '{{ model.name }}'", "reads model at line 1"},
      {"select {{ cols }}{% set cols = 1 %}", "reads cols at line 1"},  // read before it is bound
      {"select {{ 'a' | upper }}", "filter upper at line 1"},
      {"{% do run_query('x') %}", "{% do %} at line 1"},
      {"select {{ adapter.quote('x') }}", "reads adapter at line 1"},
      {"select {{ a.b.c('x') }}", "reads a at line 1"},
      {"{% set var = 1 %}", "rebinds var at line 1"},
  };
  for (const auto& [code, why] : cases) EXPECT_EQ(blocker(code), std::optional<std::string>(why)) << code;
}

TEST(CompileKeyReads, AComparisonIsNotAKeywordArgument) {
  EXPECT_EQ(blocker("{% if (target==1) %}x{% endif %}"), "reads target at line 1");
  EXPECT_EQ(blocker("{{ config(materialized='view') }}{% if (1==1) %}x{% endif %}"), std::nullopt);
}

TEST(CompileImpureWord, MacrosThatAskTheWarehouseOrTheRunAreImpure) {
  EXPECT_EQ(compile_impure_word("{% macro m(x) %}({{ x }} / 100)::numeric{% endmacro %}"), std::nullopt);
  EXPECT_EQ(compile_impure_word("{% macro is_incremental() %}{% if not execute %}..."), "execute");
  EXPECT_EQ(compile_impure_word("{% set r = run_query('select 1') %}"), "run_query");
  EXPECT_EQ(compile_impure_word("{{ adapter.get_relation(this) }}"), "adapter");
  EXPECT_EQ(compile_impure_word("{{ target.schema }}"), "target");
}

ProjectInputs one_model(const std::string& sql, const std::string& key) {
  ProjectInputs in;
  in.project = "shop";
  in.target_identity = "duckdb/shop/main";
  NodeInput n;
  n.id = "model.shop.m";
  n.name = "m";
  n.resource_type = "model";
  n.fingerprint.add("sql", sql);
  n.compile_key = key;
  in.nodes.push_back(n);
  return in;
}

RunOutcome outcome(const std::string& id, const std::string& at, const char* status) {
  RunOutcome r;
  r.run_id = id;
  r.started_at = at;
  if (status != nullptr) r.node_status["model.shop.m"] = status;
  return r;
}

TEST(CompileKeyRecord, ABuildRecordsItsKeyAndAReuseWithTheSameSqlTakesTheNewOne) {
  auto first = record(one_model("select 1", "key-1"), nullptr, outcome("r1", "2026-12-04T10:00:00Z", "success"));
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->nodes.at("model.shop.m").compile_key, "key-1");
  // dbt upgraded: the key changed, the compile gave the same SQL, the node was reused.
  auto second = record(one_model("select 1", "key-2"), &*first, outcome("r2", "2026-12-04T11:00:00Z", nullptr));
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->nodes.at("model.shop.m").compile_key, "key-2");
  EXPECT_EQ(second->nodes.at("model.shop.m").run_id, "r1");
  // Its code changed and its build failed: the old key stays with the old SQL.
  auto third = record(one_model("select 2", "key-3"), &*second, outcome("r3", "2026-12-04T12:00:00Z", "error"));
  ASSERT_TRUE(third) << third.error().message;
  EXPECT_EQ(third->nodes.at("model.shop.m").compile_key, "key-2");
}

TEST(CompileKeySnapshot, TheKeyRoundTripsAndOlderDocumentsReadWithout) {
  auto s = record(one_model("select 1", "key-1"), nullptr, outcome("r1", "2026-12-04T10:00:00Z", "success"));
  ASSERT_TRUE(s);
  const std::string text = to_json(*s);
  EXPECT_NE(text.find("\"compile_key\":\"key-1\""), std::string::npos);
  auto back = snapshot_from_json(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->nodes.at("model.shop.m").compile_key, "key-1");
  std::string older = text;
  older.replace(older.find("\"compile_key\":\"key-1\","), std::string("\"compile_key\":\"key-1\",").size(), "");
  older.replace(older.find("\"" + kSnapshotSchema.to_string() + "\""), 5, "\"1.3\"");
  auto old = snapshot_from_json(older);
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(old->nodes.at("model.shop.m").compile_key, "");
}

}  // namespace
