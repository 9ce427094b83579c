#include "harness/relation_contents.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

namespace ods::testing {

namespace {

// The content of each relation as rows (rel, content): "rows/hash/columns", the columns' names
// and types in order (a relation with the control's rows but other column types differs too);
// `from` gives the relation's FROM text.
std::string contents_sql(const Warehouse& w, const std::vector<std::string>& relations,
                         const std::function<std::string(const std::string&)>& from) {
  const bool duckdb = w.content_origin() == "duckdb_content";
  const std::string hash =
      duckdb ? "coalesce(sum(hash(ods_row__)), 0)::varchar"
             : "coalesce(sum(('x' || left(md5(ods_row__::text), 16))::bit(64)::bigint::numeric), 0)::text";
  auto columns = [&](const std::string& rel) -> std::string {
    if (duckdb) return "typeof((select ods_columns__ from " + from(rel) + " as ods_columns__ limit 1))";
    return "(select string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' order by a.attnum) "
           "from pg_attribute a where a.attrelid = '" +
           from(rel) + "'::regclass and a.attnum > 0 and not a.attisdropped)";
  };
  std::string sql;
  for (const auto& rel : relations) {
    if (!sql.empty()) sql += " union all ";
    sql += "select '" + rel + "' as rel, count(*)::varchar || '/' || " + hash + " || '/' || " + columns(rel) +
           " as content from " + from(rel) + " as ods_row__";
  }
  return sql;
}

// Through `dbt show --inline` (refs resolved by dbt).
std::map<std::string, std::string> contents_through_dbt(const DbtProject& p, const Warehouse& w,
                                                        const std::vector<std::string>& relations) {
  const std::string sql = contents_sql(w, relations, [](const std::string& rel) { return "{{ ref('" + rel + "') }}"; });
  std::vector<std::string> args{
      "show", "--inline", sql, "--output", "json", "--limit", std::to_string(relations.size()), "--log-format", "json"};
  auto target = w.target_args();
  args.insert(args.end(), target.begin(), target.end());
  ProcessResult r = p.dbt(args);
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  std::map<std::string, std::string> out;
  std::size_t start = 0;
  while (start < r.output.size()) {
    std::size_t end = r.output.find('\n', start);
    if (end == std::string::npos) end = r.output.size();
    auto event = nlohmann::json::parse(r.output.substr(start, end - start), nullptr, false);
    start = end + 1;
    if (event.is_discarded() || !event.contains("data") || !event["data"].contains("preview")) continue;
    auto preview = event["data"]["preview"];
    if (preview.is_string()) preview = nlohmann::json::parse(preview.get<std::string>());
    for (const auto& row : preview) out[row.at("rel").get<std::string>()] = row.at("content").get<std::string>();
  }
  return out;
}

// Straight from the project's DuckDB file (relations in schema main), a second quicker than dbt.
std::map<std::string, std::string> contents_from_duckdb_file(const DbtProject& p, const Warehouse& w,
                                                             const std::vector<std::string>& relations) {
  const std::string sql = contents_sql(w, relations, [](const std::string& rel) { return "main." + rel; });
  const std::string script =
      "import duckdb,json,sys\ncon=duckdb.connect(sys.argv[2], read_only=True)\n"
      "print(json.dumps(dict(con.execute(sys.argv[1]).fetchall())))\n";
  ProcessResult r = run_process({(p.venv() / "python").string(), "-c", script, sql, p.duckdb_file()}, p.dir(), p.env());
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  if (doc.is_discarded()) return {};
  return doc.get<std::map<std::string, std::string>>();
}

}  // namespace

std::map<std::string, std::string> relation_contents(const DbtProject& p, const Warehouse& w,
                                                     const std::vector<std::string>& relations) {
  auto out = w.content_origin() == "duckdb_content" ? contents_from_duckdb_file(p, w, relations)
                                                    : contents_through_dbt(p, w, relations);
  EXPECT_EQ(out.size(), relations.size()) << "relations missing from the contents read";
  return out;
}

bool full_build(const DbtProject& p, const Warehouse& w, bool with_tests) {
  std::vector<std::string> args{"build", "--full-refresh", "--exclude", "resource_type:snapshot"};
  if (!with_tests) args.emplace_back("resource_type:test");
  auto target = w.target_args();
  args.insert(args.end(), target.begin(), target.end());
  ProcessResult built = p.dbt(args);
  EXPECT_EQ(built.exit_code, 0) << built.output << built.errors;
  return built.exit_code == 0;
}

}  // namespace ods::testing
