// Jinja purity (ADR-0013 #209) and the hooks rule (#218). See jinja_purity.h.
//
// The check is syntactic and an allow-list. Outside {{ }}, {% %} and {# #} nothing is
// looked at. Inside:
//   - tags: if, elif, else, endif, for, endfor, set, endset; any other tag is impure;
//   - `(` only right after a pure name (ref, source, config, var, env_var, is_incremental)
//     that is not an attribute, or as grouping (at the start, after an operator, a comma,
//     an opening bracket or a keyword and/or/not/in/is/if/else);
//   - set and for targets may not rebind a pure name;
//   - a filter (`x | upper`) is a function call outside the allow-list: impure;
//   - a test without parentheses (`x is none`) reads as the keyword `is` and a name;
//     with parentheses it is a call like any other.
// Anything the lexer can't read (unknown bytes, unterminated strings or blocks,
// unbalanced brackets) is impure too: formatting then counts, which only builds more.
#include "ods/planner/jinja_purity.h"

#include <algorithm>
#include <array>

#include "jinja_lexer.h"
#include "jinja_words.h"

namespace ods::planner {
namespace {

using jinja::BlockLexer;
using jinja::Token;
using jinja::TokenKind;

constexpr std::array<std::string_view, 6> kPureCalls = {"ref", "source", "config", "var", "env_var", "is_incremental"};
constexpr std::array<std::string_view, 8> kPureTags = {"if", "elif", "else", "endif", "for", "endfor", "set", "endset"};
constexpr std::array<std::string_view, 3> kSqlRunningTags = {"do", "call", "macro"};
constexpr std::array<std::string_view, 7> kGroupingKeywords = {"and", "or", "not", "in", "is", "if", "else"};
constexpr std::array<std::string_view, 8> kRunContextWords = {"var",      "env_var", "target",    "flags",
                                                              "builtins", "context", "run_query", "statement"};

using jinja::contains;
using jinja::line_of;

// Checks one template, block by block. Each check_* returns nullopt when what it read is
// pure, otherwise the reason, which names the line.
class PurityChecker {
 public:
  explicit PurityChecker(std::string_view text) : text_(text) {}

  // The whole template: nullopt when every block is pure, otherwise the first reason.
  std::optional<std::string> check() {
    std::optional<std::string> impurity;
    const auto open_comment = jinja::for_each_block(text_, [&](BlockLexer& lexer, char kind) {
      impurity = kind == '{' ? check_expression(lexer) : check_statement(lexer);
      return !impurity;
    });
    if (impurity) return impurity;
    if (open_comment) return at_line("unterminated {#", *open_comment);
    return std::nullopt;
  }

 private:
  // What came before the current token, as far as `(` cares.
  struct Previous {
    enum Kind { nothing, operator_sign, dot, bare_name, attribute, value } kind = nothing;
    std::string_view name;        // bare_name, attribute: the name
    std::size_t chain_begin = 0;  // attribute: where `a.b.c` begins
    std::size_t name_end = 0;     // bare_name, attribute: just past the name
  };

  // "<what> at line <n>", the line (1-based) holding byte `offset`.
  std::string at_line(std::string_view what, std::size_t offset) const {
    return std::string(what) + " at line " + std::to_string(line_of(text_, offset));
  }

  // Reasons for the lexer's error kinds; nullopt for an ordinary token.
  std::optional<std::string> lexer_error(const Token& token) const {
    switch (token.kind) {
      case TokenKind::unterminated_string:
        return at_line("unterminated string", token.offset);
      case TokenKind::unterminated_block:
        return at_line("unterminated block", token.offset);
      case TokenKind::unexpected:
        return at_line("unexpected character '" + std::string(token.text) + "'", token.offset);
      case TokenKind::unbalanced:
        return at_line("unbalanced '" + std::string(token.text) + "'", token.offset);
      default:
        return std::nullopt;
    }
  }

  // {% tag ... %}: the tag must be allowed; set/for targets may not rebind a pure name.
  std::optional<std::string> check_statement(BlockLexer& lexer) {
    const Token tag = lexer.next();
    if (auto error = lexer_error(tag)) return error;
    if (tag.kind != TokenKind::name) return at_line("tag without a name", tag.offset);
    if (contains(kSqlRunningTags, tag.text)) return at_line("{% " + std::string(tag.text) + " %}", tag.offset);
    if (!contains(kPureTags, tag.text)) {
      return at_line("unknown tag {% " + std::string(tag.text) + " %}", tag.offset);
    }
    if (tag.text == "set" || tag.text == "for") {
      if (auto impurity = check_targets(lexer, tag.text == "set" ? "=" : "in")) return impurity;
    }
    return check_expression(lexer);
  }

