// parse_project (parse_reuse.h) against a scripted dbt session: when the copy of the last parse
// stands, when the driver is asked to write it, the order that keeps a stopped run from leaving
// a digest beside a half-written copy, and the paths without the driver. The real dbt is in
// tests/integration/parse_reuse_test.cc.
#include "parse_reuse.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "exit_codes.h"
#include "harness/temp_dir.h"

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// A dbt session whose `dbt parse` writes `state` as the partial-parse state (unless empty) and
// whose driver writes `{}` as the manifest, noting what was on disk when it did.
class ScriptedSession final : public DbtSession {
 public:
  explicit ScriptedSession(fs::path target_dir) : target_dir_(std::move(target_dir)) {}

  Result<dbt::DbtCommandResult> run(const std::vector<std::string>& args) override {
    calls.push_back(args);
    dbt::DbtCommandResult result;
    result.exit_code = parse_exit_code;
    if (result.exit_code == 0 && !state.empty()) write_text(target_dir_ / "partial_parse.msgpack", state);
    if (result.exit_code != 0) result.error_text = "Parsing Error in model broken";
    return result;
  }
  Result<dbt::DbtCommandResult> run_with_progress(const std::vector<std::string>& args, const std::string&) override {
    return run(args);
  }
  std::vector<std::string> shared_flags() const override { return {}; }
  bool one_parse() const override { return driver && keeps; }
  bool runs_in_driver() override { return driver; }
  bool may_hold_warehouse() const override { return one_parse(); }
  Result<void> write_kept_manifest(const fs::path& dir) override {
    ++writes;
    digest_present_while_writing |= fs::exists(dir / "partial_parse.msgpack.sha256");
    if (!write_error.empty()) return fail("dbt_failed", write_error);
    write_text(dir / "manifest.json", "{}");
    return {};
  }
  Result<void> write_compiled_nodes(const fs::path& /*file*/) override {
    return fail("unsupported", "not in these tests");
  }
  std::unique_ptr<DbtSession> sibling() const override { return nullptr; }

  bool driver = true;  // runs_in_driver()
  bool keeps = true;   // the driver keeps the manifest (one_parse() after the first command)
  int parse_exit_code = 0;
  std::string state = "state one";  // what a parse leaves in partial_parse.msgpack ("": nothing)
  std::string write_error;          // write_kept_manifest fails with it
  std::vector<std::vector<std::string>> calls;
  int writes = 0;
  bool digest_present_while_writing = false;

 private:
  fs::path target_dir_;
};

class ParseProject : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path();
    ctx_.project_dir = dir_;
    ctx_.target_dir = dir_ / "target";
    ctx_.out = &out_;
    ctx_.err = &err_;
    ctx_.format = "json";  // step lines on the error stream, as with --format json
    ctx_.env.getenv = [this](const std::string& name) { return env_.contains(name) ? env_.at(name) : ""; };
    ctx_.env.is_set = [this](const std::string& name) { return env_.contains(name); };
  }

  std::expected<ParsedManifest, int> parse(ScriptedSession& session) {
    err_.str("");
    return parse_project(ctx_, session, {}, fast_);
  }

  // A project dbt's parse can read, a profile, and dbt-core's console script in a venv whose
  // site-packages holds its dist-info: what the parse's fast path digests (parse_fast_path.h).
  void make_fast_path_project() {
    write_text(dir_ / "dbt_project.yml", "name: p\nprofile: p\n");
    write_text(dir_ / "models" / "a.sql", "select 1\n");
    write_text(dir_ / "profiles.yml", "p:\n  target: dev\n  outputs:\n    dev: {type: duckdb}\n");
    const fs::path venv = dir_.parent_path() / (dir_.filename().string() + "-venv");
    write_text(venv / "bin" / "python", "");
    write_text(venv / "bin" / "dbt", "#!" + (venv / "bin" / "python").string() + "\nfrom dbt.cli.main import cli\n");
    for (const char* exe : {"python", "dbt"})
      fs::permissions(venv / "bin" / exe, fs::perms::owner_all, fs::perm_options::add);
    fs::create_directories(venv / "lib" / "python3.11" / "site-packages" / "dbt_core-1.10.2.dist-info");
    fast_.dbt = (venv / "bin" / "dbt").string();
  }

  ParseFastPathSetting fast_;

  ods::testing::TempDir tmp_{"parse_reuse"};
  fs::path dir_;
  std::map<std::string, std::string> env_;
  std::ostringstream out_, err_;
  CommandContext ctx_;
};

