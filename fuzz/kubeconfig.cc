// Fuzz target: kubeconfig files (operator/kube load_kubeconfig). A refusal is
// "invalid_kubeconfig" naming the file; an accepted one names a server.
#include "fuzz_support.h"
#include "ods/kube/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ods::fuzz::ScratchFile file("kubeconfig");
  const auto config = ods::kube::load_kubeconfig(file.write(ods::fuzz::as_text(data, size)));
  if (!config) ods::fuzz::require_documented_error(config.error(), {"invalid_kubeconfig"}, "kubeconfig");
  return 0;
}
