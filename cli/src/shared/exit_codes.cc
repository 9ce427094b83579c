#include "exit_codes.h"

#include <ostream>

namespace ods::cli {

int report(const CommandContext& ctx, const Error& error) {
  *ctx.err << "ods: " << error.message << "\n";
  return error.code == "usage" ? kExitUsage : kExitFailed;
}

}  // namespace ods::cli
