// The storage identity on real DuckDB files, made in the test by the DuckDB of ./.venv (the one
// dbt-duckdb runs): what moves it and what does not (docs/warehouses.md "DuckDB", "Storage
// identity"), and every reason it is unknown.
#include "ods/duckdb/storage_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "harness/source_paths.h"
#include "harness/temp_dir.h"
#include "ods/duckdb/storage_identity.h"

namespace ods::duckdb {
namespace {

namespace fs = std::filesystem;

// Runs `statements` on `db` with ./.venv's DuckDB, then `query` (if any), whose first row it
// returns by column name. `keep_wal`: close without the checkpoint DuckDB makes on shutdown.
std::map<std::string, std::string> run_duckdb(const fs::path& db, const std::vector<std::string>& statements,
                                              const std::string& query = "", bool keep_wal = false) {
  const fs::path dir = db.parent_path();
  std::ofstream script(dir / "run.py");
  script << "import duckdb, sys\ncon = duckdb.connect(sys.argv[1])\n";
  if (keep_wal) script << "con.execute('pragma disable_checkpoint_on_shutdown')\n";
  script << "for line in open(sys.argv[2]).read().split('\\n;;\\n'):\n"
            "    if line.strip(): con.execute(line)\n"
            "q = open(sys.argv[3]).read()\n"
            "if q:\n"
            "    cur = con.execute(q)\n"
            "    row = cur.fetchone()\n"
            "    for d, v in zip(cur.description, row):\n"
            "        print(d[0] + '\\t' + ('' if v is None else str(v)))\n"
            "con.close()\n";
  script.close();
  std::ofstream sql(dir / "statements.sql");
  for (const auto& s : statements) sql << s << "\n;;\n";
  sql.close();
  std::ofstream(dir / "query.sql") << query;
  const std::string command = (testing::source_dir() / ".venv" / "bin" / "python").string() + " " +
                              (dir / "run.py").string() + " " + db.string() + " " + (dir / "statements.sql").string() +
                              " " + (dir / "query.sql").string() + " > " + (dir / "out.txt").string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::map<std::string, std::string> row;
  std::ifstream out(dir / "out.txt");
  for (std::string line; std::getline(out, line);)
    if (auto tab = line.find('\t'); tab != std::string::npos) row[line.substr(0, tab)] = line.substr(tab + 1);
  return row;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

class StorageIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.path() / "warehouse.duckdb";
    run_duckdb(db_, {"create table amounts as select range as id, (hash(range) >> 1)::bigint as amount "
                     "from range(200000)",
                     "create table other as select range as id from range(1000)", "checkpoint"});
  }

  // The storage statement's answer for `table`, after `statements`.
  std::map<std::string, std::string> answer(const std::string& table, const std::vector<std::string>& statements = {},
                                            bool keep_wal = false,
                                            std::optional<unsigned long long> content_max_bytes = std::nullopt) {
    std::string sql = storage_statement(content_max_bytes);
    replace_all(sql, "{database}", "warehouse");
    replace_all(sql, "{schema}", "main");
    replace_all(sql, "{identifier}", table);
    replace_all(sql, "{relation}", "\"warehouse\".\"main\".\"" + table + "\"");
    return run_duckdb(db_, statements, sql, keep_wal);
  }

  std::expected<std::string, std::string> identity(const std::vector<std::string>& statements = {}) {
    return storage_identity_of(answer("amounts", statements), dir_.path());
  }

  static std::string swap(int a, int b) {
    return "update amounts set amount = case id when " + std::to_string(a) +
           " then (select amount from amounts "
           "where id = " +
           std::to_string(b) + ") else (select amount from amounts where id = " + std::to_string(a) +
           ") end where id in (" + std::to_string(a) + ", " + std::to_string(b) + ")";
  }

