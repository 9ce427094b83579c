// The test process's one NodeWorld (node_world.h): a gtest Environment starts it before the first
// test and stops it after the last, so the chart suites share one node.
#include <gtest/gtest.h>

#include "node_world.h"

namespace ods::testing {
namespace {

std::unique_ptr<NodeWorld> world;
std::string start_error = "the world was not started";

class NodeWorldEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    auto started = NodeWorld::start();
    if (started) {
      world = std::move(*started);
      start_error.clear();
    } else {
      start_error = started.error();
    }
  }
  void TearDown() override { world.reset(); }
};

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new NodeWorldEnvironment);

}  // namespace

NodeWorld* shared_world() { return world.get(); }
const std::string& world_start_error() { return start_error; }

}  // namespace ods::testing
