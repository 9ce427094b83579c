// `ods state key [--create]`: where the digest key of env-reading hooks comes from
// (digest_key.h). Prints the origin, never the key.
#include <ostream>

#include "commands.h"
#include "digest_key.h"
#include "flag_names.h"

namespace ods::cli {

int cmd_key(const ParsedArgs& args, CommandContext& ctx) {
  if (args.has(kFlagCreate)) {
    auto path = create_digest_key(ctx.env);
    if (!path) return report(ctx, path.error());
    *ctx.out << "wrote a new digest key to " << path->string()
             << " (mode 0600); nodes whose hooks read env_var, var or target build once, then are reused "
                "while what they read is unchanged\n";
    return kExitOk;
  }
  auto key = load_digest_key(ctx.env);
  if (!key) return report(ctx, key.error());
  if (!*key) {
    *ctx.out << "no digest key: nodes whose hooks read env_var, var or target are always built; " << digest_key_hint()
             << "\n";
    return kExitOk;
  }
  *ctx.out << "digest key from " << (*key)->origin << "\n";
  return kExitOk;
}

}  // namespace ods::cli
