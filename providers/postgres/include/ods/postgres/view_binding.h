#pragma once
// A PostgreSQL fact the planner needs to agree with `dbt build` (docs/warehouses.md, PostgreSQL):
// a view or materialized view is bound to the relations it reads by oid, not by name, and
// dbt-postgres rebuilds a table or view by renaming the old relation to a backup and dropping it
// with CASCADE, which drops every view (and view over those views) that read it. A reader left
// unbuilt by such a rebuild is gone after the run (planner::NodeInput::dropped_when_parent_replaced).

namespace ods::postgres {

inline constexpr bool kRebuildDropsBoundViews = true;

}  // namespace ods::postgres
