#pragma once
// The exit codes of `ods` commands and the one way a command reports an error before it
// returns one. Shared by the commands and the steps they take (cli/src/shared).
#include "context.h"
#include "ods/base/result.h"

namespace ods::cli {

inline constexpr int kExitOk = 0;             // the command did what it was asked
inline constexpr int kExitFailed = 1;         // it failed or refused; a message on stderr says why
inline constexpr int kExitUsage = 2;          // bad flags or settings; nothing ran
inline constexpr int kExitInterrupted = 130;  // Ctrl-C: dbt stopped, nothing recorded

// Prints "ods: <message>" on ctx.err for `error` and returns kExitUsage when its code is
// "usage", else kExitFailed. Not thread-safe (writes ctx.err).
int report(const CommandContext& ctx, const Error& error);

}  // namespace ods::cli
