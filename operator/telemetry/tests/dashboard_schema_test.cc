// The chart's Grafana dashboard (helm/ods/dashboards/ods.json) has what Grafana's dashboard
// schema (@grafana/schema, kind Dashboard, schemaVersion 39) requires of it: a title, a numeric
// schemaVersion, a time range; template variables of a known type, each named; panels with a
// unique numeric id, a known type, a title and a grid position inside the 24 columns, not
// overlapping another panel; query panels with a datasource and targets of unique refIds and an
// expr; row panels with their (possibly empty) list of panels.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "harness/source_paths.h"

namespace ods::telemetry {
namespace {

using nlohmann::json;

json dashboard() {
  std::ifstream in(ods::testing::source_dir() / "helm/ods/dashboards/ods.json");
  EXPECT_TRUE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

bool is_string(const json& doc, const char* member) {
  return doc.contains(member) && doc[member].is_string() && !doc[member].get<std::string>().empty();
}

TEST(DashboardSchemaTest, TheDashboardHasTheMembersGrafanaRequires) {
  const json d = dashboard();
  EXPECT_TRUE(is_string(d, "title"));
  EXPECT_TRUE(is_string(d, "uid"));
  ASSERT_TRUE(d.contains("schemaVersion") && d["schemaVersion"].is_number_integer());
  EXPECT_GE(d["schemaVersion"].get<int>(), 36);  // datasource references as {type, uid}
  EXPECT_TRUE(is_string(d["time"], "from") && is_string(d["time"], "to"));
  const std::set<std::string> variable_types{"query",    "adhoc",   "constant", "datasource",
                                             "interval", "textbox", "custom",   "system"};
  std::set<std::string> names;
  for (const auto& v : d["templating"]["list"]) {
    EXPECT_TRUE(is_string(v, "name")) << v.dump();
    EXPECT_TRUE(variable_types.contains(v.value("type", ""))) << v.dump();
    EXPECT_TRUE(names.insert(v.value("name", "")).second) << "variable named twice: " << v.dump();
  }
}

TEST(DashboardSchemaTest, PanelsHaveUniqueIdsKnownTypesAndDoNotOverlap) {
  const json d = dashboard();
  const std::set<std::string> panel_types{"timeseries", "stat", "bargauge", "gauge",
                                          "table",      "row",  "text",     "barchart"};
  std::set<int> ids;
  std::vector<json> placed;
  ASSERT_FALSE(d["panels"].empty());
  for (const auto& p : d["panels"]) {
    const std::string title = p.value("title", "");
    SCOPED_TRACE(title);
    ASSERT_TRUE(p.contains("id") && p["id"].is_number_integer());
    EXPECT_TRUE(ids.insert(p["id"].get<int>()).second) << "id used twice";
    EXPECT_TRUE(panel_types.contains(p.value("type", "")));
    EXPECT_FALSE(title.empty());
    const json& g = p["gridPos"];
    for (const char* m : {"x", "y", "w", "h"}) ASSERT_TRUE(g.contains(m) && g[m].is_number_integer()) << m;
    EXPECT_GE(g["x"].get<int>(), 0);
    EXPECT_GE(g["w"].get<int>(), 1);
    EXPECT_LE(g["x"].get<int>() + g["w"].get<int>(), 24);
    EXPECT_GE(g["h"].get<int>(), 1);
    for (const auto& other : placed) {
      const json& o = other["gridPos"];
      const bool apart = g["x"].get<int>() >= o["x"].get<int>() + o["w"].get<int>() ||
                         o["x"].get<int>() >= g["x"].get<int>() + g["w"].get<int>() ||
                         g["y"].get<int>() >= o["y"].get<int>() + o["h"].get<int>() ||
                         o["y"].get<int>() >= g["y"].get<int>() + g["h"].get<int>();
      EXPECT_TRUE(apart) << "overlaps " << other.value("title", "");
    }
    placed.push_back(p);
    if (p["type"] == "row") {
      EXPECT_TRUE(p.contains("panels") && p["panels"].is_array());
      EXPECT_TRUE(p.contains("collapsed") && p["collapsed"].is_boolean());
      continue;
    }
    EXPECT_TRUE(is_string(p["datasource"], "type") && is_string(p["datasource"], "uid"));
    ASSERT_TRUE(p.contains("targets") && !p["targets"].empty());
    std::set<std::string> refs;
    for (const auto& t : p["targets"]) {
      EXPECT_TRUE(is_string(t, "refId") && refs.insert(t["refId"].get<std::string>()).second) << t.dump();
      EXPECT_TRUE(is_string(t, "expr")) << t.dump();
    }
  }
}

}  // namespace
}  // namespace ods::telemetry
