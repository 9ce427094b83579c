// Fuzz target: the bodies runner pods send to the callback server and the answers it sends
// back (operator/callback protocol.h). A refusal names a field or says why; an accepted body
// written out reads back to the same bytes (what the pod sends is what the controller reads).
#include <string>

#include "fuzz_support.h"
#include "ods/callback/protocol.h"

namespace {

template <class Parse>
void check(std::string_view body, Parse parse, std::string_view what) {
  const auto parsed = parse(body);
  if (!parsed) {
    ods::fuzz::require(!parsed.error().message.empty(), "a refusal without a reason", what);
    return;
  }
  const std::string written = ods::callback::to_json(*parsed);
  const auto again = parse(written);
  ods::fuzz::require(again.has_value(), "a written body does not read back",
                     std::string(what) + ": " + (again ? "" : again.error().field + ": " + again.error().message));
  ods::fuzz::require(ods::callback::to_json(*again) == written, "a body read and written again changes",
                     std::string(what) + ": " + written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = ods::fuzz::as_text(data, size);
  check(body, ods::callback::parse_inputs_request, "inputs request");
  check(body, ods::callback::parse_results_request, "results request");
  check(body, ods::callback::parse_plan_answer, "plan answer");
  check(body, ods::callback::parse_recorded_answer, "recorded answer");
  return 0;
}
