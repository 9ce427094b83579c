// Fuzz target: the state snapshot document (planner snapshot_from_json, as every store reads
// it). A refusal is "corrupt" or "newer_schema" with a message; an accepted snapshot written
// out is canonical: reading that text and writing it again gives the same bytes.
#include "fuzz_support.h"
#include "ods/planner/json_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto snapshot = ods::planner::snapshot_from_json(ods::fuzz::as_text(data, size));
  if (!snapshot) {
    ods::fuzz::require_documented_error(snapshot.error(), {"corrupt", "newer_schema"}, "");
    return 0;
  }
  const std::string written = ods::planner::to_json(*snapshot);
  const auto again = ods::planner::snapshot_from_json(written);
  ods::fuzz::require(again.has_value(), "a written snapshot does not read back", again ? "" : again.error().message);
  const std::string rewritten = ods::planner::to_json(*again);
  ods::fuzz::require(rewritten == written, "a snapshot read and written again is not byte-identical",
                     "first:  " + written + "\nsecond: " + rewritten);
  return 0;
}
