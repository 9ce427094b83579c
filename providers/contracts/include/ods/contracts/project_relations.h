#pragma once
// The relations of a dbt project as its graph names them, given as data to a probe that reads
// the warehouse without dbt (a native probe: ods/postgres/native_probe.h,
// ods/duckdb/native_probe.h), so that it walks the same relations the dbt show program walks
// (graph.sources, graph.nodes). Plain data.
#include <string>
#include <vector>

namespace ods::contracts {

// A relation of the project as dbt's graph names it.
struct ProjectRelation {
  std::string id;  // the source's or node's unique id
  std::string database;
  std::string schema;
  std::string identifier;  // a source's identifier; a node's alias, else its name
};

// What the dbt show probe reads from dbt's graph and its target, given as data.
struct ProjectRelations {
  std::vector<ProjectRelation> sources;  // every source (graph.sources)
  // every enabled model, seed and snapshot that is not ephemeral, in the manifest's order
  // (graph.nodes); other node ids asked for as content are answered missing
  std::vector<ProjectRelation> nodes;
  // dbt_project.yml's `quoting:` (dbt's default: every part quoted)
  bool quote_database = true;
  bool quote_schema = true;
  bool quote_identifier = true;
};

}  // namespace ods::contracts
