// The note of the manifest an `ods state run` read when its build wrote none (run_manifest.h),
// against a scripted dbt session: when it is read, when a later dbt command's manifest or a later
// parse makes it stale, and that a bad note is an error, not a stale manifest read in its place.
// The real dbt is in tests/integration/manifest_handover_test.cc.
#include "run_manifest.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "file_bytes.h"
#include "harness/temp_dir.h"

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

// Writes `text` as `path`, its folder created first.
void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  ASSERT_TRUE(write_bytes(path, text, fs::perms::owner_read | fs::perms::owner_write)) << path;
}

// A file written after every other: its time one second past `than`'s.
void write_after(const fs::path& path, const std::string& text, const fs::path& than) {
  write_text(path, text);
  fs::last_write_time(path, fs::last_write_time(than) + std::chrono::seconds(1));
}

// A dbt session whose driver writes `{}` as the compiled nodes (or fails with `write_error`).
class HandingOverSession final : public DbtSession {
 public:
  Result<dbt::DbtCommandResult> run(const std::vector<std::string>&) override { return dbt::DbtCommandResult{}; }
  Result<dbt::DbtCommandResult> run_with_progress(const std::vector<std::string>& args, const std::string&) override {
    return run(args);
  }
  std::vector<std::string> shared_flags() const override { return {}; }
  bool one_parse() const override { return true; }
  bool runs_in_driver() override { return true; }
  bool may_hold_warehouse() const override { return true; }
  Result<void> write_kept_manifest(const fs::path&) override { return fail("unsupported", "not in these tests"); }
  Result<void> write_compiled_nodes(const fs::path& file) override {
    if (!write_error.empty()) return fail("dbt_failed", write_error);
    write_text(file, "{}");
    return {};
  }
  std::unique_ptr<DbtSession> sibling() const override { return nullptr; }

  std::string write_error;
};

class RunManifestNote : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_.project_dir = tmp_.path();
    ctx_.target_dir = tmp_.path() / "target";
    ctx_.out = &out_;
    ctx_.err = &err_;
    parse_copy_ = ctx_.target_dir / "ods-parse" / "manifest.json";
    write_text(parse_copy_, "{\"parsed\": 1}");
  }

  fs::path target_manifest() const { return ctx_.target_dir / "manifest.json"; }

  ods::testing::TempDir tmp_{"run_manifest"};
  std::ostringstream out_, err_;
  CommandContext ctx_;
  fs::path parse_copy_;
  HandingOverSession session_;
};

TEST_F(RunManifestNote, NoNoteReadsTargetManifest) {
  auto read = last_run_manifest(ctx_);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->has_value());
}

TEST_F(RunManifestNote, TheNoteNamesTheParsedManifestTheBuildsCompiledNodesAndItsInvocation) {
  write_text(target_manifest(), "{\"an earlier command's\": 1}");
  ASSERT_TRUE(note_run_manifest(ctx_, session_, parse_copy_, "build-1"));
  fs::last_write_time(run_manifest_note(ctx_), fs::last_write_time(target_manifest()) + std::chrono::seconds(1));
  auto read = last_run_manifest(ctx_);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_TRUE(read->has_value()) << "newer than target/manifest.json: the run's is read";
  EXPECT_EQ((*read)->manifest, fs::absolute(parse_copy_).lexically_normal());
  EXPECT_EQ((*read)->compiled_nodes,
            fs::absolute(ctx_.target_dir / "ods-parse" / "run_compiled_nodes.json").lexically_normal());
  EXPECT_TRUE(fs::exists((*read)->compiled_nodes));
  EXPECT_EQ((*read)->invocation_id, "build-1");

  fs::remove(target_manifest());
  read = last_run_manifest(ctx_);
  ASSERT_TRUE(read && read->has_value()) << "no target/manifest.json: the run's is read";
}

TEST_F(RunManifestNote, AProjectCopiedWithItsTargetReadsItsOwnFiles) {
  ASSERT_TRUE(note_run_manifest(ctx_, session_, parse_copy_, "build-1"));
  ods::testing::TempDir other{"run_manifest_copy"};
  fs::copy(ctx_.target_dir, other.path() / "target", fs::copy_options::recursive);
  CommandContext copied = ctx_;
  copied.project_dir = other.path();
  copied.target_dir = other.path() / "target";
  auto read = last_run_manifest(copied);
  ASSERT_TRUE(read && read->has_value()) << (read ? "no note read" : read.error().message);
  EXPECT_EQ((*read)->manifest, fs::absolute(copied.target_dir / "ods-parse" / "manifest.json").lexically_normal());
  // std::filesystem::copy gives the copies new times: the manifest reads as rewritten, so alone.
  EXPECT_TRUE((*read)->compiled_nodes.empty() ||
              (*read)->compiled_nodes.parent_path() == (*read)->manifest.parent_path());
}

TEST_F(RunManifestNote, ALaterDbtCommandsManifestTakesOver) {
  ASSERT_TRUE(note_run_manifest(ctx_, session_, parse_copy_, "build-1"));
  write_after(target_manifest(), "{\"dbt compile\": 1}", run_manifest_note(ctx_));
  auto read = last_run_manifest(ctx_);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->has_value());
}

TEST_F(RunManifestNote, AManifestRewrittenByALaterParseIsReadAloneWithoutTheBuildsNodes) {
  ASSERT_TRUE(note_run_manifest(ctx_, session_, parse_copy_, "build-1"));
  write_after(parse_copy_, "{\"parsed\": 2, \"other code\": true}", run_manifest_note(ctx_));
  auto read = last_run_manifest(ctx_);
  ASSERT_TRUE(read && read->has_value());
  EXPECT_EQ((*read)->manifest, fs::absolute(parse_copy_).lexically_normal());
  EXPECT_TRUE((*read)->compiled_nodes.empty()) << "compiled from other code";
  EXPECT_TRUE((*read)->invocation_id.empty()) << "run_results.json is not of this manifest's command";
}

TEST_F(RunManifestNote, ABadNoteOrOneWhoseFilesAreGoneIsAnErrorNotAStaleManifest) {
  write_text(target_manifest(), "{\"an earlier command's\": 1}");
  ASSERT_TRUE(note_run_manifest(ctx_, session_, parse_copy_, "build-1"));
  fs::last_write_time(run_manifest_note(ctx_), fs::last_write_time(target_manifest()) + std::chrono::seconds(1));
  fs::remove(ctx_.target_dir / "ods-parse" / "run_compiled_nodes.json");
  auto read = last_run_manifest(ctx_);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, "invalid_artifact");
  EXPECT_NE(read.error().message.find("run_compiled_nodes.json, which is gone"), std::string::npos)
      << read.error().message;

  write_after(run_manifest_note(ctx_), "not json", target_manifest());
  read = last_run_manifest(ctx_);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, "invalid_artifact");
}

TEST_F(RunManifestNote, AFailedHandOverLeavesNoNote) {
  ASSERT_TRUE(note_run_manifest(ctx_, session_, parse_copy_, "build-1"));
  session_.write_error = "no parsed manifest";
  auto noted = note_run_manifest(ctx_, session_, parse_copy_, "build-2");
  ASSERT_FALSE(noted);
  EXPECT_EQ(noted.error().code, "dbt_failed");
  EXPECT_FALSE(fs::exists(run_manifest_note(ctx_))) << "no note of an earlier build is left";
}

}  // namespace
}  // namespace ods::cli
