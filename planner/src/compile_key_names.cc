// What the compile key may cover of a template's Jinja (docs/compile-key.md). See
// jinja_purity.h: compile_key_reads, compile_impure_word.
//
// Like the purity check, an allow-list over the lexer's tokens, block by block; unlike it,
// calls of macros are allowed (the caller checks each macro's text and keys its digest), and
// the names read are an allow-list too, so nothing the parse does not show (a context name, an
// environment value) reaches the compiled SQL unkeyed. A name read is a name token that is not
// an attribute (after `.`), not called, and not a keyword argument (`name=` inside a call).
#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <vector>

#include "jinja_lexer.h"
#include "jinja_words.h"
#include "ods/planner/jinja_purity.h"

namespace ods::planner {
namespace {

using jinja::BlockLexer;
using jinja::Token;
using jinja::TokenKind;

// Names whose value the compile key holds: ref/source (the relations the parse resolved),
// config (the resolved config), this (the node's own relation); then Jinja's own words.
constexpr std::array<std::string_view, 21> kKeyedNames = {
    "ref", "source", "config", "this", "true", "false", "none", "True",  "False", "None",  "and",
    "or",  "not",    "in",     "is",   "if",   "else",  "elif", "endif", "for",   "endfor"};
constexpr std::array<std::string_view, 7> kGroupingKeywords = {"and", "or", "not", "in", "is", "if", "else"};
constexpr std::array<std::string_view, 4> kCallsTheKeyHolds = {"ref", "source", "config", "var"};
constexpr std::array<std::string_view, 4> kTagsWithoutExpression = {"else", "endset", "endfor", "endif"};
constexpr std::array<std::string_view, 3> kTagsWithExpression = {"if", "elif", "for"};
// Never macros the key could hold: what they return is not in the parse.
constexpr std::array<std::string_view, 6> kNeverKeyed = {"env_var", "run_query", "statement",
                                                         "log",     "return",    "load_result"};

// Context objects whose methods are no macros of a package.
constexpr std::array<std::string_view, 11> kContextObjects = {
    "adapter", "modules", "exceptions", "api", "target", "flags", "graph", "model", "this", "builtins", "context"};

// Words a macro's compile may read from outside the parse manifest.
constexpr std::array<std::string_view, 24> kCompileImpureWords = {
    "run_query",      "statement",     "load_result",  "adapter",       "execute", "var",        "env_var",
    "target",         "flags",         "builtins",     "context",       "graph",   "model",      "modules",
    "run_started_at", "invocation_id", "store_result", "load_relation", "api",     "exceptions", "selected_resources",
    "local_md5",      "project_name",  "dbt_version"};

using jinja::contains;
using jinja::line_of;

bool is_symbol(const std::vector<Token>& tokens, std::size_t i, char c) {
  return i < tokens.size() && tokens[i].kind == TokenKind::symbol && tokens[i].text[0] == c;
}
bool is_name(const std::vector<Token>& tokens, std::size_t i) {
  return i < tokens.size() && tokens[i].kind == TokenKind::name;
}

class KeyReader {
 public:
  explicit KeyReader(std::string_view text) : text_(text) {}

  std::expected<CompileKeyReads, std::string> read() {
    std::optional<std::string> blocker;
    const auto open_comment = jinja::for_each_block(text_, [&](BlockLexer& lexer, char kind) {
      std::vector<Token> tokens;
      for (Token t = lexer.next(); t.kind != TokenKind::block_end; t = lexer.next()) {
        if (t.kind != TokenKind::name && t.kind != TokenKind::string && t.kind != TokenKind::number &&
            t.kind != TokenKind::symbol) {
          blocker = at_line("Jinja the check can't read", t.offset);
          return false;
        }
        tokens.push_back(t);
      }
      blocker = kind == '{' ? check_expression(tokens, 0) : check_statement(tokens);
      return !blocker;
    });
    if (blocker) return std::unexpected(*blocker);
    if (open_comment) return std::unexpected(at_line("unterminated {#", *open_comment));
    CompileKeyReads reads;
    reads.vars.assign(vars_.begin(), vars_.end());
    reads.calls.assign(calls_.begin(), calls_.end());
    return reads;
  }

 private:
  std::string at_line(std::string_view what, std::size_t offset) const {
    return std::string(what) + " at line " + std::to_string(line_of(text_, offset));
  }

