// Fuzz target: run_results.json (providers/dbt read_run_results). A refusal has a documented
// code and names the file.
#include "ods/dbt/run_results.h"

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ods::fuzz::ScratchFile file("run_results.json");
  const auto run = ods::dbt::read_run_results(file.write(ods::fuzz::as_text(data, size)));
  if (!run) {
    ods::fuzz::require_documented_error(run.error(), {"missing_artifact", "unsupported_schema", "invalid_artifact"},
                                        "run_results.json");
  }
  return 0;
}