  testing::TempDir dir_;
  fs::path db_;
};

// The size gate of the default (ODS_CONTENT_MAX_BYTES): the bytes of the table's blocks, and
// storage_taken 1 only above the limit (and only where the storage is usable).
TEST_F(StorageIdentityTest, SaysTheBytesOfTheTablesBlocksAndWhetherItsStorageIsTakenAboveTheLimit) {
  auto unbounded = answer("amounts");
  EXPECT_EQ(unbounded["storage_taken"], "1");
  const unsigned long long bytes = std::stoull(unbounded["storage_bytes"]);
  const auto blocks = std::count(unbounded["storage_blocks"].begin(), unbounded["storage_blocks"].end(), ',') + 1;
  EXPECT_EQ(bytes, static_cast<unsigned long long>(blocks) * 262144) << unbounded["storage_blocks"];
  EXPECT_EQ(answer("amounts", {}, false, bytes)["storage_taken"], "0");
  EXPECT_EQ(answer("amounts", {}, false, bytes - 1)["storage_taken"], "1");
  auto wal = answer("amounts", {"update amounts set amount = 0 where id = 3"}, true, 0);
  EXPECT_EQ(wal["storage_usable"], "0");
  EXPECT_EQ(wal["storage_taken"], "0");
}

TEST_F(StorageIdentityTest, ReadsTheLayoutOfAFileDuckDbWrote) {
  auto layout = read_database_layout(db_);
  ASSERT_TRUE(layout) << layout.error();
  EXPECT_EQ(layout->block_alloc_size, 262144u);
  EXPECT_GT(layout->block_count, 0u);
}

TEST_F(StorageIdentityTest, StaysTheSameWhenNothingWroteTheTable) {
  auto before = identity();
  ASSERT_TRUE(before) << before.error();
  EXPECT_EQ(identity(), before) << "reopening the file";
  EXPECT_EQ(identity({"checkpoint"}), before) << "a checkpoint with nothing to write";
  EXPECT_EQ(identity({"insert into other select range from range(100000)", "checkpoint"}), before)
      << "a write to another table";
  EXPECT_EQ(identity({"update other set id = id + 1", "checkpoint"}), before) << "an update of another table";
}

TEST_F(StorageIdentityTest, MovesWithEveryCheckpointedWriteOfTheTable) {
  auto base = identity();
  ASSERT_TRUE(base) << base.error();
  auto updated = identity({"update amounts set amount = amount + 1 where id = 10", "checkpoint"});
  ASSERT_TRUE(updated) << updated.error();
  EXPECT_NE(updated, base);
  auto inserted = identity({"insert into amounts values (-1, 5)", "checkpoint"});
  ASSERT_TRUE(inserted) << inserted.error();
  EXPECT_NE(inserted, updated);
  auto replaced = identity({"create or replace table amounts as select * from amounts order by amount", "checkpoint"});
  ASSERT_TRUE(replaced) << replaced.error();
  EXPECT_NE(replaced, inserted) << "the same rows in another order";
}

// DuckDB's block checksums can't tell these apart: the swapped values are the same 8-byte words
// in another order, on the same blocks, with the same segment list (the layout). The digest of
// the blocks' bytes does.
TEST_F(StorageIdentityTest, TellsApartSwappedValuesOnTheSameBlocksThatTheChecksumsDoNot) {
  auto recorded_answer = answer("amounts", {swap(1, 2), "checkpoint"});
  auto recorded = storage_identity_of(recorded_answer, dir_.path());
  ASSERT_TRUE(recorded) << recorded.error();
  run_duckdb(db_, {swap(1, 2), "checkpoint"});
  auto now_answer = answer("amounts", {swap(3, 4), "checkpoint"});
  ASSERT_EQ(now_answer.at("storage_layout"), recorded_answer.at("storage_layout"))
      << "the case this test is about: the same segments on the same blocks";
  ASSERT_EQ(now_answer.at("storage_blocks"), recorded_answer.at("storage_blocks"));
  auto now = storage_identity_of(now_answer, dir_.path());
  ASSERT_TRUE(now) << now.error();
  EXPECT_NE(now, recorded);
}

TEST_F(StorageIdentityTest, IsUnknownWhileTheTableHasChangesOutsideItsBlocks) {
  auto updated = answer("amounts", {"update amounts set amount = 7 where id = 3"}, true);
  EXPECT_EQ(updated.at("storage_usable"), "0") << "an update in the write-ahead log";
  EXPECT_FALSE(storage_identity_of(updated, dir_.path()));
  auto deleted = answer("amounts", {"checkpoint", "delete from amounts where id = 3", "checkpoint"});
  EXPECT_EQ(deleted.at("storage_usable"), "0") << "a deleted row, checkpointed: the blocks stay as they were";
  EXPECT_FALSE(storage_identity_of(deleted, dir_.path()));
}

// dbt-duckdb leaves a write-ahead log after its calls: changes to other tables in it don't matter
// (changes to this one make the statement refuse, above).
TEST_F(StorageIdentityTest, StaysTheSameBesideAWriteAheadLogOfOtherTables) {
  auto before = identity();
  ASSERT_TRUE(before) << before.error();
  run_duckdb(db_, {"insert into other values (1)"}, "", true);
  ASSERT_GT(fs::file_size(db_.string() + ".wal"), 0u);
  auto listed = answer("amounts", {}, true);  // read as dbt-duckdb does: the log replayed, kept
  ASSERT_GT(fs::file_size(db_.string() + ".wal"), 0u);
  EXPECT_EQ(storage_identity_of(listed, dir_.path()), before);
}

TEST_F(StorageIdentityTest, IsUnknownForABlockThatIsNotWhereTheListSays) {
  auto usable = answer("amounts");
  auto layout = read_database_layout(db_);
  ASSERT_TRUE(layout);
  auto outside = usable;
  outside["storage_blocks"] = std::to_string(layout->block_count);
  EXPECT_FALSE(storage_identity_of(outside, dir_.path()));
  // One byte of a block changed behind DuckDB's back: its checksum no longer holds.
  {
    std::fstream file(db_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(12288 + 100);
    file.put('\x5a');
  }
  auto first = usable;
  first["storage_blocks"] = "0";
  auto torn = storage_identity_of(first, dir_.path());
  ASSERT_FALSE(torn);
  EXPECT_NE(torn.error().find("checksum"), std::string::npos) << torn.error();
}

TEST_F(StorageIdentityTest, IsUnknownForAFileItCantRead) {
  EXPECT_FALSE(read_database_layout(dir_.path() / "missing.duckdb"));
  std::ofstream(dir_.path() / "text.duckdb") << std::string(20000, 'x');
  EXPECT_FALSE(read_database_layout(dir_.path() / "text.duckdb"));
  fs::copy_file(db_, dir_.path() / "short.duckdb");
  fs::resize_file(dir_.path() / "short.duckdb", 8192);
  auto short_file = read_database_layout(dir_.path() / "short.duckdb");
  ASSERT_FALSE(short_file);
  EXPECT_NE(short_file.error().find("shorter"), std::string::npos) << short_file.error();
  auto in_memory = answer("amounts");
  in_memory["storage_file"] = ":memory:";
  EXPECT_FALSE(storage_identity_of(in_memory, dir_.path()));
  auto malformed = answer("amounts");
  malformed["storage_blocks"] = "1,x";
  EXPECT_FALSE(storage_identity_of(malformed, dir_.path()));
}

}  // namespace
}  // namespace ods::duckdb
