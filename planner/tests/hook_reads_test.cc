// Literal run-context reads of hooks (issue #14): the forms a keyed digest can cover, and
// everything that keeps the always-build rule.
#include "ods/planner/hook_reads.h"

#include <gtest/gtest.h>

namespace {

using ods::planner::ContextRead;
using ods::planner::literal_context_reads;
using Kind = ContextRead::Kind;

TEST(HookReads, EnvVarWithAndWithoutDefault) {
  const auto reads = literal_context_reads(R"(select '{{ env_var("SHOP_AUDIT_TAG", "none") }}', '{{ env_var('B') }}')");
  ASSERT_TRUE(reads);
  ASSERT_EQ(reads->size(), 2U);
  EXPECT_EQ((*reads)[0], (ContextRead{Kind::env_var, "SHOP_AUDIT_TAG", "none"}));
  EXPECT_EQ((*reads)[1], (ContextRead{Kind::env_var, "B", std::nullopt}));
}

TEST(HookReads, VarAndTargetFields) {
  const auto reads = literal_context_reads(
      "{% if var('audit', 1) %}insert into {{ target.schema }}.log values ('{{ target.name }}'){% endif %}");
  ASSERT_TRUE(reads);
  ASSERT_EQ(reads->size(), 3U);
  EXPECT_EQ((*reads)[0], (ContextRead{Kind::var, "audit", "1"}));
  EXPECT_EQ((*reads)[1], (ContextRead{Kind::target, "schema", std::nullopt}));
  EXPECT_EQ((*reads)[2], (ContextRead{Kind::target, "name", std::nullopt}));
}

TEST(HookReads, DuplicatesCountOnceAndPlainHooksReadNothing) {
  const auto reads = literal_context_reads("{{ env_var('A') }}{{ env_var('A') }}");
  ASSERT_TRUE(reads);
  EXPECT_EQ(reads->size(), 1U);
  const auto none = literal_context_reads("grant select on {{ this }} to reporter -- target and var in SQL text");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(HookReads, EverythingElseKeepsTheAlwaysBuildRule) {
  for (const char* hook : {
           "{% do run_query('select 1') %}",                  // run_query
           "{% call statement('x') %}select 1{% endcall %}",  // statement
           "{{ adapter.drop_relation(this) }}",               // adapter method
           "{{ log_audit() }}",                               // a macro: could read anything
           "{{ env_var(name) }}",                             // non-literal name
           "{{ env_var('A' ~ 'B') }}",                        // concatenated name
           "{{ env_var('A', default='x') }}",                 // keyword argument
           "{{ env_var('A\\nB') }}",                          // an escape
           "{{ env_var('') }}",                               // empty name
           "{{ env_var('A', other) }}",                       // non-literal default
           "{% set e = env_var %}{{ e('A') }}",               // aliased
           "{{ target['name'] }}",                            // indexed
           "{{ target }}",                                    // the whole target
           "{% set target = 1 %}",                            // rebound
           "{{ x.env_var('A') }}",                            // qualified
           "{{ flags.FULL_REFRESH }}",                        // flags
           "{{ builtins.env_var('A') }}",                     // builtins
           "{{ context['env_var']('A') }}",                   // context
           "{{ env_var('A') | upper }}",                      // a filter is a call
           "{{ env_var('A')",                                 // unterminated
       }) {
    EXPECT_FALSE(literal_context_reads(hook)) << hook;
  }
}

TEST(HookReads, KindNames) {
  EXPECT_EQ(ods::planner::kind_name(Kind::env_var), "env_var");
  EXPECT_EQ(ods::planner::kind_name(Kind::var), "var");
  EXPECT_EQ(ods::planner::kind_name(Kind::target), "target");
}

}  // namespace
