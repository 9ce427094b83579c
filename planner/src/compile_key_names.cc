// What the compile key may cover of a template's Jinja (docs/compile-key.md). See
// jinja_purity.h: compile_key_blocker, compile_impure_word.
//
// The purity check says the Jinja runs no SQL; this says more: that what it renders depends on
// nothing but what the key holds. So the names it reads are an allow-list too. A name read is
// a name token that is not an attribute (after `.`) and not a keyword argument (`name=` inside
// a call, not `==`); it must be allowed or bound by a set/for earlier in the template.
#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <vector>

#include "jinja_lexer.h"
#include "ods/planner/jinja_purity.h"

namespace ods::planner {
namespace {

using jinja::BlockLexer;
using jinja::Token;
using jinja::TokenKind;

// Names whose value the compile key holds: ref/source (the relations the parse resolved),
// config (the resolved config), this (the node's own relation); then Jinja's own words.
constexpr std::array<std::string_view, 22> kKeyedNames = {
    "ref",  "source", "config", "this",  "true", "false", "none",   "True",   "False", "None", "and",
    "or",   "not",    "in",     "is",    "if",   "else",  "elif",   "endif",  "for",   "endfor", "loop"};
constexpr std::array<std::string_view, 3> kTagsWithoutExpression = {"endset", "endfor", "endif"};

// Words a macro's compile may read from outside the parse manifest.
constexpr std::array<std::string_view, 24> kCompileImpureWords = {
    "run_query", "statement",  "load_result",    "adapter",       "execute",     "var",
    "env_var",   "target",     "flags",          "builtins",      "context",     "graph",
    "model",     "modules",    "run_started_at", "invocation_id", "store_result", "load_relation",
    "api",       "exceptions", "selected_resources", "local_md5", "project_name", "dbt_version"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

std::size_t line_of(std::string_view text, std::size_t offset) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

bool is_symbol(const std::vector<Token>& tokens, std::size_t i, char c) {
  return i < tokens.size() && tokens[i].kind == TokenKind::symbol && tokens[i].text[0] == c;
}

class NameChecker {
 public:
  explicit NameChecker(std::string_view text) : text_(text) {}

  std::optional<std::string> check() {
    std::optional<std::string> blocker;
    jinja::for_each_block(text_, [&](BlockLexer& lexer, char kind) {
      std::vector<Token> tokens;
      for (Token t = lexer.next(); t.kind != TokenKind::block_end; t = lexer.next()) {
        if (t.kind != TokenKind::name && t.kind != TokenKind::string && t.kind != TokenKind::number &&
            t.kind != TokenKind::symbol) {
          blocker = "unreadable Jinja at line " + std::to_string(line_of(text_, t.offset));
          return false;
        }
        tokens.push_back(t);
      }
      blocker = kind == '{' ? check_names(tokens, 0) : check_statement(tokens);
      return !blocker;
    });
    return blocker;
  }

 private:
  // {% set a, b = ... %} / {% set a %} / {% for a, b in ... %}: the targets are bound once the
  // expression after them was read (a set's value can't read the name it binds).
  std::optional<std::string> check_statement(const std::vector<Token>& tokens) {
    if (tokens.empty()) return std::string("empty tag");
    const std::string_view tag = tokens[0].text;
    if (contains(kTagsWithoutExpression, tag)) return std::nullopt;
    if (tag != "set" && tag != "for") return check_names(tokens, 1);
    const std::string_view stop = tag == "set" ? "=" : "in";
    std::size_t i = 1;
    std::vector<std::string> targets;
    for (; i < tokens.size() && tokens[i].text != stop; ++i) {
      if (tokens[i].kind == TokenKind::name && !is_symbol(tokens, i - 1, '.')) targets.emplace_back(tokens[i].text);
    }
    auto blocker = check_names(tokens, i + 1);
    bound_.insert(targets.begin(), targets.end());
    return blocker;
  }

  std::optional<std::string> check_names(const std::vector<Token>& tokens, std::size_t from) {
    for (std::size_t i = from; i < tokens.size(); ++i) {
      if (tokens[i].kind != TokenKind::name) continue;
      if (i > 0 && is_symbol(tokens, i - 1, '.')) continue;  // an attribute
      const bool keyword_argument = is_symbol(tokens, i + 1, '=') && !is_symbol(tokens, i + 2, '=') &&
                                    (is_symbol(tokens, i - 1, '(') || is_symbol(tokens, i - 1, ','));
      if (i > 0 && keyword_argument) continue;
      const std::string_view name = tokens[i].text;
      if (contains(kKeyedNames, name) || bound_.contains(std::string(name))) continue;
      const bool call = is_symbol(tokens, i + 1, '(');
      return std::string(call ? "calls " : "reads ") + std::string(name) + " at line " +
             std::to_string(line_of(text_, tokens[i].offset));
    }
    return std::nullopt;
  }

  std::string_view text_;
  std::set<std::string> bound_;
};

bool is_word_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::optional<std::string> compile_key_blocker(std::string_view raw_code) {
  if (auto impure = jinja_impurity(raw_code)) return impure;
  return NameChecker(raw_code).check();
}

std::optional<std::string> compile_impure_word(std::string_view macro_text) {
  std::size_t i = 0;
  while (i < macro_text.size()) {
    if (!is_word_byte(macro_text[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < macro_text.size() && is_word_byte(macro_text[i])) ++i;
    const std::string_view word = macro_text.substr(start, i - start);
    if (contains(kCompileImpureWords, word)) return std::string(word);
  }
  return std::nullopt;
}

}  // namespace ods::planner
