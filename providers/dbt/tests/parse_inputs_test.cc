// The digest of what dbt's parse reads (parse_inputs.h): each parse input changed alone changes
// the digest or declines it (a mutation check), a non-literal env_var name or a secret-looking
// variable declines with the reason, and a credential's value is neither digested nor read.
#include "ods/dbt/parse_inputs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include "fixture_util.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPassword = "pa55-never-digested";

struct Fixture {
  fs::path dir, venv;
  std::map<std::string, std::string> env{
      {"SHOP_HOST", "db.local"}, {"SHOP_PASSWORD", kPassword}, {"MODEL_SUFFIX", "_v1"}};
  std::set<std::string> asked;  // every variable getenv was asked for
  std::vector<std::string> arguments{"parse", "--no-write-json", "--target", "pg"};

  Fixture() {
    const fs::path root = testing::temp_file("root").parent_path();
    dir = root / "project";
    venv = root / "venv";
    write("dbt_project.yml", "name: shop\nprofile: shop\nmodel-paths: [models]\nvars:\n  min_amount: 5\n");
    write("models/orders.sql", "select 1 as id{{ env_var('MODEL_SUFFIX', '') and '' }}\n");
    write("macros/cents.sql", "{% macro cents(x) %}{{ x }} * 100{% endmacro %}\n");
    write("dbt_packages/util/macros/u.sql", "{% macro u() %}1{% endmacro %}\n");
    write("target/manifest.json", "{}");  // under no declared path: never read
    write("profiles.yml",
          "shop:\n  target: pg\n  outputs:\n    pg:\n      type: postgres\n      host: \"{{ env_var('SHOP_HOST') }}\"\n"
          "      password: \"{{ env_var('SHOP_PASSWORD') }}\"\n      schema: main\n");
    fs::create_directories(venv / "bin");
    std::ofstream(venv / "bin/python") << "";
    fs::create_directories(venv / "lib/python3.11/site-packages/dbt_core-1.10.2.dist-info");
    fs::create_directories(venv / "lib/python3.11/site-packages/dbt_postgres-1.9.0.dist-info");
  }
  void write(const std::string& relative, const std::string& text) const {
    fs::create_directories((dir / relative).parent_path());
    std::ofstream(dir / relative) << text;
  }
  ParseInputsQuery query() {
    ParseInputsQuery q;
    q.project_dir = dir;
    q.profiles_file = dir / "profiles.yml";
    q.profile = "shop";
    q.target = "pg";
    q.arguments = arguments;
    q.python = venv / "bin/python";
    q.skipped = {dir / "target"};
    for (const auto& [name, value] : env) q.set_variable_names.insert(name);
    q.getenv = [this](const std::string& name) {
      asked.insert(name);
      auto it = env.find(name);
      return it == env.end() ? std::string() : it->second;
    };
    return q;
  }
  std::expected<ParseInputsDigest, std::string> digest() { return digest_parse_inputs(query()); }
};

TEST(ParseInputs, DigestsTheProjectProfileAndDbt) {
  Fixture f;
  auto d = f.digest();
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(d->dbt_version, "1.10.2");
  EXPECT_EQ(d->files, 4u);  // dbt_project.yml, the model, the macro, the package's macro
  EXPECT_EQ(d->digest.size(), 64u);
  auto again = f.digest();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->digest, d->digest);
}