  // The targets of set (up to `=`, or the block end for a block set) or for (up to `in`):
  // impure when one of them is a pure name (not an attribute like ns.ref).
  std::optional<std::string> check_targets(BlockLexer& lexer, std::string_view stop) {
    bool after_dot = false;
    for (Token token = lexer.next(); token.kind != TokenKind::block_end; token = lexer.next()) {
      if (auto error = lexer_error(token)) return error;
      if (token.text == stop && token.kind != TokenKind::string) return std::nullopt;
      if (token.kind == TokenKind::name && !after_dot && contains(kPureCalls, token.text)) {
        return at_line("rebinds " + std::string(token.text), token.offset);
      }
      after_dot = token.kind == TokenKind::symbol && token.text == ".";
    }
    return std::nullopt;
  }

  // An expression (or the rest of a tag) up to the block end: only pure calls, no filters.
  std::optional<std::string> check_expression(BlockLexer& lexer) {
    Previous previous;
    for (Token token = lexer.next(); token.kind != TokenKind::block_end; token = lexer.next()) {
      if (auto error = lexer_error(token)) return error;
      const bool after_dot = previous.kind == Previous::dot;
      switch (token.kind) {
        case TokenKind::name:
          if (!after_dot) previous.chain_begin = token.offset;
          previous.kind = after_dot ? Previous::attribute : Previous::bare_name;
          previous.name = token.text;
          previous.name_end = token.offset + token.text.size();
          break;
        case TokenKind::string:
        case TokenKind::number:
          previous.kind = Previous::value;
          break;
        default:
          if (auto impurity = check_symbol(lexer, token, previous)) return impurity;
      }
    }
    return std::nullopt;
  }

  // A symbol in an expression: `(` is checked as a call, `|` (a filter) is impure; the rest
  // only updates `previous`. May read the filter's name from `lexer`.
  std::optional<std::string> check_symbol(BlockLexer& lexer, const Token& token, Previous& previous) {
    const char symbol = token.text[0];
    if (symbol == '(') {
      if (auto impurity = check_call(token, previous)) return impurity;
    } else if (symbol == '|') {
      const Token filter = lexer.next();
      if (filter.kind == TokenKind::name) return at_line("filter " + std::string(filter.text), token.offset);
      return at_line("filter", token.offset);
    }
    const bool closes = symbol == ')' || symbol == ']' || symbol == '}';
    if (symbol == '.') {
      if (previous.kind != Previous::bare_name && previous.kind != Previous::attribute) {
        previous.chain_begin = token.offset;
      }
      previous.kind = Previous::dot;
    } else {
      previous.kind = closes ? Previous::value : Previous::operator_sign;
    }
    return std::nullopt;
  }

  // `(` is pure after a pure name that is not an attribute, or as grouping.
  std::optional<std::string> check_call(const Token& paren, const Previous& previous) const {
    switch (previous.kind) {
      case Previous::bare_name:
        if (contains(kPureCalls, previous.name) || contains(kGroupingKeywords, previous.name)) {
          return std::nullopt;
        }
        return at_line("calls " + std::string(previous.name), paren.offset);
      case Previous::attribute: {
        const auto chain = text_.substr(previous.chain_begin, previous.name_end - previous.chain_begin);
        return at_line("calls method " + std::string(chain), paren.offset);
      }
      case Previous::value:
        return at_line("indirect call", paren.offset);
      default:
        return std::nullopt;
    }
  }

  std::string_view text_;
};

}  // namespace

std::optional<std::string> jinja_impurity(std::string_view raw_code) { return PurityChecker(raw_code).check(); }

// Scans maximal runs of [A-Za-z0-9_] (so `target_schema` and `invocation_id` are other
// words) and returns the first that is a run-context word. Case-sensitive, as Jinja names
// are. The whole text counts, SQL and Jinja comments included: a mention is enough.
std::optional<std::string> reads_run_context(std::string_view text) {
  return jinja::first_listed_word(text, kRunContextWords);
}

}  // namespace ods::planner
