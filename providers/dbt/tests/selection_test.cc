// The selection dbt resolves (selection.h), over a fake DbtCommand: the one `dbt ls` call's
// arguments, the ids read from its JSON events, dbt's refusal passed on in its words, an empty
// selection refused, the ids sorted into nodes and checks; and the methods ODS refuses before any
// dbt call, in --select, --exclude (through operators and intersections) and selectors.yml.
#include "ods/dbt/selection.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;
using Ids = std::vector<std::string>;

class FakeDbt final : public DbtCommand {
 public:
  Result<DbtCommandResult> run(const std::vector<std::string>& args) override {
    calls.push_back(args);
    return result;
  }
  std::vector<std::vector<std::string>> calls;
  DbtCommandResult result;
};

std::string printed(const std::string& id) {
  const nlohmann::json msg = {{"unique_id", id}};
  const nlohmann::json event = {{"data", {{"msg", msg.dump()}}}, {"info", {{"name", "PrintEvent"}, {"level", "info"}}}};
  return event.dump();
}

TEST(Selection, OneDbtLsWithTheFlagsGiven) {
  const Ids args = list_arguments({"+fct_orders tag:x,path:models", "stg_a", "nightly"}, {"--target-path", "t"});
  const Ids expected{"ls",
                     "--no-write-json",
                     "--output",
                     "json",
                     "--output-keys",
                     "unique_id",
                     "--select",
                     "+fct_orders tag:x,path:models",
                     "--exclude",
                     "stg_a",
                     "--selector",
                     "nightly",
                     "--target-path",
                     "t"};
  EXPECT_EQ(args, expected);
  EXPECT_EQ(list_arguments({"", "", "nightly"}),
            (Ids{"ls", "--no-write-json", "--output", "json", "--output-keys", "unique_id", "--selector", "nightly"}));
}

TEST(Selection, ReadsTheIdsDbtPrintedAndSkipsOtherEvents) {
  FakeDbt dbt;
  dbt.result.events = {R"({"info": {"name": "MainReportVersion", "msg": "Running with dbt"}, "data": {}})",
                       printed("model.shop.fct_orders"),
                       printed("source.shop.raw.orders"),
                       R"({"info": {"name": "Note"}, "data": {"msg": "unique_id is a word"}})",
                       "not json unique_id",
                       printed("test.shop.unique_fct_orders_order_id.1")};
  auto ids = list_selected(dbt, {"+fct_orders", "", ""});
  ASSERT_TRUE(ids) << ids.error().message;
  EXPECT_EQ(*ids, (Ids{"model.shop.fct_orders", "source.shop.raw.orders", "test.shop.unique_fct_orders_order_id.1"}));
  ASSERT_EQ(dbt.calls.size(), 1u);
}

TEST(Selection, DbtsRefusalIsAUsageErrorInItsWords) {
  FakeDbt dbt;
  dbt.result.exit_code = 2;
  dbt.result.error_text = "Could not find selector named nosuch, expected one of ['nightly']\n";
  auto ids = list_selected(dbt, {"", "", "nosuch"});
  ASSERT_FALSE(ids);
  EXPECT_EQ(ids.error().code, "usage");
  EXPECT_NE(ids.error().message.find("--selector 'nosuch'"), std::string::npos) << ids.error().message;
  EXPECT_NE(ids.error().message.find("Could not find selector named nosuch"), std::string::npos);
}

TEST(Selection, NothingSelectedIsRefused) {
  FakeDbt dbt;
  dbt.result.events = {R"({"info": {"name": "NoNodesForSelectionCriteria", "level": "warn", "msg": "The selection )"
                       R"(criterion 'tag:nosuch' does not match any enabled nodes"}, "data": {}})"};
  auto ids = list_selected(dbt, {"tag:nosuch", "", ""});
  ASSERT_FALSE(ids);
  EXPECT_EQ(ids.error().code, "usage");
  EXPECT_NE(ids.error().message.find("--select 'tag:nosuch' selects nothing"), std::string::npos)
      << ids.error().message;
  EXPECT_NE(ids.error().message.find("criterion 'tag:nosuch' does not match any enabled nodes"), std::string::npos)
      << ids.error().message;
}

TEST(Selection, IdsSortIntoPlannedNodesAndChecks) {
  planner::ProjectInputs inputs;
  inputs.nodes.resize(2);
  inputs.nodes[0].id = "model.shop.b";
  inputs.nodes[1].id = "model.shop.a";
  inputs.sources.resize(1);
  inputs.sources[0].id = "source.shop.raw.orders";
  const auto s = selection_among(inputs, {"test.shop.t", "model.shop.b", "source.shop.raw.orders", "model.shop.a"});
  EXPECT_EQ(s.nodes, (Ids{"model.shop.a", "model.shop.b"}));
  EXPECT_EQ(s.checks, (Ids{"model.shop.a", "model.shop.b", "source.shop.raw.orders"}));
}

std::string refusal(const SelectionFlags& flags, const fs::path& yml = {}) {
  auto checked = refuse_foreign_methods(flags, yml);
  if (checked) return "";
  EXPECT_EQ(checked.error().code, "usage");
  return checked.error().message;
}

TEST(Selection, StateResultAndSourceStatusAreRefusedWithTheReason) {
  EXPECT_NE(refusal({"state:modified+", "", ""})
                .find("--select: selector 'state:modified+' is not for ODS: ODS "
                      "decides what changed from its own recorded state"),
            std::string::npos);
  EXPECT_NE(refusal({"fct_orders 2+state:modified.body", "", ""}).find("'2+state:modified.body'"), std::string::npos);
  EXPECT_NE(refusal({"tag:x,result:error", "", ""}).find("'result:error'"), std::string::npos);
  EXPECT_NE(refusal({"", "source_status:fresher+", ""}).find("--exclude: selector 'source_status:fresher+'"),
            std::string::npos);
  EXPECT_NE(refusal({"@result:fail", "", ""}).find("run_results.json"), std::string::npos);
  EXPECT_EQ(refusal({"+fct_orders tag:state resource_type:model,config.materialized:table @stg path:models/state",
                     "statement", ""}),
            "");
}

TEST(Selection, ASelectorsDefinitionIsCheckedThroughTheSelectorsItNames) {
  const fs::path dir = fs::temp_directory_path() / ("ods-selection-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path yml = dir / "selectors.yml";
  std::ofstream(yml) << R"(selectors:
  - name: nightly
    description: "not state:modified, only words"
    definition:
      union:
        - method: tag
          value: nightly
        - "+fct_orders"
  - name: changed
    definition:
      method: state
      value: modified
  - name: via
    definition:
      intersection:
        - method: selector
          value: changed
        - tag: daily
  - name: keyvalue
    definition:
      exclude:
        - result: error
  - name: text
    definition: "source_status:fresher+"
)";
  EXPECT_EQ(refusal({"", "", "nightly"}, yml), "");
  EXPECT_NE(refusal({"", "", "changed"}, yml).find("--selector changed (selectors.yml): selector 'state:modified'"),
            std::string::npos);
  EXPECT_NE(refusal({"", "", "via"}, yml).find("'state:modified'"), std::string::npos);
  EXPECT_NE(refusal({"", "", "keyvalue"}, yml).find("'result:error'"), std::string::npos);
  EXPECT_NE(refusal({"", "", "text"}, yml).find("'source_status:fresher+'"), std::string::npos);
  EXPECT_EQ(refusal({"", "", "nosuch"}, yml), "");                // dbt says it is unknown
  EXPECT_EQ(refusal({"", "", "nightly"}, dir / "none.yml"), "");  // dbt says the file is missing
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ods::dbt