// Each parse input, changed alone, makes the digest differ (or declines it).
TEST(ParseInputs, EachParseInputChangedAloneChangesTheDigest) {
  const std::vector<std::pair<std::string, std::function<void(Fixture&)>>> mutations{
      {"a model file", [](Fixture& f) { f.write("models/orders.sql", "select 2 as id\n"); }},
      {"a new model file", [](Fixture& f) { f.write("models/more.sql", "select 3\n"); }},
      {"a macro", [](Fixture& f) { f.write("macros/cents.sql", "{% macro cents(x) %}{{ x }}{% endmacro %}\n"); }},
      {"a package file",
       [](Fixture& f) { f.write("dbt_packages/util/macros/u.sql", "{% macro u() %}2{% endmacro %}"); }},
      {"dbt_project.yml vars",
       [](Fixture& f) {
         f.write("dbt_project.yml", "name: shop\nprofile: shop\nmodel-paths: [models]\nvars:\n  min_amount: 6\n");
       }},
      {"packages.yml added", [](Fixture& f) { f.write("packages.yml", "packages: []\n"); }},
      {"profiles.yml target field",
       [](Fixture& f) {
         f.write("profiles.yml",
                 "shop:\n  target: pg\n  outputs:\n    pg:\n      type: postgres\n      host: \"{{ "
                 "env_var('SHOP_HOST') }}\"\n"
                 "      password: \"{{ env_var('SHOP_PASSWORD') }}\"\n      schema: other\n");
       }},
      {"an env var named in a model", [](Fixture& f) { f.env["MODEL_SUFFIX"] = "_v2"; }},
      {"an env var named in the profile", [](Fixture& f) { f.env["SHOP_HOST"] = "db2.local"; }},
      {"a DBT_ variable", [](Fixture& f) { f.env["DBT_STATIC_PARSER"] = "false"; }},
      {"the dbt version marker",
       [](Fixture& f) {
         fs::rename(f.venv / "lib/python3.11/site-packages/dbt_core-1.10.2.dist-info",
                    f.venv / "lib/python3.11/site-packages/dbt_core-1.10.3.dist-info");
       }},
      {"an adapter version",
       [](Fixture& f) {
         fs::rename(f.venv / "lib/python3.11/site-packages/dbt_postgres-1.9.0.dist-info",
                    f.venv / "lib/python3.11/site-packages/dbt_postgres-1.9.1.dist-info");
       }},
      {"--vars",
       [](Fixture& f) {
         f.arguments.insert(f.arguments.end(), {"--vars", "{min_amount: 7}"});
       }},
      {"--target", [](Fixture& f) { f.arguments[3] = "dev"; }},
  };
  for (const auto& [what, mutate] : mutations) {
    Fixture f;
    auto before = f.digest();
    ASSERT_TRUE(before) << before.error();
    mutate(f);
    auto after = f.digest();
    ASSERT_TRUE(after) << what << ": " << after.error();  // none of these declines: each must change the digest
    EXPECT_NE(after->digest, before->digest) << what << " did not change the digest";
  }
}

TEST(ParseInputs, ACredentialsValueIsNeitherDigestedNorRead) {
  Fixture f;
  auto before = f.digest();
  ASSERT_TRUE(before) << before.error();
  EXPECT_EQ(f.asked.count("SHOP_PASSWORD"), 0u);
  f.env["SHOP_PASSWORD"] = "another-password";
  auto after = f.digest();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->digest, before->digest);
  ParseInputsDigest counts;
  auto text = parse_inputs_text(f.query(), counts);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->find(kPassword), std::string::npos);
  EXPECT_EQ(text->find("another-password"), std::string::npos);
  EXPECT_EQ(f.asked.count("SHOP_PASSWORD"), 0u);
  // A password written in profiles.yml itself is not digested either.
  f.write("profiles.yml", "shop:\n  target: pg\n  outputs:\n    pg:\n      type: postgres\n      password: hunter22\n");
  auto literal = parse_inputs_text(f.query(), counts);
  ASSERT_TRUE(literal);
  EXPECT_EQ(literal->find("hunter22"), std::string::npos);
}

TEST(ParseInputs, ASecretLookingVariableNamedOutsideACredentialDeclines) {
  Fixture f;
  f.write("models/orders.sql", "select '{{ env_var(\"DBT_ENV_SECRET_TOKEN\") }}' as t\n");
  auto d = f.digest();
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().find("DBT_ENV_SECRET_TOKEN looks like a secret"), std::string::npos) << d.error();
  EXPECT_EQ(f.asked.count("DBT_ENV_SECRET_TOKEN"), 0u);
  // A DBT_ variable set in the environment whose name looks secret is left out, not read.
  Fixture g;
  auto q = g.query();
  q.set_variable_names = {"DBT_ENV_SECRET_GIT_TOKEN", "DBT_ENV_CUSTOM_ENV_TEAM"};
  auto e = digest_parse_inputs(q);
  ASSERT_TRUE(e) << e.error();
  EXPECT_EQ(g.asked.count("DBT_ENV_SECRET_GIT_TOKEN"), 0u);
  EXPECT_EQ(g.asked.count("DBT_ENV_CUSTOM_ENV_TEAM"), 1u);
}

TEST(ParseInputs, AnEmptyVariableIsToldFromAnUnsetOne) {
  // env_var('MODEL_SUFFIX', 'x') parses as 'x' when unset and as '' when set empty.
  Fixture f;
  f.env["MODEL_SUFFIX"] = "";
  auto empty = f.digest();
  ASSERT_TRUE(empty) << empty.error();
  f.env.erase("MODEL_SUFFIX");
  auto unset = f.digest();
  ASSERT_TRUE(unset) << unset.error();
  EXPECT_NE(empty->digest, unset->digest);
}