TEST_F(ParseProject, TheFirstParseWritesTheCopyAndTheNextWithTheSameStateStandsOnIt) {
  ScriptedSession session(ctx_.target_dir);
  auto first = parse(session);
  ASSERT_TRUE(first) << err_.str();
  EXPECT_FALSE(first->reused);
  EXPECT_EQ(first->manifest, fs::absolute(ctx_.target_dir / "ods-parse" / "manifest.json").lexically_normal());
  EXPECT_EQ(session.writes, 1);
  EXPECT_EQ(session.calls.at(0).at(1), "--no-write-json") << "the parse itself writes no manifest";
  EXPECT_TRUE(fs::exists(ctx_.target_dir / "ods-parse" / "partial_parse.msgpack.sha256"));

  auto second = parse(session);
  ASSERT_TRUE(second) << err_.str();
  EXPECT_TRUE(second->reused);
  EXPECT_EQ(second->manifest, first->manifest);
  EXPECT_EQ(session.writes, 1) << "nothing changed: nothing written";
  EXPECT_NE(err_.str().find("its manifest stands, none written"), std::string::npos) << err_.str();
}

TEST_F(ParseProject, AnotherStateWritesTheCopyAgainWithTheDigestRemovedWhileItIsWritten) {
  ScriptedSession session(ctx_.target_dir);
  ASSERT_TRUE(parse(session));
  session.state = "state two";  // dbt parsed something that changed and wrote its state
  auto changed = parse(session);
  ASSERT_TRUE(changed) << err_.str();
  EXPECT_FALSE(changed->reused);
  EXPECT_EQ(session.writes, 2);
  EXPECT_FALSE(session.digest_present_while_writing) << "a run stopped mid-write would leave a digest";
  EXPECT_TRUE(parse(session)->reused) << "the new state's digest was recorded";
}

TEST_F(ParseProject, ATamperedDigestOrAMissingCopyOrStateIsWrittenAgain) {
  ScriptedSession session(ctx_.target_dir);
  ASSERT_TRUE(parse(session));
  write_text(ctx_.target_dir / "ods-parse" / "partial_parse.msgpack.sha256", std::string(64, '0') + "\n");
  EXPECT_FALSE(parse(session)->reused);
  fs::remove(ctx_.target_dir / "ods-parse" / "manifest.json");
  EXPECT_FALSE(parse(session)->reused);
  EXPECT_TRUE(parse(session)->reused);

  fs::remove(ctx_.target_dir / "partial_parse.msgpack");
  session.state = "";  // a parse that leaves no partial-parse state (partial parsing off)
  EXPECT_FALSE(parse(session)->reused);
  EXPECT_FALSE(parse(session)->reused) << "without a state nothing proves the copy";
  EXPECT_FALSE(fs::exists(ctx_.target_dir / "ods-parse" / "partial_parse.msgpack.sha256"));
}

TEST_F(ParseProject, WithAnotherPartialParseFileTheCopyNeverStands) {
  env_["DBT_PARTIAL_PARSE_FILE_PATH"] = (dir_ / "elsewhere.msgpack").string();
  ScriptedSession session(ctx_.target_dir);
  ASSERT_TRUE(parse(session));
  EXPECT_FALSE(parse(session)->reused);
  EXPECT_EQ(session.writes, 2);
}

TEST_F(ParseProject, WithoutTheDriverOrWhenItKeepsNoParseDbtParseWritesTheManifestItself) {
  ScriptedSession process_per_command(ctx_.target_dir);
  process_per_command.driver = false;
  auto plain = parse(process_per_command);
  ASSERT_TRUE(plain) << err_.str();
  EXPECT_EQ(plain->manifest, ctx_.target_dir / "manifest.json");
  EXPECT_EQ(process_per_command.calls.size(), 1U);
  EXPECT_EQ(process_per_command.calls.at(0), std::vector<std::string>{"parse"});

  ScriptedSession declined(ctx_.target_dir);
  declined.keeps = false;
  auto again = parse(declined);
  ASSERT_TRUE(again) << err_.str();
  EXPECT_EQ(again->manifest, ctx_.target_dir / "manifest.json");
  ASSERT_EQ(declined.calls.size(), 2U) << "the parse without a manifest, then one that writes it";
  EXPECT_EQ(declined.calls.at(1), std::vector<std::string>{"parse"});
  EXPECT_EQ(declined.writes, 0);
}

TEST_F(ParseProject, AFailedParseOrWriteFailsWithTheReasonAndRecordsNoDigest) {
  ScriptedSession failing(ctx_.target_dir);
  failing.parse_exit_code = 2;
  auto failed = parse(failing);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error(), kExitFailed);
  EXPECT_NE(err_.str().find("Parsing Error in model broken"), std::string::npos) << err_.str();

  ScriptedSession unwritable(ctx_.target_dir);
  unwritable.write_error = "The ods dbt driver could not write the parsed manifest into target/ods-parse: disk full.";
  auto refused = parse(unwritable);
  ASSERT_FALSE(refused);
  EXPECT_NE(err_.str().find("disk full"), std::string::npos) << err_.str();
  EXPECT_FALSE(fs::exists(ctx_.target_dir / "ods-parse" / "partial_parse.msgpack.sha256"));
}

