#pragma once
// Jinja purity (ADR-0013 #209) and the hooks rule (#218).
#include <optional>
#include <string>
#include <string_view>

namespace ods::planner {

// Whether a model's raw code uses only the pure allow-list inside {{ }} and {% %}:
// if/elif/else/for/set (and end tags), calls of ref, source, config, var, env_var,
// is_incremental, and reading names. Returns nullopt when pure, otherwise why not,
// e.g. "calls run_query at line 3" or "{% do %} at line 5". Pure, thread-safe.
// Also impure: method calls (adapter.drop_relation(...)), indirect calls ((f)(...),
// dbt['x'](...)), set/for targets rebinding a pure name, {% do %}, {% call %}, {% macro %},
// any other tag, filters (`x | f`), and text the check can't lex (unterminated blocks or
// strings, unbalanced brackets, unknown bytes). `(` is fine right after a pure name or as
// grouping. Tests without parentheses (`x is none`) and {# #} comments are fine.
std::optional<std::string> jinja_impurity(std::string_view raw_code);

// Whether hook or macro text mentions one of var, env_var, target, flags, builtins,
// context, run_query, statement in any form (called, aliased, indexed or qualified).
// Returns the first word found, or nullopt. invocation_id and run_started_at are fine.
// Words are maximal runs of [A-Za-z0-9_] (target_schema is another word), compared
// case-sensitively, anywhere in the text (comments and strings included). Pure, thread-safe.
std::optional<std::string> reads_run_context(std::string_view text);

// Whether a model's compiled SQL is a function of its raw code, its resolved config, `this`
// and the relations its ref/source calls name (what the compile key holds,
// docs/compile-key.md). Returns nullopt when it is, otherwise why not, e.g. "reads target at
// line 2" or "calls var at line 4". Requires jinja_impurity(raw_code) to be nullopt (else
// returns that reason), and then that every name the Jinja reads outside attributes and
// keyword arguments is ref, source, config, this, a Jinja keyword or literal (true, none,
// and, loop ...) or a name a set/for of the template bound before: var, env_var and
// is_incremental (values the parse does not show) and every context name (target, flags,
// run_started_at, invocation_id, model, graph ...) make it not keyable. Pure, thread-safe.
std::optional<std::string> compile_key_blocker(std::string_view raw_code);

// Whether a macro's text mentions a word whose value its compile reads from outside the
// parse manifest (run_query, statement, load_result, adapter, execute, var, env_var, target,
// flags, graph, model, modules, run_started_at, invocation_id ... — the list is in the .cc),
// anywhere in the text as reads_run_context looks. Returns the first such word, or nullopt.
// A node calling such a macro, directly or not, has no compile key. Pure, thread-safe.
std::optional<std::string> compile_impure_word(std::string_view macro_text);

}  // namespace ods::planner
