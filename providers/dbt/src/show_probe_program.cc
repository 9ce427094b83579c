// The fixed Jinja program of the dbt show probe. It iterates the graph itself, so its size
// depends only on the request's statements.
#include <nlohmann/json.hpp>

#include "ods/dbt/show_probe.h"

namespace ods::dbt {

namespace {

// Lists each schema once and looks relations up by lower-cased identifier.
constexpr const char* kLookupMacroless = R"JINJA(
{%- set ods = {'sources': {}, 'nodes': {}, 'listed': {}} -%}
{%- set ods_kinds = __KINDS__ -%}
{%- set ods_statements = __STATEMENTS__ -%}
{%- set ods_wanted = {'sources': __SOURCES__, 'nodes': __NODES__} -%}
{%- set ods_items = [] -%}
{%- if ods_wanted.sources -%}{%- for s in graph.sources.values() -%}{%- do ods_items.append(('source', s.unique_id, s.database, s.schema, s.identifier)) -%}{%- endfor -%}{%- endif -%}
{%- if ods_wanted.nodes -%}{%- for n in graph.nodes.values() -%}
  {%- if n.resource_type in ['model', 'seed', 'snapshot'] and n.config.materialized != 'ephemeral' and n.config.enabled -%}
    {%- do ods_items.append(('node', n.unique_id, n.database, n.schema, n.alias or n.name)) -%}
  {%- endif -%}
{%- endfor -%}{%- endif -%}
{%- for kind, uid, db, sch, ident in ods_items -%}
  {%- set key = ((db or '') ~ '.' ~ sch) | lower -%}
  {%- if key not in ods.listed -%}
    {%- set names = {} -%}
    {%- for r in list_relations_without_caching(api.Relation.create(database=db, schema=sch)) -%}
      {%- do names.update({(r['name'] | lower): api.Relation.create(database=db, schema=sch, identifier=r['name'], type=(r['type'] | string))}) -%}
    {%- endfor -%}
    {%- do ods.listed.update({key: names}) -%}
  {%- endif -%}
  {%- set rel = ods.listed[key].get(ident | lower) -%}
  {%- if kind == 'node' -%}
    {%- do ods.nodes.update({uid: rel is not none}) -%}
  {%- elif rel is none -%}
    {%- do ods.sources.update({uid: {'status': 'missing', 'why': 'relation ' ~ db ~ '.' ~ sch ~ '.' ~ ident ~ ' does not exist'}}) -%}
  {%- elif ods_kinds and (rel.type | string) not in ods_kinds -%}
    {%- do ods.sources.update({uid: {'status': 'skipped', 'why': 'a ' ~ (rel.type | string) ~ ', not ' ~ (ods_kinds | join(' or '))}}) -%}
  {%- else -%}
    {%- set answer = {'status': 'ok', 'rows': {}, 'seconds': 0.0} -%}
    {%- for st in ods_statements -%}
      {%- set t0 = modules.datetime.datetime.now() -%}
      {%- set res = run_query(st.sql | replace('{relation}', rel | string)) -%}
      {%- set t1 = modules.datetime.datetime.now() -%}
      {%- set row = {} -%}
      {%- if res.rows | length > 0 -%}
        {%- for col in res.column_names -%}
          {%- set v = res.rows[0][loop.index0] -%}
          {%- if v is not none -%}{%- do row.update({col: v | string}) -%}{%- endif -%}
        {%- endfor -%}
      {%- endif -%}
      {%- do answer.rows.update({st.name: row}) -%}
      {%- do answer.update({'seconds': answer.seconds + (t1 - t0).total_seconds()}) -%}
    {%- endfor -%}
    {%- do ods.sources.update({uid: answer}) -%}
  {%- endif -%}
{%- endfor -%}
select '{{ tojson({'sources': ods.sources, 'nodes': ods.nodes}) | replace("'", "''") }}' as ods_probe
)JINJA";

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
}

}  // namespace

std::string show_probe_program(const contracts::ProbeRequest& request) {
  nlohmann::json statements = nlohmann::json::array();
  for (const auto& st : request.statements) statements.push_back({{"name", st.name}, {"sql", st.sql}});
  std::string program = kLookupMacroless;
  // JSON literals are valid Jinja literals for strings, lists and dicts (true/false aside).
  replace_all(program, "__KINDS__", nlohmann::json(request.filter.kinds).dump());
  replace_all(program, "__STATEMENTS__", statements.dump());
  replace_all(program, "__SOURCES__", request.sources ? "True" : "False");
  replace_all(program, "__NODES__", request.nodes ? "True" : "False");
  return program;
}

}  // namespace ods::dbt
