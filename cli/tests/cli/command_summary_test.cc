// The summary object (command_summary.h): the state store described without credentials,
// the plan document's extended "summary", the time saved from the ledger.
#include "command_summary.h"

#include <gtest/gtest.h>

#include "ods/planner/json_io.h"
#include "plan_markdown.h"

namespace ods::cli {
namespace {

using nlohmann::json;

TEST(CommandSummary, StoreDescriptionsNeverHoldACredential) {
  struct Case {
    std::string url, kind, location;
  };
  const std::vector<Case> cases{
      {"postgresql://user:secret@db.internal:5432/ods?sslmode=require&password=secret", "postgresql",
       "db.internal:5432/ods"},
      {"postgres://user:secret@db/ods", "postgresql", "db/ods"},
      {"postgresql://user@db/ods", "postgresql", "db/ods"},
      {"host=db.internal port=5432 dbname=ods user=ods password=secret", "postgresql", "db.internal:5432/ods"},
      {"host='db internal' password = 'sec ret' dbname=ods", "postgresql", "db internal/ods"},
      {"password=secret host=db sslpassword=secret", "postgresql", "db"},
      {"sqlite:/work/.ods/state.db", "sqlite", "/work/.ods/state.db"},
      {"sqlite:///abs/state.db", "sqlite", "/abs/state.db"},
      {"memory:", "memory", ""},
      {"ftp://user:secret@x/y", "unknown", ""},
  };
  for (const auto& c : cases) {
    const StoreDescription d = describe_store(c.url);
    EXPECT_EQ(d.kind, c.kind) << c.url;
    EXPECT_EQ(d.location, c.location) << c.url;
    CommandSummary s;
    s.state = d;
    const std::string text = to_json(s).dump();
    EXPECT_EQ(text.find("secret"), std::string::npos) << text;
    EXPECT_EQ(text.find("sec ret"), std::string::npos) << text;
    EXPECT_EQ(text.find("user"), std::string::npos) << text;
    MarkdownInput in;
    in.summary = s;
    const std::string markdown = render_markdown(in);
    EXPECT_EQ(markdown.find("secret"), std::string::npos) << markdown;
    EXPECT_EQ(markdown.find("sec ret"), std::string::npos) << markdown;
  }
}

planner::ExecutionPlan two_node_plan() {
  planner::ExecutionPlan plan;
  plan.scope = "shop/dev";
  for (auto [name, action] : {std::pair{"a", planner::Action::build}, std::pair{"b", planner::Action::reuse}}) {
    planner::PlanEntry e;
    e.id = std::string("model.shop.") + name;
    e.name = name;
    e.resource_type = "model";
    e.action = action;
    e.reasons.push_back({action == planner::Action::build ? "never_built" : "unchanged", "why \"summary\": {"});
    plan.entries.push_back(e);
  }
  plan.select = "a";
  plan.warnings = {"w"};
  return plan;
}

TEST(CommandSummary, PlanDocumentKeepsThePlannersKeysAndAddsTheSummary) {
  const auto plan = two_node_plan();
  CommandSummary s;
  s.command = "plan";
  s.scope = plan.scope;
  s.state = {"sqlite", "/p/state.db"};
  s.built = 1;
  s.reused = 1;
  s.time_saved_seconds = 2.5;
  s.selection = "a";
  const std::string text = plan_document(plan, s);
  const json doc = json::parse(text);
  // The expectation: the planner's own document of the plan, with the summary's members added.
  const std::string planners_document = planner::to_json(plan, true);
  json expected = json::parse(planners_document);
  expected["summary"].update(to_json(s));
  EXPECT_EQ(doc, expected);
  EXPECT_EQ(doc["summary"]["build"], 1);
  EXPECT_EQ(doc["summary"]["reuse"], 1);
  EXPECT_EQ(doc["summary"]["time_saved_seconds"], 2.5);
  EXPECT_EQ(doc["summary"]["state"]["kind"], "sqlite");
  EXPECT_EQ(text, expected.dump(2)) << "pretty, keys in order, as the planner writes it";
}

}  // namespace
}  // namespace ods::cli
