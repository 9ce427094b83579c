#include "ods/duckdb/storage_identity.h"

#include <charconv>
#include <cstdint>
#include <vector>

#include "ods/duckdb/storage_file.h"

namespace ods::duckdb {

namespace {

// The segments of the table named by the placeholders, in the database named by them.
constexpr const char* kSegments = "pragma_storage_info('\"{database}\".\"{schema}\".\"{identifier}\"')";

bool is_md5(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_count(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "1,2,3" as numbers; nullopt-like false on anything else.
bool parse_blocks(const std::string& text, std::vector<std::int64_t>& out) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    std::int64_t id = 0;
    auto [ptr, ec] = std::from_chars(text.data() + at, text.data() + end, id);
    if (ec != std::errc() || ptr != text.data() + end) return false;
    out.push_back(id);
    at = end + 1;
  }
  return true;
}

const std::string* column(const std::map<std::string, std::string>& answer, const char* name) {
  auto it = answer.find(name);
  return it == answer.end() ? nullptr : &it->second;
}

}  // namespace

std::string storage_statement(std::optional<unsigned long long> content_max_bytes) {
  // The segment list is read once (materialized), the rows counted once. Column 0's validity child
  // ([0, 0]) counts every row stored, deleted or not, for any type.
  const std::string usable =
      "bool_and(persistent) and not bool_or(has_updates) and (select n from ods_rows__) = "
      "sum(count) filter (where column_id = 0 and column_path = '[0, 0]')";
  const std::string bytes =
      "((select count(distinct b) from (select unnest(list_prepend(block_id, additional_block_ids)) as b from "
      "ods_segments__) where b >= 0) * coalesce((select block_size from pragma_database_size() where database_name = "
      "'{database}'), 0))";
  const std::string taken =
      content_max_bytes ? usable + " and " + bytes + " > " + std::to_string(*content_max_bytes) : usable;
  return std::string("with ods_segments__ as materialized (select * from ") + kSegments +
         "), ods_rows__ as (select count(*) as n from {relation}) "
         "select md5(string_agg(concat_ws('|', row_group_id, column_id, column_path, segment_id, segment_type, "
         "start, count, compression, stats::varchar, block_id, block_offset, additional_block_ids::varchar), ';' "
         "order by row_group_id, column_id, column_path, segment_id)) as storage_layout, "
         "coalesce((select string_agg(distinct b::varchar, ',' order by b::varchar) from (select unnest("
         "list_prepend(block_id, additional_block_ids)) as b from ods_segments__) where b >= 0), '') as "
         "storage_blocks, "
         "(select n from ods_rows__)::varchar as storage_rows, "
         "case when " +
         usable + " then '1' else '0' end as storage_usable, " + bytes + "::varchar as storage_bytes, case when " +
         taken +
         " then '1' else '0' end as storage_taken, "
         "md5(typeof((select ods_columns__ from {relation} as ods_columns__ limit 1))) as storage_schema, "
         "(select path from duckdb_databases() where database_name = '{database}') as storage_file from ods_segments__";
}

std::expected<std::string, std::string> storage_identity_of(const std::map<std::string, std::string>& answer,
                                                            const std::filesystem::path& working_dir) {
  const std::string* layout = column(answer, "storage_layout");
  const std::string* blocks = column(answer, "storage_blocks");
  const std::string* rows = column(answer, "storage_rows");
  const std::string* usable = column(answer, "storage_usable");
  const std::string* schema = column(answer, "storage_schema");
  const std::string* file = column(answer, "storage_file");
  if (!layout || !is_md5(*layout) || !rows || !is_count(*rows) || !schema || !is_md5(*schema) || !usable || !file)
    return std::unexpected(std::string("the storage statement gave no usable row"));
  if (*usable != "1")
    return std::unexpected(
        std::string("its storage holds changes not checkpointed, in-memory updates or deleted rows"));
  if (file->empty() || *file == ":memory:" || file->starts_with(":memory:"))
    return std::unexpected(std::string("its database is in memory"));
  std::vector<std::int64_t> ids;
  if (!blocks || !parse_blocks(*blocks, ids))
    return std::unexpected(std::string("the storage statement gave no block list"));
  const std::filesystem::path path(*file);
  auto digest = digest_blocks(path.is_absolute() ? path : working_dir / path, ids);
  if (!digest) return std::unexpected(digest.error());
  return "layout=" + *layout + ";rows=" + *rows + ";schema=" + *schema + ";blocks=" + *digest;
}

}  // namespace ods::duckdb
