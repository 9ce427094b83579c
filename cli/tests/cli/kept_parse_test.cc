// The kept parse of `ods pod` (kept_parse.h) on real folders: a saved parse restored into a fresh
// target folder, one slot per scope replaced by each save, nothing saved when the parse is not
// whole or dbt's state is not the copy's, nothing saved again when the restored parse stood, a
// damaged entry not restored, a target folder with a parse of its own left alone.
#include "kept_parse.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "harness/temp_dir.h"
#include "ods/base/sha256.h"

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

class KeptParseTest : public ::testing::Test {
 protected:
  // A parse in `target` as parse_project leaves it: dbt's state, the copy and its two digests.
  static void write_parse(const fs::path& target, const std::string& state, const std::string& inputs) {
    write(target / "partial_parse.msgpack", state);
    write(target / "ods-parse" / "manifest.json", "{\"nodes\": {}, \"state\": \"" + state + "\"}");
    write(target / "ods-parse" / "partial_parse.msgpack.sha256", sha256_hex(state) + "\n");
    write(target / "ods-parse" / "parse_inputs.sha256", inputs + "\n");
  }
  fs::path target(const std::string& pod) const { return dir_.path() / pod / "target"; }

  testing::TempDir dir_{"kept-parse"};
  fs::path cache_ = dir_.path() / "cache";
};

TEST_F(KeptParseTest, ASavedParseIsRestoredIntoAFreshPodsTargetFolder) {
  KeptParseSlot first = kept_parse_slot(cache_, "shop/pg");
  EXPECT_NE(restore_kept_parse(first, target("pod-1")).find("no kept parse for this scope"), std::string::npos);
  write_parse(target("pod-1"), "state-1", "inputs-1");
  write(target("pod-1") / "ods-parse" / "semantic_manifest.json", "{}");
  write(target("pod-1") / "ods-parse" / "compiled_nodes.json", "{}");  // this run's: not kept
  EXPECT_NE(save_kept_parse(first, target("pod-1")).find("kept parse saved to the cache"), std::string::npos);

  KeptParseSlot second = kept_parse_slot(cache_, "shop/pg");
  EXPECT_EQ(second.key, first.key);
  EXPECT_NE(kept_parse_slot(cache_, "shop/dev").key, first.key);
  EXPECT_NE(restore_kept_parse(second, target("pod-2")).find("kept parse restored"), std::string::npos);
  EXPECT_EQ(text_of(target("pod-2") / "partial_parse.msgpack"), "state-1");
  EXPECT_EQ(text_of(target("pod-2") / "ods-parse" / "parse_inputs.sha256"), "inputs-1\n");
  EXPECT_TRUE(fs::exists(target("pod-2") / "ods-parse" / "semantic_manifest.json"));
  EXPECT_FALSE(fs::exists(target("pod-2") / "ods-parse" / "compiled_nodes.json"));
  // The run stood on it: nothing to save.
  EXPECT_NE(save_kept_parse(second, target("pod-2")).find("stood: not saved again"), std::string::npos);

  // Another parse replaces the slot's entry.
  fs::remove_all(target("pod-2"));
  write_parse(target("pod-2"), "state-2", "inputs-2");
  EXPECT_NE(save_kept_parse(second, target("pod-2")).find("kept parse saved"), std::string::npos);
  KeptParseSlot third = kept_parse_slot(cache_, "shop/pg");
  EXPECT_NE(restore_kept_parse(third, target("pod-3")).find("kept parse restored"), std::string::npos);
  EXPECT_EQ(text_of(target("pod-3") / "ods-parse" / "parse_inputs.sha256"), "inputs-2\n");
}

TEST_F(KeptParseTest, NothingIsSavedOfAParseThatIsNotWholeOrNotTheCopysState) {
  KeptParseSlot slot = kept_parse_slot(cache_, "shop/pg");
  write_parse(target("pod-1"), "state-1", "inputs-1");
  fs::remove(target("pod-1") / "ods-parse" / "parse_inputs.sha256");  // the fast path was not considered
  EXPECT_NE(save_kept_parse(slot, target("pod-1")).find("left no ods-parse/parse_inputs.sha256"), std::string::npos);
  write_parse(target("pod-1"), "state-1", "inputs-1");
  write(target("pod-1") / "partial_parse.msgpack", "a dbt command parsed since");
  EXPECT_NE(save_kept_parse(slot, target("pod-1")).find("not the one the parse's copy was written with"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(cache_ / "kept-parse" / slot.key));
}

TEST_F(KeptParseTest, ADamagedEntryOrATargetWithAParseOfItsOwnIsNotRestored) {
  KeptParseSlot slot = kept_parse_slot(cache_, "shop/pg");
  write_parse(target("pod-1"), "state-1", "inputs-1");
  ASSERT_NE(save_kept_parse(slot, target("pod-1")).find("kept parse saved"), std::string::npos);
  KeptParseSlot again = kept_parse_slot(cache_, "shop/pg");
  EXPECT_NE(restore_kept_parse(again, target("pod-1")).find("holds a parse of its own"), std::string::npos);

  write(cache_ / "kept-parse" / slot.key / "parse" / "ods-parse" / "manifest.json", "{\"planted\": true}");
  const std::string said = restore_kept_parse(again, target("pod-2"));
  EXPECT_NE(said.find("is damaged (parse/ods-parse/manifest.json does not match its digest)"), std::string::npos)
      << said;
  EXPECT_FALSE(fs::exists(target("pod-2") / "ods-parse"));
  EXPECT_FALSE(fs::exists(target("pod-2") / "partial_parse.msgpack"));
  EXPECT_TRUE(again.restored_inputs_digest.empty());
}

}  // namespace
}  // namespace ods::cli