  // {% set a, b = ... %} / {% set a %} / {% for a, b in ... %}: the targets are bound once the
  // expression after them was read (a set's value can't read the name it binds).
  std::optional<std::string> check_statement(const std::vector<Token>& tokens) {
    if (tokens.empty()) return std::string("a tag without a name");
    if (tokens[0].kind != TokenKind::name) return at_line("a tag without a name", tokens[0].offset);
    const std::string_view tag = tokens[0].text;
    if (contains(kTagsWithoutExpression, tag)) {
      if (tokens.size() > 1) return at_line("{% " + std::string(tag) + " %} with more", tokens[0].offset);
      return std::nullopt;
    }
    if (tag != "set" && tag != "for") {
      if (contains(kTagsWithExpression, tag)) return check_expression(tokens, 1);
      return at_line("{% " + std::string(tag) + " %}", tokens[0].offset);
    }
    const std::string_view stop = tag == "set" ? "=" : "in";
    std::size_t i = 1;
    std::vector<std::string> targets;
    for (; i < tokens.size() && tokens[i].text != stop; ++i) {
      if (tokens[i].kind == TokenKind::name) {
        if (contains(kKeyedNames, tokens[i].text) || contains(kCallsTheKeyHolds, tokens[i].text) ||
            contains(kNeverKeyed, tokens[i].text) || tokens[i].text == "is_incremental")
          return at_line("rebinds " + std::string(tokens[i].text), tokens[i].offset);
        targets.emplace_back(tokens[i].text);
      } else if (!is_symbol(tokens, i, ',') && !is_symbol(tokens, i, '(') && !is_symbol(tokens, i, ')')) {
        return at_line("a " + std::string(tag) + " target the check can't read", tokens[i].offset);
      }
    }
    if (tag == "for" && i == tokens.size()) return at_line("{% for %} without in", tokens[0].offset);
    auto blocker = check_expression(tokens, i + 1);
    bound_.insert(targets.begin(), targets.end());
    if (tag == "for") bound_.insert("loop");
    return blocker;
  }

  std::optional<std::string> check_expression(const std::vector<Token>& tokens, std::size_t from) {
    for (std::size_t i = from; i < tokens.size(); ++i) {
      const Token& token = tokens[i];
      if (is_symbol(tokens, i, '|')) {
        return at_line(is_name(tokens, i + 1) ? "filter " + std::string(tokens[i + 1].text) : "filter", token.offset);
      }
      if (is_symbol(tokens, i, '(')) {
        if (auto blocker = check_call(tokens, i)) return blocker;
        continue;
      }
      if (token.kind != TokenKind::name || (i > 0 && is_symbol(tokens, i - 1, '.'))) continue;  // attribute
      if (is_symbol(tokens, i + 1, '(')) continue;  // a call: checked at `(`
      if (is_symbol(tokens, i + 1, '.') && is_name(tokens, i + 2) && is_symbol(tokens, i + 3, '(') &&
          !contains(kContextObjects, token.text))
        continue;  // package.macro(: checked at `(`
      const bool keyword_argument = i > from && is_symbol(tokens, i + 1, '=') && !is_symbol(tokens, i + 2, '=') &&
                                    (is_symbol(tokens, i - 1, '(') || is_symbol(tokens, i - 1, ','));
      if (keyword_argument || contains(kKeyedNames, token.text) || bound_.contains(std::string(token.text))) continue;
      return at_line("reads " + std::string(token.text), token.offset);
    }
    return std::nullopt;
  }

  // `(` at tokens[paren]: grouping, a call the key holds (ref, source, config, var with a
  // literal name), or a macro call (bare or package-qualified name).
  std::optional<std::string> check_call(const std::vector<Token>& tokens, std::size_t paren) {
    if (paren == 0) return std::nullopt;
    const std::size_t callee = paren - 1;
    const Token& before = tokens[callee];
    if (before.kind == TokenKind::symbol) {
      const char c = before.text[0];
      if (c == ')' || c == ']' || c == '}') return at_line("indirect call", before.offset);
      return std::nullopt;  // grouping after an operator, a comma or an opening bracket
    }
    if (before.kind != TokenKind::name) return at_line("indirect call", before.offset);
    const std::string name(before.text);
    if (callee > 0 && is_symbol(tokens, callee - 1, '.')) {  // package.macro( and nothing longer
      if (callee < 2 || !is_name(tokens, callee - 2) || (callee >= 3 && is_symbol(tokens, callee - 3, '.')) ||
          bound_.contains(std::string(tokens[callee - 2].text)))
        return at_line("calls a method ." + name, before.offset);
      calls_.insert(std::string(tokens[callee - 2].text) + "." + name);
      return std::nullopt;
    }
    if (contains(kGroupingKeywords, name)) return std::nullopt;
    if (name == "var") {
      const bool literal = paren + 2 < tokens.size() && tokens[paren + 1].kind == TokenKind::string &&
                           (is_symbol(tokens, paren + 2, ')') || is_symbol(tokens, paren + 2, ','));
      const std::string_view quoted = literal ? tokens[paren + 1].text : std::string_view();
      if (!literal || quoted.size() < 2 || quoted.find('\\') != std::string_view::npos)
        return at_line("calls var without a literal name", before.offset);
      vars_.insert(std::string(quoted.substr(1, quoted.size() - 2)));
      return std::nullopt;
    }
    if (contains(kCallsTheKeyHolds, name)) return std::nullopt;
    if (contains(kNeverKeyed, name) || bound_.contains(name)) return at_line("calls " + name, before.offset);
    calls_.insert(name);
    return std::nullopt;
  }

  std::string_view text_;
  std::set<std::string> bound_;
  std::set<std::string> vars_;
  std::set<std::string> calls_;
};

}  // namespace

std::expected<CompileKeyReads, std::string> compile_key_reads(std::string_view raw_code) {
  return KeyReader(raw_code).read();
}

std::optional<std::string> compile_impure_word(std::string_view macro_text) {
  return jinja::first_listed_word(macro_text, kCompileImpureWords);
}

}  // namespace ods::planner
