#pragma once
// Jinja purity (ADR-0013 #209) and the hooks rule (#218).
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// What a model's compiled SQL reads beyond its raw code, its resolved config, `this` and the
// relations its ref/source calls name, when that is all names the compile key can hold
// (docs/compile-key.md): the vars it reads by literal name and the macros it calls.
struct CompileKeyReads {
  std::vector<std::string> vars;   // var('<name>'), var('<name>', default): the names, sorted, unique
  std::vector<std::string> calls;  // macro calls: "name" or "package.name", sorted, unique
};
// The reads, or why the template can't be keyed ("reads target at line 2", "calls env_var at
// line 4", "filter upper at line 1", "{% do %} at line 3"...). Allowed: the tags if, elif, else,
// endif, for, endfor, set, endset; calls of ref, source, config, var with a literal name, and of
// a bare or package-qualified name (a macro: the caller checks it is one whose text allows a
// key); names read outside attributes and keyword arguments that are ref, source, config,
// this, a Jinja keyword or literal (true, none, and, loop ...) or bound by a set/for before.
// Not keyable: env_var, filters, method and indirect calls, every context name (target, flags,
// run_started_at, invocation_id, model, graph ...), anything the lexer can't read. Pure,
// thread-safe.
std::expected<CompileKeyReads, std::string> compile_key_reads(std::string_view raw_code);

// Whether a macro's text mentions a word whose value its compile reads from outside the
// parse manifest (run_query, statement, load_result, adapter, execute, var, env_var, target,
// flags, graph, model, modules, run_started_at, invocation_id ... — the list is in the .cc),
// anywhere in the text as reads_run_context looks. Returns the first such word, or nullopt.
// A node calling such a macro, directly or not, has no compile key. Pure, thread-safe.
std::optional<std::string> compile_impure_word(std::string_view macro_text);

}  // namespace ods::planner
