// A PostgreSQL state store opened read-only (plans, dry runs) writes nothing, and the CI
// summary of a dry run against PostgreSQL names the server without its password.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/dbt_project.h"
#include "pg_fixture.h"

namespace ods::testing {
namespace {

using nlohmann::json;

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PostgresReadOnly, ReadsButRefusesEveryWriteAndCreatesNoTables) {
  const std::string dsn = fresh_database();
  state::OpenOptions read_only;
  read_only.read_only = true;
  read_only.create_if_missing = true;  // ignored: read-only never creates
  auto none = state::open_postgres_store(dsn, ods::system_clock(), read_only);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code, "not_found");

  auto writer = open_pg(dsn);
  ASSERT_NE(writer, nullptr);
  auto committed = writer->commit("shop/prod", std::nullopt, "run-1", node_document(3, "run-1"));
  ASSERT_TRUE(committed.has_value()) << committed.error().message;
  writer.reset();

  auto reader = state::open_postgres_store(dsn, ods::system_clock(), read_only);
  ASSERT_TRUE(reader.has_value()) << reader.error().message;
  auto latest = (*reader)->latest("shop/prod");
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ((*latest)->id, committed->id);
  EXPECT_FALSE((*reader)->commit("shop/prod", committed->id, "run-2", node_document(3, "run-2")).has_value());
  EXPECT_FALSE((*reader)
                   ->append_run({"run-2", "shop/prod", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "success", "",
                                 "{}", "{}", std::nullopt})
                   .has_value());
  auto runs = (*reader)->runs("shop/prod", 0);
  ASSERT_TRUE(runs.has_value());
  EXPECT_TRUE(runs->empty());
}

// `ods state run --dry-run` with the password in a URL and in key/value settings (the test
// server trusts the loopback, so the password is never asked for): no output names it, and
// the empty database gets no ODS tables.
TEST(PostgresReadOnly, DryRunSummaryNamesTheServerWithoutThePassword) {
  const std::string dsn = fresh_database();
  DbtProject p("shop");
  ASSERT_EQ(p.generate_data().exit_code, 0);
  std::string url = url_of(dsn);
  url.insert(url.find('@'), ":s3cr3t-pw");
  for (const std::string& state : {url, dsn + " password=s3cr3t-pw"}) {
    const std::string md = (p.dir() / "summary.md").string(), js = (p.dir() / "plan.json").string();
    ProcessResult r = p.ods({"state", "run", "--dry-run", "--profiles-dir", p.dir().string(), "--state", state,
                             "--summary", md, "--json-file", js});
    ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
    for (const std::string& text : {r.output, r.errors, slurp(md), slurp(js)}) {
      EXPECT_EQ(text.find("s3cr3t"), std::string::npos) << text;
      EXPECT_EQ(text.find("user="), std::string::npos) << text;
    }
    const json summary = json::parse(slurp(js)).at("summary");
    EXPECT_EQ(summary.at("state").at("kind"), "postgresql");
    const std::string location = summary.at("state").at("location");
    EXPECT_TRUE(location.starts_with("127.0.0.1:")) << location;
    EXPECT_EQ(summary.at("dry_run"), true);
    EXPECT_EQ(summary.at("reused"), 0) << "nothing recorded yet";
    EXPECT_NE(slurp(md).find("postgresql 127.0.0.1:"), std::string::npos) << slurp(md);
  }
  state::OpenOptions existing;
  existing.create_if_missing = false;
  auto store = state::open_postgres_store(dsn, ods::system_clock(), existing);
  ASSERT_FALSE(store.has_value()) << "the dry runs created the ODS tables";
  EXPECT_EQ(store.error().code, "not_found");
}

}  // namespace
}  // namespace ods::testing
