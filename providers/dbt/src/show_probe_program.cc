// The fixed Jinja program of the dbt show probe. It iterates the graph itself, so its size
// depends only on the request's statements.
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "ods/dbt/show_probe.h"

namespace ods::dbt {

namespace {

// Runs only when dbt executes the node (at parse time listings and run_query return None).
// Of a schema's listing only the rows named by the request's relations are read further (a
// large schema lists thousands of relations, and each row read in Jinja costs).
// Lists each schema once (a node's schema only when it exists: models may not be built yet; a
// source's schema that does not exist fails the call, as a broken project should) and looks
// relations up by lower-cased identifier. The listing's shape is the adapter's own: relation
// objects (dbt-bigquery), name and type columns (dbt-duckdb, dbt-postgres), name and kind
// (dbt-snowflake's `show objects`), or dbt-spark's `show table extended` rows, whose
// information text gives the type and the table format (Provider); a file_format column gives
// the format where an adapter lists one. A node's relation kind as listed (lower case: dbt-duckdb's and
// dbt-postgres's type, dbt-bigquery's relation type, Snowflake's kind; none from Spark's rows)
// is answered in node_kinds. Each relation gets the first branch whose kinds and
// format match (the request's filter, then its fallbacks in order); a relation matching none is
// skipped, never queried. A statement with a condition (only_if) runs only when an earlier
// statement's first row holds a whole number no larger than its limit in the named column.
// Placeholders: {relation}, {database} (relation_probe 0.11), {schema} and {identifier} (inside
// string literals: quotes doubled),
// and {metadata_view}: the adapter's own name of the relation's information-schema view the
// statement names (dbt's Relation.information_schema). Structured values (maps, lists) are JSON
// text already: dbt's agate conversion writes them so. The answer travels as the hex of its JSON
// text: warehouses disagree on backslashes in string literals (Spark reads them as escapes,
// DuckDB and PostgreSQL don't). A share of a parallel probe (relation_probe 0.4) takes the
// sources and content nodes at its positions in unique-id order and names the others' shares;
// node existence is share 0's. A split probe refuses dbt-spark's session mode (each process
// would start its own Spark on one Derby metastore), failing the call with a message that says so.
// Relation identity (relation_probe 0.9): each existing node relation whose kind has an identity
// statement gets it with its placeholders filled, and a schema's statements run together, in
// batches of kIdentityBatch joined by `union all` (one query per batch, not one per relation);
// a NULL identity is left out. 0.11: {metadata_view:NAME} in an identity statement is the
// relation's information-schema view NAME as the adapter qualifies it (Relation.information_schema).
// Skipped statements (relation_probe 0.10): a relation whose id the request's skip list names
// never runs those statements (their SQL is not even rendered for it); its answer names them.
constexpr const char* kProgram = R"JINJA(
{%- set ods = {'sources': {}, 'nodes': {}, 'node_kinds': {}, 'identities': {}, 'contents': {}, 'listed': {}, 'sources_elsewhere': {}, 'contents_elsewhere': {}} -%}
{%- set ods_branches = __BRANCHES__ -%}
{%- set ods_identity = __IDENTITY__ -%}
{%- set ods_identity_views = __IDENTITY_VIEWS__ -%}
{%- set ods_skip = __SKIP__ -%}
{%- set ods_ids = {} -%}
{%- set ods_wanted = {'sources': __SOURCES__, 'nodes': __NODES__, 'contents': __CONTENTS__} -%}
{%- set ods_items = [] -%}
{%- set ods_share = namespace(mine=__SHARE__, of=__SHARES__) -%}
{%- if execute and ods_share.of > 1 and target.get('method') == 'session' -%}
  {%- do exceptions.raise_compiler_error("the probe was split into parts that run at once, but this target's method is 'session' (Spark inside each dbt process, one metastore): its parts can't run at once; set ODS_PROBE_PARTS=1") -%}
{%- endif -%}
{%- if ods_wanted.sources -%}{%- for uid in graph.sources.keys() | sort -%}
  {%- set s = graph.sources[uid] -%}
  {%- if loop.index0 % ods_share.of == ods_share.mine -%}{%- do ods_items.append(('source', s.unique_id, s.database, s.schema, s.identifier)) -%}
  {%- else -%}{%- do ods.sources_elsewhere.update({uid: loop.index0 % ods_share.of}) -%}{%- endif -%}
{%- endfor -%}{%- endif -%}
{%- if ods_wanted.nodes and ods_share.mine == 0 -%}{%- for n in graph.nodes.values() -%}
  {%- if n.resource_type in ['model', 'seed', 'snapshot'] and n.config.materialized != 'ephemeral' and n.config.enabled -%}
    {%- do ods_items.append(('node', n.unique_id, n.database, n.schema, n.alias or n.name)) -%}
  {%- endif -%}
{%- endfor -%}{%- endif -%}
{%- set ods_content_ids = (graph.nodes.keys() | list if ods_wanted.contents is none else ods_wanted.contents) | sort -%}
{%- for uid in ods_content_ids -%}
  {%- set n = graph.nodes.get(uid) -%}
  {%- if loop.index0 % ods_share.of != ods_share.mine -%}
    {%- do ods.contents_elsewhere.update({uid: loop.index0 % ods_share.of}) -%}
  {%- elif n is not none and n.resource_type in ['model', 'seed', 'snapshot'] and n.config.materialized != 'ephemeral' -%}
    {%- do ods_items.append(('content', n.unique_id, n.database, n.schema, n.alias or n.name)) -%}
  {%- elif ods_wanted.contents is not none -%}
    {%- do ods.contents.update({uid: {'status': 'missing', 'why': 'no relation for ' ~ uid ~ ' in the project'}}) -%}
  {%- endif -%}
{%- endfor -%}
{%- if execute -%}
{%- set ods_idents = {} -%}
{%- for kind, uid, db, sch, ident in ods_items -%}
  {%- set key = ((db or '') ~ '.' ~ sch) | lower -%}
  {%- if key not in ods_idents -%}{%- do ods_idents.update({key: {}}) -%}{%- endif -%}
  {%- do ods_idents[key].update({(ident | lower): true}) -%}
{%- endfor -%}
{%- for kind, uid, db, sch, ident in ods_items -%}
  {%- set key = ((db or '') ~ '.' ~ sch) | lower -%}
  {%- if key not in ods.listed -%}
    {%- set names = {} -%}
    {%- if kind == 'source' or adapter.check_schema_exists(db, sch) -%}
      {%- set listing = list_relations_without_caching(api.Relation.create(database=db, schema=sch)) -%}
      {%- set cols = listing.column_names -%}
      {%- set lc = namespace(name_col=none) -%}
      {%- for c in ['name', 'tableName', 'table_name'] -%}{%- if lc.name_col is none and c in cols -%}{%- set lc.name_col = c -%}{%- endif -%}{%- endfor -%}
      {%- for r in listing -%}
        {%- set listed_name = r.identifier if r.identifier is defined else (r[lc.name_col] if lc.name_col else none) -%}
        {%- if listed_name is not none and (listed_name | string | lower) in ods_idents[key] -%}
        {%- set l = namespace(name=none, type='table', format='', kind='') -%}
        {%- if r.identifier is defined -%}{%- set l.name = r.identifier -%}{%- set l.kind = r.type | string | lower -%}{%- set l.type = 'view' if 'view' in l.kind else 'table' -%}
        {%- else -%}
        {%- for c in ['name', 'tableName', 'table_name'] -%}{%- if l.name is none and c in cols -%}{%- set l.name = r[c] -%}{%- endif -%}{%- endfor -%}
        {%- for c in ['table_type', 'kind'] -%}{%- if c in cols -%}{%- set l.kind = r[c] | string | lower -%}{%- set l.type = 'view' if 'view' in l.kind else 'table' -%}{%- endif -%}{%- endfor -%}
        {%- if 'type' in cols -%}{%- set l.type = r['type'] | string | lower -%}{%- set l.kind = l.type -%}{%- endif -%}
        {%- endif -%}
        {%- if 'information' in cols -%}
          {%- for line in (r['information'] or '').split('\n') -%}
            {%- if line == 'Type: VIEW' -%}{%- set l.type = 'view' -%}{%- endif -%}
            {%- if line.startswith('Provider: ') -%}{%- set l.format = line[10:] | trim | lower -%}{%- endif -%}
          {%- endfor -%}
        {%- elif 'file_format' in cols and r['file_format'] is not none -%}{%- set l.format = r['file_format'] | string | lower -%}{%- endif -%}
        {%- if l.name is not none -%}
          {%- do names.update({(l.name | lower): {'rel': api.Relation.create(database=db, schema=sch, identifier=l.name, type=l.type), 'type': l.type, 'format': l.format, 'kind': l.kind}}) -%}
        {%- endif -%}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
    {%- do ods.listed.update({key: names}) -%}
  {%- endif -%}
  {%- set found = ods.listed[key].get(ident | lower) -%}
  {%- set answers = ods.sources if kind == 'source' else ods.contents -%}
  {%- if kind == 'node' -%}
    {%- do ods.nodes.update({uid: found is not none}) -%}
    {%- if found is not none and found.kind -%}{%- do ods.node_kinds.update({uid: found.kind}) -%}{%- endif -%}
    {%- if found is not none and ods_identity.get(found.type) -%}
      {%- set iq = namespace(sql=ods_identity[found.type]) -%}
      {%- for v in ods_identity_views -%}{%- set iq.sql = iq.sql | replace('{metadata_view:' ~ v ~ '}', found.rel.information_schema(v) | string) -%}{%- endfor -%}
      {%- set isql = iq.sql | replace('{relation}', found.rel | string) | replace('{database}', (db or '') | replace("'", "''")) | replace('{schema}', sch | replace("'", "''")) | replace('{identifier}', found.rel.identifier | replace("'", "''")) -%}
      {%- if key not in ods_ids -%}{%- do ods_ids.update({key: []}) -%}{%- endif -%}
      {%- do ods_ids[key].append("select '" ~ (uid | replace("'", "''")) ~ "', ods_i.identity from (" ~ isql ~ ") as ods_i") -%}
    {%- endif -%}
  {%- elif found is none -%}
    {%- do answers.update({uid: {'status': 'missing', 'why': 'relation ' ~ db ~ '.' ~ sch ~ '.' ~ ident ~ ' does not exist'}}) -%}
  {%- else -%}
    {%- set m = namespace(branch=none, index=0, why='') -%}
    {%- for b in ods_branches -%}
      {%- if m.branch is none -%}
        {%- if b.kinds and found.type not in b.kinds -%}
          {%- if not m.why -%}{%- set m.why = 'a ' ~ found.type ~ ', not ' ~ (b.kinds | join(' or ')) -%}{%- endif -%}
        {%- elif b.format and found.format != b.format -%}
          {%- if not m.why -%}{%- set m.why = 'not a ' ~ b.format ~ ' table (' ~ ('its format is ' ~ found.format if found.format else 'its format could not be confirmed') ~ ')' -%}{%- endif -%}
        {%- else -%}{%- set m.branch = b -%}{%- set m.index = loop.index0 -%}{%- endif -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if m.branch is none -%}
      {%- do answers.update({uid: {'status': 'skipped', 'why': m.why}}) -%}
    {%- else -%}
      {%- set answer = {'status': 'ok', 'fallback': m.index > 0, 'branch': m.index, 'row_sets': {}, 'seconds': 0.0, 'statements_skipped': []} -%}
      {%- set skipped = ods_skip.get(uid, []) -%}
      {%- for st in m.branch.statements -%}
        {%- set gate = namespace(run=true, value='') -%}
        {%- if st.name in skipped -%}
          {%- set gate.run = false -%}{%- do answer.statements_skipped.append(st.name) -%}
        {%- elif st.only_if -%}
          {%- set prior = answer.row_sets.get(st.only_if.statement, []) -%}
          {%- set gate.value = (prior[0].get(st.only_if.column, '') if prior else '') | string -%}
          {%- set gate.run = gate.value.isdigit() and (gate.value | int) <= st.only_if.max -%}
        {%- endif -%}
        {%- if gate.run -%}
        {%- set sql = st.sql | replace('{relation}', found.rel | string) | replace('{database}', (db or '') | replace("'", "''")) | replace('{schema}', sch | replace("'", "''")) | replace('{identifier}', found.rel.identifier | replace("'", "''")) -%}
        {%- if st.metadata_view -%}{%- set sql = sql | replace('{metadata_view}', found.rel.information_schema(st.metadata_view) | string) -%}{%- endif -%}
        {%- set t0 = modules.datetime.datetime.now() -%}
        {%- set res = run_query(sql) -%}
        {%- set t1 = modules.datetime.datetime.now() -%}
        {%- set rows = [] -%}
        {%- for r in res.rows[:st.max_rows] -%}
          {%- set row = {} -%}
          {%- for col in res.column_names -%}
            {%- set v = r[loop.index0] -%}
            {%- if v is not none -%}{%- do row.update({col: v | string}) -%}{%- endif -%}
          {%- endfor -%}
          {%- do rows.append(row) -%}
        {%- endfor -%}
        {%- do answer.row_sets.update({st.name: rows}) -%}
        {%- do answer.update({'seconds': answer.seconds + (t1 - t0).total_seconds()}) -%}
        {%- endif -%}
      {%- endfor -%}
      {%- do answers.update({uid: answer}) -%}
    {%- endif -%}
  {%- endif -%}
{%- endfor -%}
{%- for key, selects in ods_ids.items() -%}
  {%- for chunk in selects | batch(__IDENTITY_BATCH__) -%}
    {%- set res = run_query(chunk | join(' union all ')) -%}
    {%- for r in res.rows -%}
      {%- if r[1] is not none -%}{%- do ods.identities.update({r[0] | string: r[1] | string}) -%}{%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
{%- endfor -%}{%- endif -%}
{%- set ods_target = {} -%}
{%- for field in ['schema', 'database', 'name', 'type'] -%}
  {%- if target.get(field) is string -%}{%- do ods_target.update({field: target.get(field)}) -%}{%- endif -%}
{%- endfor -%}
select '{{ (tojson({'sources': ods.sources, 'nodes': ods.nodes, 'node_kinds': ods.node_kinds, 'identities': ods.identities, 'contents': ods.contents, 'sources_elsewhere': ods.sources_elsewhere, 'contents_elsewhere': ods.contents_elsewhere, 'target': ods_target}) | string).encode('utf-8').hex() }}' as ods_probe
)JINJA";

constexpr std::size_t kMaxContentListBytes = 64 * 1024;
// The skip list's share of that argument, beside the content list and the program.
constexpr std::size_t kMaxSkipListBytes = 32 * 1024;
// How many relations' identity statements one query joins (a 5k-node schema: 10 queries).
constexpr std::size_t kIdentityBatch = 500;

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
}

nlohmann::json branch_json(const contracts::ProbeFilter& filter,
                           const std::vector<contracts::ProbeStatement>& statements) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& st : statements) {
    nlohmann::json one = {
        {"name", st.name}, {"sql", st.sql}, {"max_rows", st.max_rows}, {"metadata_view", st.metadata_view}};
    // A JSON null is no Jinja literal: a statement without a condition carries an empty string.
    one["only_if"] = st.only_if ? nlohmann::json{{"statement", st.only_if->statement},
                                                 {"column", st.only_if->column},
                                                 {"max", st.only_if->max}}
                                : nlohmann::json("");
    list.push_back(std::move(one));
  }
  return {{"kinds", filter.kinds}, {"format", filter.format.value_or("")}, {"statements", list}};
}

