#pragma once
// Hooks that read only the run context by literal name (issue #14): which env_var, var and
// target fields a hook reads, so their values can be fingerprinted by a keyed digest
// instead of the hook building its node on every run (ADR-0013's hooks rule).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ods::planner {

// One read of the run context. `name` is the variable (env_var, var) or the field of
// `target` (target.name -> "name"); `fallback` the literal default of env_var/var, if any.
struct ContextRead {
  enum class Kind { env_var, var, target };
  Kind kind = Kind::env_var;
  std::string name;
  std::optional<std::string> fallback;
  friend bool operator==(const ContextRead&, const ContextRead&) = default;
};

// "env_var", "var" or "target".
std::string_view kind_name(ContextRead::Kind kind);

// The reads of a hook that reads the run context only through
//   env_var('NAME') / env_var('NAME', 'default')   (string literals; a number default too)
//   var('name') / var('name', 'default')
//   target.field
// inside {{ }} / {% %}, and is otherwise pure (jinja_impurity finds nothing: no run_query,
// statement, adapter or macro call, no {% do %}). nullopt when it reads anything else or
// any other way: flags, builtins, context, run_query or statement mentioned in a block; a
// name that isn't a plain string literal (a variable, a concatenation, an escape); env_var,
// var or target aliased, indexed, passed or qualified (x.env_var); keyword arguments.
// Text outside the blocks is SQL sent as written (it is in the `config` component).
// Returns the reads in order of appearance, duplicates removed; an empty vector when the
// hook reads nothing. Pure, thread-safe.
std::optional<std::vector<ContextRead>> literal_context_reads(std::string_view hook);

}  // namespace ods::planner
