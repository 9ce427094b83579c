#include "test_support.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ods::state::testing {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::vector<std::string> list_dir(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::ranges::sort(names);
  return names;
}

namespace {

struct RawDb {
  explicit RawDb(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << "cannot open " << path << ": " << sqlite3_errmsg(db);
    }
  }
  ~RawDb() { sqlite3_close_v2(db); }
  sqlite3* db = nullptr;
};

}  // namespace

void raw_exec(const std::string& path, const std::string& sql) {
  RawDb raw(path);
  char* message = nullptr;
  if (sqlite3_exec(raw.db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    ADD_FAILURE() << "raw SQL failed on " << path << ": " << (message ? message : "?") << "\n" << sql;
  }
  sqlite3_free(message);
}

std::string raw_query(const std::string& path, const std::string& sql) {
  RawDb raw(path);
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(raw.db, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "raw query failed: " << sqlite3_errmsg(raw.db) << "\n" << sql;
    return {};
  }
  std::string value;
  if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0) != nullptr) {
    value = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
  }
  sqlite3_finalize(statement);
  return value;
}

}  // namespace ods::state::testing
