// The keyed digest of hooks' run-context reads (hook_digest.h) and the digest key
// (digest_key.h), on in-memory inputs and a temporary config directory.
#include "hook_digest.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>

#include "child_environment.h"
#include "harness/temp_dir.h"

namespace ods::cli {
namespace {

using planner::ContextRead;
using Kind = ContextRead::Kind;

Environment fake_env(std::map<std::string, std::string> vars) {
  Environment env;
  env.getenv = [vars](const std::string& n) {
    auto it = vars.find(n);
    return it == vars.end() ? std::string() : it->second;
  };
  env.is_set = [vars](const std::string& n) { return vars.contains(n); };
  return env;
}

struct Fixture {
  planner::ProjectInputs inputs;
  std::map<std::string, std::vector<dbt::LiteralHook>> hooks;
  Fixture(std::vector<ContextRead> reads) {
    planner::NodeInput node;
    node.id = "model.p.m";
    node.always_build = {"pre-hook 1 reads env_var", "macro p.x reads var"};
    inputs.nodes.push_back(node);
    hooks[node.id] = {{"pre-hook 1", "pre-hook 1 reads env_var", std::move(reads)}};
  }
  const planner::NodeInput& node() const { return inputs.nodes.front(); }
};

const DigestKey kKey{"0123456789abcdef0123", "$ODS_DIGEST_KEY"};

std::string digest_with(const std::map<std::string, std::string>& env_vars, std::optional<DigestKey> key = kKey) {
  Fixture f({{Kind::env_var, "TAG", "none"}});
  const Environment env = fake_env(env_vars);
  apply_hook_digests(f.inputs, f.hooks, key, RunContextValues{&env, std::nullopt, {}, {}});
  auto it = f.node().fingerprint.components.find("hook pre-hook 1 env_var TAG");
  return it == f.node().fingerprint.components.end() ? "" : it->second;
}

TEST(HookDigest, AResolvedHookBecomesKeyedComponentsAndOtherReasonsStay) {
  Fixture f({{Kind::env_var, "TAG", std::nullopt}, {Kind::target, "name", std::nullopt}});
  const Environment env = fake_env({{"TAG", "v1"}});
  apply_hook_digests(f.inputs, f.hooks, kKey, RunContextValues{&env, std::nullopt, {{"name", "dev"}}, {}});
  EXPECT_EQ(f.node().always_build, std::vector<std::string>{"macro p.x reads var"});
  ASSERT_EQ(f.node().fingerprint.components.size(), 2U);
  EXPECT_TRUE(f.node().fingerprint.components.contains("hook pre-hook 1 target.name"));
  EXPECT_EQ(f.node().fingerprint.components.at("hook pre-hook 1 env_var TAG").size(), 64U);
}

TEST(HookDigest, TheDigestFollowsTheValueAndTheKeyNotTheSpelling) {
  const std::string a = digest_with({{"TAG", "a"}});
  EXPECT_EQ(a, digest_with({{"TAG", "a"}}));
  EXPECT_NE(a, digest_with({{"TAG", "b"}}));
  EXPECT_NE(a, digest_with({{"TAG", "a"}}, DigestKey{"another-key-0123456789", "x"}));
  EXPECT_NE(digest_with({{"TAG", ""}}), digest_with({}));      // set to "" is not unset (default "none")
  EXPECT_EQ(digest_with({{"TAG", "none"}}), digest_with({}));  // dbt renders the default
}

TEST(HookDigest, WithoutAKeyOrAValueTheHookKeepsBuildingAndSaysWhy) {
  Fixture no_key({{Kind::env_var, "TAG", std::nullopt}});
  const Environment env = fake_env({{"TAG", "v"}});
  apply_hook_digests(no_key.inputs, no_key.hooks, std::nullopt, RunContextValues{&env, std::nullopt, {}, {}});
  ASSERT_EQ(no_key.node().always_build.size(), 2U);
  EXPECT_NE(no_key.node().always_build[0].find("ODS_DIGEST_KEY"), std::string::npos);
  EXPECT_TRUE(no_key.node().fingerprint.components.empty());

  Fixture unset({{Kind::env_var, "TAG", std::nullopt},
                 {Kind::target, "schema", std::nullopt},
                 {Kind::target, "threads", std::nullopt},
                 {Kind::var, "v", std::nullopt}});
  const Environment empty = fake_env({});
  apply_hook_digests(unset.inputs, unset.hooks, kKey, RunContextValues{&empty, ProjectVars{}, {}, {}});
  ASSERT_EQ(unset.node().always_build.size(), 2U);
  const std::string& why = unset.node().always_build[0];
  EXPECT_NE(why.find("$TAG is not set and has no default"), std::string::npos) << why;
  EXPECT_NE(why.find("target.schema is read by the warehouse probe"), std::string::npos) << why;
  EXPECT_NE(why.find("target.threads is not fingerprinted"), std::string::npos) << why;
  EXPECT_NE(why.find("var v is not"), std::string::npos) << why;
  EXPECT_TRUE(unset.node().fingerprint.components.empty());
}

// Issue 27 item 3: a hook that reads only the target's identity (schema, database, name, type)
// is fingerprinted by the values themselves, without a key: they are in every relation name.
TEST(HookDigest, TargetIdentityReadsNeedNoKeyOnceTheProbeReadThem) {
  const std::vector<ContextRead> reads{{Kind::target, "schema", std::nullopt},
                                       {Kind::target, "database", std::nullopt}};
  auto components_with = [&](const std::map<std::string, std::string>& target, std::optional<DigestKey> key) {
    Fixture f(reads);
    const Environment env = fake_env({});
    apply_hook_digests(f.inputs, f.hooks, key, RunContextValues{&env, std::nullopt, {{"type", "duckdb"}}, {}});
    EXPECT_EQ(f.node().always_build.size(), 2U);  // before the probe: still built, saying why
    EXPECT_NE(f.node().always_build[0].find("target.schema is read by the warehouse probe"), std::string::npos)
        << f.node().always_build[0];
    // after it: the same call with the probe's values revisits the entry
    std::map<std::string, std::string> all{{"type", "duckdb"}};
    all.insert(target.begin(), target.end());
    apply_hook_digests(f.inputs, f.hooks, key, RunContextValues{&env, std::nullopt, all, {}});
    return f;
  };
  const Fixture probed = components_with({{"schema", "main"}, {"database", "shop"}}, std::nullopt);
  EXPECT_EQ(probed.node().always_build, std::vector<std::string>{"macro p.x reads var"});
  ASSERT_TRUE(probed.node().fingerprint.components.contains("hook pre-hook 1 target.schema"));
  ASSERT_TRUE(probed.node().fingerprint.components.contains("hook pre-hook 1 target.database"));
  const std::string schema = probed.node().fingerprint.components.at("hook pre-hook 1 target.schema");
  // the key changes nothing (no secret to hide); the value does
  EXPECT_EQ(components_with({{"schema", "main"}, {"database", "shop"}}, kKey)
                .node()
                .fingerprint.components.at("hook pre-hook 1 target.schema"),
            schema);
  EXPECT_NE(components_with({{"schema", "other"}, {"database", "shop"}}, std::nullopt)
                .node()
                .fingerprint.components.at("hook pre-hook 1 target.schema"),
            schema);
  // a probe that read no database keeps the hook building
  const Fixture partial = components_with({{"schema", "main"}}, std::nullopt);
  ASSERT_EQ(partial.node().always_build.size(), 2U);
  EXPECT_NE(partial.node().always_build[0].find("target.database is read by the warehouse probe"), std::string::npos);
  EXPECT_EQ(partial.node().always_build[0].find("target.schema"), std::string::npos) << partial.node().always_build[0];
  EXPECT_TRUE(partial.node().fingerprint.components.empty());
}

TEST(HookDigest, ATargetIdentityReadBesideAnEnvVarStillNeedsTheKey) {
  Fixture f({{Kind::target, "schema", std::nullopt}, {Kind::env_var, "TAG", std::nullopt}});
  const Environment env = fake_env({{"TAG", "v"}});
  apply_hook_digests(f.inputs, f.hooks, std::nullopt, RunContextValues{&env, std::nullopt, {{"schema", "main"}}, {}});
  ASSERT_EQ(f.node().always_build.size(), 2U);
  EXPECT_NE(f.node().always_build[0].find("ODS_DIGEST_KEY"), std::string::npos);
  apply_hook_digests(f.inputs, f.hooks, kKey, RunContextValues{&env, std::nullopt, {{"schema", "main"}}, {}});
  EXPECT_EQ(f.node().always_build, std::vector<std::string>{"macro p.x reads var"});
  EXPECT_EQ(f.node().fingerprint.components.size(), 2U);
}

// `ods state record`: dbt ran in an environment ODS can't see, so even with a key no digest
// is made of this one's values, and the reason says so instead of how to enable it.
TEST(HookDigest, WhenTheValuesAreNotDbtsNoDigestIsMadeWhateverTheKey) {
  Fixture f({{Kind::env_var, "TAG", std::nullopt}});
  const Environment env = fake_env({{"TAG", "v"}});
  RunContextValues values{&env, std::nullopt, {}, {}};
  values.not_visible = "record sees its own environment";
  apply_hook_digests(f.inputs, f.hooks, kKey, values);
  ASSERT_EQ(f.node().always_build.size(), 2U);
  EXPECT_NE(f.node().always_build[0].find("record sees its own environment"), std::string::npos);
  EXPECT_EQ(f.node().always_build[0].find("ODS_DIGEST_KEY"), std::string::npos);
  EXPECT_TRUE(f.node().fingerprint.components.empty());
}

// dbt runs without ODS's secrets (child_environment.h), so a hook reading one gets its default:
// the digest is made of what dbt sees through child_view, never of the secret.
TEST(HookDigest, AHookReadingAWithheldVariableIsDigestedWithTheDefaultDbtGets) {
  const Environment ods_env =
      fake_env({{"ODS_DIGEST_KEY", "the-real-key-0123456789"}, {"ODS_STATE", "postgresql://u:pw@h/db"}, {"TAG", "t"}});
  const Environment dbt_sees = child_view(ods_env);
  for (const std::string& name : secret_variables()) {
    EXPECT_EQ(dbt_sees.getenv(name), "") << name;
    EXPECT_FALSE(dbt_sees.is_set(name)) << name;
  }
  EXPECT_EQ(dbt_sees.getenv("TAG"), "t");
  EXPECT_TRUE(dbt_sees.is_set("TAG"));

  auto digest_of = [](const Environment& env, const std::string& variable) {
    Fixture f({{Kind::env_var, variable, "absent"}});
    apply_hook_digests(f.inputs, f.hooks, kKey, RunContextValues{&env, std::nullopt, {}, {}});
    return f.node().fingerprint.components.at("hook pre-hook 1 env_var " + variable);
  };
  const Environment unset = fake_env({});
  EXPECT_EQ(digest_of(dbt_sees, "ODS_DIGEST_KEY"), digest_of(unset, "ODS_DIGEST_KEY"));
  EXPECT_EQ(digest_of(dbt_sees, "ODS_STATE"), digest_of(unset, "ODS_STATE"));
  EXPECT_NE(digest_of(ods_env, "ODS_STATE"), digest_of(unset, "ODS_STATE"));  // the view is what hides it
}

TEST(HookDigest, ProjectVarsAreTopLevelScalarsOnly) {
  ods::testing::TempDir dir;
  const auto file = dir.path() / "dbt_project.yml";
  std::ofstream(file) << "name: p\nvars:\n  region: eu\n  n: 3\n  list: [1, 2]\n  rendered: \"{{ env_var('X') }}\"\n"
                         "  p:\n    region: us\n";
  auto vars = read_project_vars(file);
  ASSERT_TRUE(vars) << vars.error().message;
  EXPECT_EQ(vars->values, (std::map<std::string, std::string>{{"n", "3"}}));
  EXPECT_TRUE(vars->unresolvable.contains("region"));  // also set under package p
  EXPECT_TRUE(vars->unresolvable.contains("list"));
  EXPECT_TRUE(vars->unresolvable.contains("rendered"));
  std::ofstream(file) << "vars: [unclosed\n";
  EXPECT_EQ(read_project_vars(file).error().code, "invalid_project");
}

TEST(DigestKey, FromTheEnvironmentOrA0600FileNeverAWeakOne) {
  ods::testing::TempDir dir;
  Environment env = fake_env({{"XDG_CONFIG_HOME", dir.path().string()}});
  auto none = load_digest_key(env);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto path = create_digest_key(env);
  ASSERT_TRUE(path) << path.error().message;
  EXPECT_EQ(*path, dir.path() / "ods" / "digest.key");
  struct stat info {};
  ASSERT_EQ(::stat(path->c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600U);
  auto loaded = load_digest_key(env);
  ASSERT_TRUE(loaded && *loaded);
  EXPECT_EQ((*loaded)->bytes.size(), 64U);
  EXPECT_EQ((*loaded)->origin, path->string());
  EXPECT_EQ(create_digest_key(env).error().code, "digest_key");  // never replaced
  ASSERT_EQ(::chmod(path->c_str(), 0640), 0);
  auto refused = load_digest_key(env);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("mode 0640"), std::string::npos) << refused.error().message;

  Environment short_key = fake_env({{"ODS_DIGEST_KEY", "short"}});
  EXPECT_EQ(load_digest_key(short_key).error().code, "digest_key");
  Environment from_env = fake_env({{"ODS_DIGEST_KEY", "a-long-enough-key-123"}, {"XDG_CONFIG_HOME", dir.path()}});
  EXPECT_EQ(load_digest_key(from_env).value()->origin, "$ODS_DIGEST_KEY");  // the variable wins over the file
}

}  // namespace
}  // namespace ods::cli
