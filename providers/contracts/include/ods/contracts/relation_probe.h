#pragma once
// RelationProbe contract (relation_probe 0.11, ADR-0022 §1): run a few read-only statements
// against each of a set of relations, through a connection the implementation already has
// (for dbt: one `dbt show --inline` call that iterates the graph itself). The request is
// typed data and says nothing about how it runs.
// 0.2 (additive): a statement may ask for up to `max_rows` rows (ProbeAnswer::row_sets), and a
// request may name a fallback: other statements for the relations its filter does not match.
// 0.3 (additive): a request may name nodes (models, seeds, snapshots) whose relations get the
// same statements as sources (early cutoff reads a built node's content); their answers are
// in ProbeReport::contents.
// 0.4 (additive): a request may ask for one share of the work (share of shares), so that several
// calls over independent connections run at once (a parallel probe, ods/dbt/show_probe.h).
// 0.5 (additive): a request may name further fallbacks, tried in order after `fallback` (one
// branch per table format: Delta, Iceberg, then the other tables); an answer says which branch
// ran (ProbeAnswer::branch).
// 0.6 (additive): a statement may run only when an earlier one's answer holds a number no larger
// than a limit (only_if: e.g. a content scan for tables the metadata calls small), and may name
// the relation's schema, identifier and an information-schema view ({schema}, {identifier},
// {metadata_view}).
// 0.7 (additive): a report may carry the target's identity as the connection sees it
// (ProbeReport::target: schema, database, name, type; not secrets, they are in every relation
// name), for hooks that read them (docs/hook-digest.md).
// 0.8 (additive): a report may say each existing node relation's kind as listed
// (ProbeReport::relation_kinds), for the compile key's is_incremental() (docs/compile-key.md).
// 0.9 (additive): a request may give, per relation kind, a statement that reads an existing node
// relation's identity (ProbeRequest::identity_statements); the report carries each identity
// read (ProbeReport::relation_identities), read in the same call as the relation check, so the
// planner can tell a relation ODS built from one rewritten since (docs/warehouses.md).
// 0.10 (additive): a request may name, per source or content node, statements not to run on its
// relation (ProbeRequest::skip_statements: the cost rule leaves a costly fingerprint unread);
// the answer names them (ProbeAnswer::statements_skipped) and holds no rows for them.
// 0.11 (additive): a statement may name the relation's database ({database}, quotes doubled, as
// {schema}); the dbt show probe fills it, the native PostgreSQL probe does not (its statements don't
// use it).
// 0.11 (additive, too): an identity statement may name the relation's information-schema view NAME as
// {metadata_view:NAME} (Snowflake's TABLES and VIEWS, BigQuery's PARTITIONS and VIEWS).
// Values are named strings; a structured value (a map, a list) comes back as JSON text.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ods/base/result.h"

