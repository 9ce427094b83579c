// Issue #14 on examples/shop (DuckDB): dim_customers' pre-hook reads env_var SHOP_AUDIT_TAG.
// With a digest key its value is fingerprinted by a keyed digest: unchanged -> reused;
// changed -> built, naming the hook and the variable; a new key -> built once; no key ->
// today's always-build rule, saying how to enable it. The value, and any unkeyed digest of
// it, is in neither the state database nor anything ODS prints or writes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "harness/shop_baseline.h"
#include "ods/base/sha256.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFirstValue = "audit-value-first-7f3a91";
constexpr const char* kSecondValue = "audit-value-second-c02d4e";

class ShopHookDigest : public ::testing::Test {
 protected:
  void SetUp() override {
    project_.emplace("shop");
    config_ = project_->dir() / "config-home";
    fs::create_directories(config_);
    project_->add_env({"XDG_CONFIG_HOME=" + config_.string(), "ODS_DIGEST_KEY="});
    set_tag(kFirstValue);
    ODS_ASSERT_OK(project_->generate_data());
  }

  void set_tag(const std::string& value) { project_->add_env({"SHOP_AUDIT_TAG=" + value}); }

  // The plan of `ods state run --format json` (`dry`: --dry-run, which compiles and probes but
  // builds and records nothing); records every output seen.
  nlohmann::json run_plan(bool dry = false) {
    std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", project_->dir().string()};
    if (dry) args.push_back("--dry-run");
    ProcessResult r = project_->ods(args);
    outputs_ += r.output + r.errors;
    EXPECT_EQ(r.exit_code, 0) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
    auto doc = nlohmann::json::parse(r.output, nullptr, false);
    return doc.is_discarded() || !doc.contains("plan") ? nlohmann::json{{"entries", nlohmann::json::array()}}
                                                       : doc.at("plan");
  }

  // Every byte ODS wrote: the state store (.ods/) and what it printed.
  std::string everything_ods_wrote() const {
    std::string all = outputs_;
    for (const auto& f : fs::recursive_directory_iterator(project_->dir() / ".ods")) {
      if (f.is_regular_file()) all += read_text_file(f.path());
    }
    return all;
  }

  std::optional<DbtProject> project_;
  fs::path config_;
  std::string outputs_;
};

TEST_F(ShopHookDigest, AKeyedDigestOfTheEnvValueDecidesAndNothingLeaksIt) {
  // No key: today's rule, saying how to enable the digest.
  const nlohmann::json first = run_plan();
  EXPECT_EQ(decision(entry(first, "dim_customers")), "build:never_built");
  const nlohmann::json no_key = run_plan(/*dry=*/true);
  const auto& without = entry(no_key, "dim_customers");
  EXPECT_EQ(decision(without), "build:reads_run_context");
  EXPECT_NE(without.at("reasons").at(0).at("message").get<std::string>().find("ODS_DIGEST_KEY"), std::string::npos);

  // A new key: the hook's reads become components, so the node builds once, then is reused.
  ODS_ASSERT_OK(project_->ods({"state", "key", "--create"}));
  const fs::path key_file = config_ / "ods" / "digest.key";
  struct stat info {};
  ASSERT_EQ(::stat(key_file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600U);
  EXPECT_EQ(project_->ods({"state", "key", "--create"}).exit_code, 1) << "an existing key is never replaced";
  const nlohmann::json new_key = run_plan();
  EXPECT_EQ(decision(entry(new_key, "dim_customers")), "build:fingerprint_changed");
  const nlohmann::json unchanged = run_plan();
  EXPECT_EQ(decision(entry(unchanged, "dim_customers")), "reuse:unchanged")
      << entry(unchanged, "dim_customers").dump(2);

  // The value changes: dim_customers and its readers build, the reason names hook and variable.
  set_tag(kSecondValue);
  const nlohmann::json changed = run_plan(/*dry=*/true);
  const auto& dim = entry(changed, "dim_customers");
  EXPECT_EQ(decision(dim), "build:fingerprint_changed");
  const std::string why = dim.at("reasons").at(0).at("message");
  EXPECT_NE(why.find("hook pre-hook 1 env_var SHOP_AUDIT_TAG changed"), std::string::npos) << why;
  // The manifest the runs read: a run writes no target/manifest.json unless asked (docs/cli.md, "No
  // manifest written by a change run"); the parse's copy is kept in target/ods-parse.
  const std::string parsed = project_->read("target/ods-parse/manifest.json");
  const auto manifest = nlohmann::json::parse(parsed.empty() ? project_->read("target/manifest.json") : parsed);
  for (const auto& child : manifest.at("child_map").at(dim.at("id").get<std::string>())) {
    for (const auto& e : changed.at("entries")) {
      if (e.at("id") == child) {
        EXPECT_EQ(decision(e), "build:upstream_code_changed") << e.dump(2);
      }
    }
  }

  // A key file others can read is refused, naming it; nothing is planned or recorded.
  ASSERT_EQ(::chmod(key_file.c_str(), 0644), 0);
  const std::string history = project_->ods({"state", "history", "--format", "json"}).output;
  ProcessResult refused = project_->ods({"state", "plan"});
  outputs_ += refused.output + refused.errors;
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.errors.find(key_file.string() + ": group or others can read or write it (mode 0644)"),
            std::string::npos)
      << refused.errors;
  EXPECT_EQ(project_->ods({"state", "key"}).exit_code, 1);
  EXPECT_EQ(project_->ods({"state", "history", "--format", "json"}).output, history);
  ASSERT_EQ(::chmod(key_file.c_str(), 0600), 0);
  ProcessResult key = project_->ods({"state", "key"});
  ODS_ASSERT_OK(key);
  EXPECT_EQ(key.output, "digest key from " + key_file.string() + "\n");

  // Neither value, nor an unkeyed digest of it, in the state store or ODS's output.
  const std::string written = everything_ods_wrote();
  ASSERT_FALSE(written.empty());
  for (const std::string value : {kFirstValue, kSecondValue}) {
    for (const std::string& secret : {value, sha256_hex(value), sha256_hex("SHOP_AUDIT_TAG=" + value)}) {
      EXPECT_EQ(written.find(secret), std::string::npos) << "found " << secret;
      EXPECT_EQ(written.find(secret.substr(0, 12)), std::string::npos) << "found a prefix of " << secret;
    }
  }
}

}  // namespace
}  // namespace ods::testing