// The NAMEs of the {metadata_view:NAME} placeholders of the identity statements, each once.
std::set<std::string> identity_metadata_views(const std::map<std::string, std::string>& statements) {
  static const std::regex kPlaceholder(R"(\{metadata_view:([A-Za-z_]+)\})");
  std::set<std::string> names;
  for (const auto& [kind, sql] : statements)
    for (std::sregex_iterator it(sql.begin(), sql.end(), kPlaceholder), end; it != end; ++it) names.insert((*it)[1]);
  return names;
}

}  // namespace

std::string show_probe_program(const contracts::ProbeRequest& request) {
  nlohmann::json branches = nlohmann::json::array({branch_json(request.filter, request.statements)});
  if (request.fallback) {
    branches.push_back(branch_json(request.fallback->filter, request.fallback->statements));
    for (const auto& further : request.further_fallbacks)
      branches.push_back(branch_json(further.filter, further.statements));
  }
  std::string program = kProgram;
  // JSON literals are valid Jinja literals for strings, numbers, lists and dicts (true/false aside).
  replace_all(program, "__BRANCHES__", branches.dump());
  replace_all(program, "__SOURCES__", request.sources ? "True" : "False");
  replace_all(program, "__NODES__", request.nodes ? "True" : "False");
  // A map of strings is a valid Jinja dict literal; an empty map is {} (no identity read).
  replace_all(program, "__IDENTITY__", nlohmann::json(request.identity_statements).dump());
  replace_all(program, "__IDENTITY_BATCH__", std::to_string(kIdentityBatch));
  replace_all(program, "__IDENTITY_VIEWS__",
              nlohmann::json(identity_metadata_views(request.identity_statements)).dump());
  // Like the content list, the skip list is one argument's text: over the limit it is left out
  // and every statement runs (more work; the answers then name no statement skipped).
  std::string skip = nlohmann::json(request.skip_statements).dump();
  if (skip.size() > kMaxSkipListBytes) skip = "{}";
  replace_all(program, "__SKIP__", skip);
  replace_all(program, "__SHARE__", std::to_string(request.share));
  replace_all(program, "__SHARES__", std::to_string(request.shares == 0 ? 1 : request.shares));
  // One command-line argument holds at most 128 KiB (Linux's MAX_ARG_STRLEN): a longer list
  // of ids is replaced by every node's relation, a superset (more statements, same answers).
  std::string contents = nlohmann::json(request.content_nodes).dump();
  if (contents.size() > kMaxContentListBytes) contents = "none";
  replace_all(program, "__CONTENTS__", contents);
  return program;
}

}  // namespace ods::dbt