namespace ods::contracts {

// Which relations to probe, as data. A relation the implementation can't show matches is
// skipped, never run.
struct ProbeFilter {
  std::vector<std::string> kinds;     // relation kinds to run on: "table", "view"; empty: any
  std::optional<std::string> format;  // a table format the implementation must confirm ("delta")
};

// 0.5: run a statement only when `column` of the first row of the earlier statement `statement`
// (same relation) is a whole number from 0 to `max`; otherwise it is not run and has no answer.
struct ProbeCondition {
  std::string statement;
  std::string column;
  unsigned long long max = 0;
};

// A read-only SQL template. Placeholders the implementation fills: {relation}, the relation's
// name quoted by its own rules; 0.5: {schema} and {identifier}, its schema and name as the
// warehouse lists them, for use inside single-quoted string literals (quotes doubled); and
// {metadata_view}, the relation's information-schema view named by `metadata_view` (e.g.
// "TABLES"), qualified as the adapter does it; 0.11: {database}, its database, as {schema}.
struct ProbeStatement {
  std::string name;  // names the answer, e.g. "content"
  std::string sql;
  std::size_t max_rows = 1;                 // 0.2: how many rows of its result to return, in the result's order
  std::string metadata_view{};              // 0.5: fills {metadata_view}; empty: none
  std::optional<ProbeCondition> only_if{};  // 0.5: unset: always run
};

// 0.2: statements for the relations the request's filter does not match but this one does
// (e.g. Delta history for Delta tables, a content fingerprint for the other tables).
struct ProbeFallback {
  ProbeFilter filter;
  std::vector<ProbeStatement> statements;
};

struct ProbeRequest {
  bool sources = true;  // probe every source of the project (graph.sources)
  bool nodes = true;    // check that every model/seed/snapshot relation exists (no statements run)
  ProbeFilter filter;
  std::vector<ProbeStatement> statements;  // run on each matching source relation, in order
  std::optional<ProbeFallback> fallback;   // 0.2; a relation matching neither filter is skipped
  // 0.5: tried in order after `fallback` (which must then be set); a relation matching no branch
  // is skipped
  std::vector<ProbeFallback> further_fallbacks;
  std::vector<std::string> content_nodes;  // 0.3: node ids whose relations get the statements too
  // 0.4: run only share `share` of `shares`: the sources, and the content nodes, at positions
  // i (in the order of their unique ids) with i % shares == share; node existence only in
  // share 0. The others are reported as elsewhere (ProbeReport), never queried.
  std::size_t share = 0;
  std::size_t shares = 1;
  // 0.9: relation kind ("table", "view") -> a read-only SELECT of one row whose `identity`
  // column is the relation's identity as text (NULL: none to give), with the placeholders of
  // ProbeStatement and {database} (0.11: and {metadata_view:NAME}, see above); run on each
  // existing node relation of that kind when `nodes` is set (the implementation may run a
  // schema's relations' statements together, as one statement). Empty: no identity read. A kind
  // without a statement gets none.
  std::map<std::string, std::string> identity_statements = {};
  // 0.10: source or content-node id -> names of statements (of whichever branch its relation
  // matches) that must not run on its relation: they are never sent to the warehouse. The
  // relation is listed, checked and branched as without the list (a missing relation is still
  // missing; a matching one is `ok`), its other statements run, and its answer has no entry in
  // rows or row_sets for a skipped statement and names it in statements_skipped. A statement
  // whose only_if names a skipped statement does not run either (its condition has no number).
  // Node existence, kinds and identities are never skipped. Empty: every statement runs.
  std::map<std::string, std::vector<std::string>> skip_statements = {};
};

using ProbeRow = std::map<std::string, std::string>;  // column -> value as text (NULL: absent key)

// The answer for one relation.
struct ProbeAnswer {
  enum class Status { ok, skipped, unknown, missing };
  Status status = Status::unknown;
  std::string why;        // for skipped / unknown / missing
  bool fallback = false;  // 0.2: the fallback's statements ran (the relation didn't match the filter)
  // 0.5: which branch's statements ran: 0 the request's own, 1 its fallback, 2 + i
  // further_fallbacks[i] (fallback == (branch > 0))
  std::size_t branch = 0;
  // statement name -> its first row (an empty row when the result had none)
  std::map<std::string, ProbeRow> rows;
  // 0.2: statement name -> up to max_rows rows, in the result's order
  std::map<std::string, std::vector<ProbeRow>> row_sets;
  double seconds = 0;  // time the statements took, measured next to the warehouse
  // 0.10: the statements of the branch that ran that ProbeRequest::skip_statements kept from
  // running on this relation, in the branch's order (no rows for them: not "no row", not asked)
  std::vector<std::string> statements_skipped = {};
};

struct ProbeReport {
  std::map<std::string, ProbeAnswer> sources;   // source id -> answer (every source of the project)
  std::map<std::string, bool> relations_exist;  // node id -> exists (nodes it could check)
  // 0.8: node id -> its relation's kind as the warehouse lists it, lower case ("table", "view",
  // "materialized_view" ...), for existing relations whose listing names one; absent: not known.
  std::map<std::string, std::string> relation_kinds;
  // 0.9: node id -> its relation's identity as read by identity_statements, for existing
  // relations whose statement gave one; absent: not asked, not read, or NULL.
  std::map<std::string, std::string> relation_identities;
  std::map<std::string, ProbeAnswer> contents;  // 0.3: node id -> answer, for each content_nodes id
  double call_seconds = 0;                      // the whole call, start-up included, before its answer is read
  // 0.4: with shares > 1, the source and content-node ids left to the other shares -> their share
  std::map<std::string, std::size_t> sources_elsewhere;
  std::map<std::string, std::size_t> contents_elsewhere;
  // 0.7: the target's identity fields the probe could read ("schema", "database", "name",
  // "type") -> value; a field it could not read (an adapter without databases) is absent.
  std::map<std::string, std::string> target;
};

class RelationProbe {
 public:
  virtual ~RelationProbe() = default;
  // Runs `request`. Success: a report that answers every source the project has (when asked; 0.4:
  // those of its share, the others in sources_elsewhere),
  // every content_nodes id (a node the project lacks or that has no relation: missing) and every
  // node it could check (nodes it could not check are absent from relations_exist). Error:
  // nothing was read ("probe_failed", quoting the warehouse's or dbt's error; "cancelled").
  // Not thread-safe; one call at a time.
  [[nodiscard]] virtual ods::Result<ProbeReport> probe(const ProbeRequest& request) = 0;
};

}  // namespace ods::contracts
