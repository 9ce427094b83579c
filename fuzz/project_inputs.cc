// Fuzz target: the project-inputs document (planner inputs_from_json: `ods state plan
// --inputs`, the callback's inputs). A refusal has a message; accepted inputs written out read
// back to the same bytes.
#include "fuzz_support.h"
#include "ods/planner/json_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto inputs = ods::planner::inputs_from_json(ods::fuzz::as_text(data, size));
  if (!inputs) {
    ods::fuzz::require(!inputs.error().code.empty() && !inputs.error().message.empty(), "an error without a message");
    return 0;
  }
  const std::string written = ods::planner::to_json(*inputs);
  const auto again = ods::planner::inputs_from_json(written);
  ods::fuzz::require(again.has_value(), "written inputs do not read back", again ? "" : again.error().message);
  const std::string rewritten = ods::planner::to_json(*again);
  ods::fuzz::require(rewritten == written, "inputs read and written again are not byte-identical",
                     "first:  " + written + "\nsecond: " + rewritten);
  return 0;
}
