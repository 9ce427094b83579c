#pragma once
// A small project's planner inputs for the callback unit tests: source raw.orders ->
// stg_orders -> fct_orders.
#include "ods/base/sha256.h"
#include "ods/planner/inputs.h"

namespace ods::callback::testing {

inline const std::string kSrc = "source.shop.raw.orders";
inline const std::string kStg = "model.shop.stg_orders";
inline const std::string kFct = "model.shop.fct_orders";

inline planner::NodeInput test_node(const std::string& id, std::vector<std::string> parents) {
  planner::NodeInput n;
  n.id = id;
  n.name = id.substr(id.rfind('.') + 1);
  n.resource_type = "model";
  n.relation = "\"shop\".\"main\".\"" + n.name + "\"";
  n.parents = std::move(parents);
  n.fingerprint.add("scheme", "dbt/2");
  n.fingerprint.add("sql", "select from " + id);
  n.raw_digest = ods::sha256_hex("raw " + id);
  return n;
}

// The source's version `source_version`, observed at `observed_at` (a run after a build needs a
// version observed after it for its readers to be reused).
inline planner::ProjectInputs test_inputs(const std::string& source_version = "v1",
                                          const std::string& observed_at = "2026-11-30T01:00:00Z") {
  planner::ProjectInputs in;
  in.project = "shop";
  in.target = "dev";
  in.target_identity = "duckdb/shop/main";
  in.nodes = {test_node(kStg, {kSrc}), test_node(kFct, {kStg})};
  planner::SourceInput src;
  src.id = kSrc;
  src.name = "raw.orders";
  src.relation = "\"shop\".\"raw\".\"orders\"";
  src.version = planner::DataVersion{source_version, planner::Exactness::exact, "duckdb_content", observed_at};
  in.sources = {src};
  return in;
}

}  // namespace ods::callback::testing
