#include "crash/sqlite_state.h"

#include <sqlite3.h>

#include <functional>

namespace ods::testing {

namespace {

std::string text_column(sqlite3_stmt* st, int i) {
  const unsigned char* t = sqlite3_column_text(st, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

// Runs `sql`, calling `row` for each result row; an error message or "".
std::string query(sqlite3* db, const char* sql, const std::function<void(sqlite3_stmt*)>& row) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) return sqlite3_errmsg(db);
  int rc = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) row(st);
  std::string error = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
  sqlite3_finalize(st);
  return error;
}

}  // namespace

RecordedState read_sqlite_state(const std::filesystem::path& path) {
  RecordedState state;
  if (!std::filesystem::exists(path)) return state;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    state.error = "open " + path.string() + ": " + (db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return state;
  }
  sqlite3_busy_timeout(db, 10000);
  state.error = query(db,
                      "select s.seq, s.id, coalesce(s.parent_id, ''), s.scope, s.run_id, d.body from snapshots s "
                      "join documents d on d.id = s.document_id order by s.seq",
                      [&](sqlite3_stmt* st) {
                        RecordedSnapshot s{
                            sqlite3_column_int64(st, 0), text_column(st, 1),
                            text_column(st, 2),          text_column(st, 3),
                            text_column(st, 4),          nlohmann::json::parse(text_column(st, 5), nullptr, false)};
                        if (s.document.is_discarded()) state.error = "snapshot " + s.id + ": document is not JSON";
                        state.snapshots.push_back(std::move(s));
                      });
  if (state.error.empty()) {
    state.error = query(db, "select scope, snapshot_id from heads order by scope",
                        [&](sqlite3_stmt* st) { state.heads.emplace_back(text_column(st, 0), text_column(st, 1)); });
  }
  if (state.error.empty()) {
    state.error = query(db, "select run_id from runs order by seq",
                        [&](sqlite3_stmt* st) { state.run_ids.push_back(text_column(st, 0)); });
  }
  sqlite3_close(db);
  return state;
}

}  // namespace ods::testing
