// Fuzz target: sources.json (providers/dbt read_sources_json). A refusal has a documented code
// and names the file.
#include "sources_json.h"

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ods::fuzz::ScratchFile file("sources.json");
  const auto sources = ods::dbt::internal::read_sources_json(file.write(ods::fuzz::as_text(data, size)));
  if (!sources) {
    ods::fuzz::require_documented_error(sources.error(), {"missing_artifact", "unsupported_schema", "invalid_artifact"},
                                        "sources.json");
  }
  return 0;
}