// The parse's fast path: after a parse recorded the digest of its inputs, a run with the same
// inputs calls no dbt at all and stands on the copy; a changed model makes dbt parse again.
TEST_F(ParseProject, WithNothingTheParseReadsChangedNoDbtRunsAndAnEditParsesAgain) {
  make_fast_path_project();
  ScriptedSession session(ctx_.target_dir);
  auto first = parse(session);
  ASSERT_TRUE(first) << err_.str();
  EXPECT_FALSE(first->fast_path);
  EXPECT_NE(err_.str().find("not the parse's fast path: something dbt's parse reads changed"), std::string::npos)
      << err_.str();
  EXPECT_TRUE(fs::exists(ctx_.target_dir / "ods-parse" / "parse_inputs.sha256"));

  const std::size_t calls = session.calls.size();
  auto fast = parse(session);
  ASSERT_TRUE(fast) << err_.str();
  EXPECT_TRUE(fast->fast_path);
  EXPECT_TRUE(fast->reused);
  EXPECT_EQ(fast->manifest, first->manifest);
  EXPECT_EQ(session.calls.size(), calls) << "no dbt command";
  EXPECT_NE(err_.str().find("nothing dbt's parse reads changed (2 files, "), std::string::npos) << err_.str();
  EXPECT_NE(err_.str().find("dbt 1.10.2): the kept parse stands, dbt not started"), std::string::npos) << err_.str();

  write_text(dir_ / "models" / "a.sql", "select 2\n");
  auto edited = parse(session);
  ASSERT_TRUE(edited) << err_.str();
  EXPECT_FALSE(edited->fast_path);
  EXPECT_EQ(session.calls.size(), calls + 1) << "dbt parse";
}

TEST_F(ParseProject, TheFastPathIsOffOrDeclinedWithTheReasonAndAFailedParseRecordsNoInputs) {
  make_fast_path_project();
  ScriptedSession session(ctx_.target_dir);
  session.parse_exit_code = 2;
  EXPECT_FALSE(parse(session));
  EXPECT_FALSE(fs::exists(ctx_.target_dir / "ods-parse" / "parse_inputs.sha256"));
  session.parse_exit_code = 0;
  ASSERT_TRUE(parse(session));
  fast_.enabled = false;
  auto off = parse(session);
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->fast_path);
  EXPECT_EQ(off->fast_path_declined, "ODS_PARSE_FAST_PATH is off");
  fast_.enabled = true;
  write_text(dir_ / "macros" / "m.sql", "{{ env_var(name) }}");
  auto declined = parse(session);
  ASSERT_TRUE(declined);
  EXPECT_NE(declined->fast_path_declined.find("macros/m.sql: env_var is called with a name that is not a literal"),
            std::string::npos)
      << declined->fast_path_declined;
  EXPECT_NE(err_.str().find("not the parse's fast path: macros/m.sql"), std::string::npos) << err_.str();
}

// After the fast path, the run's first dbt command is preceded by the driver's parse, and runs
// only while the kept copy stands (dbt's partial-parse state is the recorded one).
TEST_F(ParseProject, AfterTheFastPathTheFirstCommandRunsOnTheKeptParseOrNotAtAll) {
  make_fast_path_project();
  auto owned = std::make_unique<ScriptedSession>(ctx_.target_dir);
  ScriptedSession& session = *owned;
  ASSERT_TRUE(parse(session));
  auto wrapped = parse_before_first_command(std::move(owned), ctx_);
  ASSERT_TRUE(wrapped->run({"show"}));
  ASSERT_EQ(session.calls.size(), 3u);
  EXPECT_EQ(session.calls.at(1).at(0), "parse");
  EXPECT_EQ(session.calls.at(2).at(0), "show");
  ASSERT_TRUE(wrapped->run({"build"}));
  EXPECT_EQ(session.calls.size(), 4u) << "one parse, before the first command only";

  auto changed_owned = std::make_unique<ScriptedSession>(ctx_.target_dir);
  changed_owned->state = "state changed meanwhile";  // the driver's parse found something changed
  ScriptedSession& changed = *changed_owned;
  auto conflicted = parse_before_first_command(std::move(changed_owned), ctx_);
  auto refused = conflicted->run_with_progress({"build"}, "dbt build");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, "conflict");
  EXPECT_FALSE(conflicted->run({"build"})) << "and every command after it";
  EXPECT_EQ(changed.calls.size(), 1u) << "only the parse ran";
}

TEST_F(ParseProject, TheFastPathSettingIsOnOrOff) {
  ParsedArgs args;
  env_["ODS_PARSE_FAST_PATH"] = "off";
  auto off = parse_fast_path_setting(args, ctx_);
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->enabled);
  env_["ODS_PARSE_FAST_PATH"] = "maybe";
  auto bad = parse_fast_path_setting(args, ctx_);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "usage");
  EXPECT_NE(bad.error().message.find("ODS_PARSE_FAST_PATH is 'maybe'"), std::string::npos);
}

}  // namespace
}  // namespace ods::cli
