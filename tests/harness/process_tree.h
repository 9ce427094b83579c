#pragma once
// Test harness: ending a process and everything it started at once, as a machine or a pod that
// dies would. `ods` runs dbt in a process group of its own, so SIGKILL to `ods` alone would
// leave dbt running (and holding the DuckDB file); these kill the whole tree.
#include <sys/types.h>

#include <vector>

namespace ods::testing {

// Every descendant of `root` (children, their children, ...) now, from /proc.
std::vector<pid_t> descendants_of(pid_t root);

// Stops `root` (SIGSTOP, so it starts nothing more), then SIGKILLs it, each descendant and the
// process group of each descendant; waits until every descendant is gone (or a zombie). The
// caller still reaps `root` (it is the caller's child).
void kill_process_tree(pid_t root);

// True when `pid` has ended (no such process, or a zombie nobody reaped yet).
bool process_gone(pid_t pid);
// True when /proc still lists `pid`, a zombie included.
bool process_exists(pid_t pid);

}  // namespace ods::testing
