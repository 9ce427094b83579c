#include "ods/postgres/postgres_versions.h"

#include <string>

#include "ods/content/content_versions.h"
#include "ods/metadata/metadata_versions.h"
#include "statistics_settle.h"

namespace ods::postgres {

namespace {

using metadata::column;
using metadata::MetadataReading;

// The relation's columns of pg_attribute, by its schema and name ({schema}, {identifier}).
constexpr const char* kColumnsOfRelation =
    " from pg_catalog.pg_attribute a join pg_catalog.pg_class c on c.oid = a.attrelid join pg_catalog.pg_namespace n "
    "on n.oid = c.relnamespace where n.nspname = '{schema}' and c.relname = '{identifier}' and a.attnum > 0 and not "
    "a.attisdropped";

// The md5 of the relation's columns (quoted names and format_type, in order).
std::string columns_digest() {
  return std::string(
             "(select md5(string_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod), "
             "', ' order by a.attnum))") +
         kColumnsOfRelation + ")";
}

// Whether every column's type is one whose 64-bit hash tells all its values apart (no numeric
// scale, float zero sign or interval unit folded into one hash; deterministic collations only).
// False for a relation whose columns weren't found: then the text form is hashed.
std::string rows_hash_by_value() {
  return std::string(
             "(select coalesce(bool_and(a.atttypid = any (array['bool', 'int2', 'int4', 'int8', 'oid', 'text', "
             "'varchar', 'date', 'time', 'timestamp', 'timestamptz', 'uuid', 'bytea', '\"char\"']::pg_catalog."
             "regtype[]) and (a.attcollation = 0 or (select co.collisdeterministic from pg_catalog.pg_collation co "
             "where co.oid = a.attcollation))), false)") +
         kColumnsOfRelation + ")";
}

// ods_row__: the whole row while no column has that name (a column wins over a table alias). The
// condition is a scalar subquery, evaluated once (an init plan), so each row takes one branch.
std::string content_sql() {
  return "select count(*)::text as row_count, coalesce(sum(case when " + rows_hash_by_value() +
         " then pg_catalog.hash_record_extended(ods_row__, 0) else pg_catalog.hashtextextended(ods_row__::text, 0) "
         "end), 0)::text as content_hash, " +
         columns_digest() + " as content_schema from {relation} as ods_row__";
}

// One row of the catalog and the statistics (see the header). A view's size is that of the
// relations its rule reads directly (a view it reads counts as 0: the size only gates the cost).
std::string statistics_sql() {
  return std::string(
             "select c.relkind::text as relkind, c.oid::text as relation_oid, c.relfilenode::text as relfilenode, "
             "(case when c.relkind = 'v' then (select coalesce(sum(pg_catalog.pg_table_size(t.oid)), 0) from "
             "pg_catalog.pg_class t where t.oid in (select d.refobjid from pg_catalog.pg_rewrite w join "
             "pg_catalog.pg_depend d on d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass and d.objid = "
             "w.oid and d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass where w.ev_class = c.oid and "
             "d.refobjid <> c.oid)) else pg_catalog.pg_table_size(c.oid) end)::text as bytes, "
             "s.n_tup_ins::text as n_tup_ins, s.n_tup_upd::text as n_tup_upd, s.n_tup_del::text as n_tup_del, "
             "(select d.stats_reset::text from pg_catalog.pg_stat_database d where d.datname = "
             "pg_catalog.current_database()) as database_stats_reset, "
             "(select w.stats_reset::text from pg_catalog.pg_stat_wal w) as cluster_stats_reset, "
             "pg_catalog.pg_postmaster_start_time()::text as server_started, "
             "pg_catalog.pg_is_in_recovery()::text as in_recovery, "
             "pg_catalog.current_setting('track_counts') as track_counts, "
             "(exists (select 1 from pg_catalog.pg_inherits i where i.inhparent = c.oid))::text as has_children, "
             "(select count(*) filter (where ") +
         hidden_session_sql() + ")::text || ' ' || count(*) filter (where " + unsettled_session_sql() + ")::text" +
         other_sessions_sql("c.oid") + ") as other_sessions, " + columns_digest() +
         " as content_schema from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace "
         "left join pg_catalog.pg_stat_user_tables s on s.relid = c.oid where n.nspname = '{schema}' and c.relname = "
         "'{identifier}'";
}

bool is_count(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

std::string kind_name(const std::string& relkind) {
  if (relkind == "v") return "a view";
  if (relkind == "m") return "a materialized view";
  if (relkind == "p") return "a partitioned table";
  if (relkind == "f") return "a foreign table";
  return "a relation of kind '" + relkind + "'";
}

// The statistics row of one relation, as a semantic version only when it is sure to have moved
// with every change (see the header).
MetadataReading read_statistics_row(const contracts::ProbeAnswer& answer, const std::string& observed_at) {
  auto rows = answer.rows.find(metadata::kMetadataStatement);
  if (rows == answer.rows.end()) return {{}, "PostgreSQL's catalog shows no relation of this name"};
  const contracts::ProbeRow& row = rows->second;
  const std::string relkind = column(row, "relkind");
  if (relkind != "r")
    return {{},
            kind_name(relkind) + ", whose rows no statistics of its own count (only its content is evidence of it)"};
  if (column(row, "has_children") != "false")
    return {{}, "it has inheritance children, whose rows it shows but whose changes only their own statistics count"};
  if (column(row, "in_recovery") != "false")
    return {{}, "the server is a standby, whose statistics don't count the changes it replays"};
  if (column(row, "track_counts") != "on")
    return {{}, "the server's track_counts is off, so its statistics count no changes"};
  const std::string ins = column(row, "n_tup_ins"), upd = column(row, "n_tup_upd"), del = column(row, "n_tup_del");
  if (!is_count(ins) || !is_count(upd) || !is_count(del))
    return {{}, "pg_stat_user_tables gave no insert, update and delete counts for it"};
  const std::string others = column(row, "other_sessions");
  const auto space = others.find(' ');
  const std::string hidden = others.substr(0, space);
  const std::string busy = space == std::string::npos ? "" : others.substr(space + 1);
  if (!is_count(hidden) || !is_count(busy)) return {{}, "pg_stat_activity gave no count of the other sessions"};
  if (hidden != "0")
    return {{},
            hidden +
                " other session(s) of the database whose role may write it hide their state from this role "
                "(pg_read_all_stats would show it), so changes they committed may not be counted yet"};
  if (busy != "0")
    return {{},
            busy + " other session(s) of the database whose role may write it were busy within the last " +
                std::to_string(kStatisticsSettleSeconds) +
                " s, so changes they committed may not be counted in the statistics yet (a session's counts are "
                "flushed up to 10 s after it goes idle)"};
  const std::string digest = column(row, "content_schema");
  return {planner::DataVersion{"oid=" + column(row, "relation_oid") + ";relfilenode=" + column(row, "relfilenode") +
                                   ";ins=" + ins + ";upd=" + upd + ";del=" + del +
                                   ";database_stats_reset=" + column(row, "database_stats_reset") +
                                   ";cluster_stats_reset=" + column(row, "cluster_stats_reset") +
                                   ";server_started=" + column(row, "server_started") + ";schema=" + digest,
                               planner::Exactness::semantic, kStatisticsOrigin, observed_at},
          ""};
}

}  // namespace

std::unique_ptr<contracts::ChangeProvider> make_postgres_versions(const PostgresOptions& options) {
  metadata::MetadataVersionsSpec spec;
  spec.origin = kPostgresOrigin;
  spec.content_origin = kContentOrigin;
  spec.metadata = {metadata::kMetadataStatement, statistics_sql()};
  spec.content = {content::kContentStatement, content_sql()};
  spec.content_max_bytes = options.content_max_bytes;
  spec.view_why = "PostgreSQL lists it as neither a table nor a view";
  spec.kinds = {"table", "view"};
  spec.content_covers_schema = true;
  spec.gate_content_request = true;
  spec.read = read_statistics_row;
  return metadata::make_metadata_versions(std::move(spec));
}

}  // namespace ods::postgres