TEST(ParseInputs, ADbtVariableNamedOnlyInACredentialFieldIsNeverRead) {
  // A DBT_* variable set in the environment is digested, unless the profile names it only in a
  // credential field: then its value is a secret whatever its name says.
  Fixture f;
  f.write("profiles.yml",
          "shop:\n  target: pg\n  outputs:\n    pg:\n      type: postgres\n      host: h\n"
          "      pass: \"{{ env_var('DBT_PG_PW') }}\"\n      schema: main\n");
  f.env["DBT_PG_PW"] = kPassword;
  f.env["DBT_PG_SCHEMA_SUFFIX"] = "_a";
  auto d = f.digest();
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(f.asked.count("DBT_PG_PW"), 0u);
  EXPECT_EQ(f.asked.count("DBT_PG_SCHEMA_SUFFIX"), 1u);
  ParseInputsDigest counts;
  auto text = parse_inputs_text(f.query(), counts);
  ASSERT_TRUE(text) << text.error();
  EXPECT_EQ(text->find(kPassword), std::string::npos);
  f.env["DBT_PG_PW"] = "another";
  auto other = f.digest();
  ASSERT_TRUE(other) << other.error();
  EXPECT_EQ(other->digest, d->digest);
}

TEST(ParseInputs, ANonLiteralEnvVarNameDeclinesNamingTheFile) {
  Fixture f;
  f.write("macros/dyn.sql", "{{ env_var('PREFIX_' ~ target.name) }}\n");
  auto d = f.digest();
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().find("macros/dyn.sql"), std::string::npos) << d.error();
  EXPECT_NE(d.error().find("not a literal"), std::string::npos) << d.error();
}

TEST(ParseInputs, EnvVarNamesAreReadAsLiteralsOnly) {
  auto names = env_var_names("{{ env_var('A') }} {{ env_var( \"B\" , 'x') }} my_env_var(x) env_vars");
  ASSERT_TRUE(names) << names.error();
  EXPECT_EQ(*names, (std::set<std::string>{"A", "B"}));
  EXPECT_FALSE(env_var_names("{{ env_var(name) }}"));
  auto commented = env_var_names("{# no env_var here #} {{ env_var('C') }} -- reads env_var C\n{# env_var #}");
  ASSERT_TRUE(commented) << commented.error();
  EXPECT_EQ(*commented, (std::set<std::string>{"C"}));
  auto yaml = env_var_names(R"(pre_hook: "select '{{ env_var(\"TAG\", \"none\") }}'")");
  ASSERT_TRUE(yaml) << yaml.error();
  EXPECT_EQ(*yaml, (std::set<std::string>{"TAG"}));
  EXPECT_FALSE(env_var_names("{% set f = env_var %}"));
  EXPECT_FALSE(env_var_names("{{ env_var('A' + b) }}"));
}

TEST(ParseInputs, DeclinesWithoutDbtsDistInfoOrAProfile) {
  Fixture f;
  fs::remove_all(f.venv / "lib");
  auto d = f.digest();
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().find("dbt-core's dist-info was not found"), std::string::npos) << d.error();
  Fixture g;
  auto q = g.query();
  q.profiles_file.clear();
  EXPECT_FALSE(digest_parse_inputs(q));
  Fixture h;
  h.env["DBT_PARTIAL_PARSE_FILE_PATH"] = "/elsewhere";
  EXPECT_FALSE(h.digest());
}

TEST(ParseInputs, SecretLookingNames) {
  EXPECT_TRUE(looks_secret("DBT_ENV_SECRET_X"));
  EXPECT_TRUE(looks_secret("SHOP_PG_PASSWORD"));
  EXPECT_TRUE(looks_secret("api_token"));
  EXPECT_TRUE(looks_secret("AWS_ACCESS_KEY_ID"));
  EXPECT_TRUE(looks_secret("DB_PASS"));
  EXPECT_TRUE(looks_secret("GOOGLE_APPLICATION_CREDENTIALS"));
  EXPECT_FALSE(looks_secret("SHOP_PG_HOST"));
}

// 10,000 model files: the digest stays well under 100 ms (printed; asserted under 1 s, for a loaded machine).
TEST(ParseInputs, TenThousandFilesAreDigestedQuickly) {
  Fixture f;
  for (int i = 0; i < 10000; ++i)
    f.write("models/m" + std::to_string(i / 100) + "/model_" + std::to_string(i) + ".sql",
            "select * from {{ ref('model_" + std::to_string(i > 0 ? i - 1 : 0) + "') }} where id > " +
                std::to_string(i) + "\n");
  (void)f.digest();  // warm the page cache, as a run's files are
  const auto started = std::chrono::steady_clock::now();
  auto d = f.digest();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(d) << d.error();
  EXPECT_GE(d->files, 10000u);
  std::cout << "[parse inputs] " << d->files << " files digested in " << ms << " ms\n";
  EXPECT_LT(ms, 1000.0);
}

}  // namespace
}  // namespace ods::dbt
