// Literal run-context reads of a hook (issue #14). See hook_reads.h.
//
// Runs after the purity allow-list (jinja_purity.cc), so the blocks lex cleanly and call
// nothing but ref, source, config, var, env_var and is_incremental. This pass then looks
// at every run-context word inside the blocks and accepts only the three literal forms;
// anything else (a mention the digest could not cover) makes the whole hook unknown.
#include "ods/planner/hook_reads.h"

#include <algorithm>
#include <array>

#include "jinja_lexer.h"
#include "ods/planner/jinja_purity.h"

namespace ods::planner {
namespace {

using jinja::BlockLexer;
using jinja::Token;
using jinja::TokenKind;

constexpr std::array<std::string_view, 8> kRunContextWords = {"var",      "env_var", "target",    "flags",
                                                              "builtins", "context", "run_query", "statement"};

bool is_symbol(const Token& t, char c) { return t.kind == TokenKind::symbol && t.text.size() == 1 && t.text[0] == c; }

bool is_error(const Token& t) {
  return t.kind == TokenKind::unterminated_string || t.kind == TokenKind::unterminated_block ||
         t.kind == TokenKind::unexpected || t.kind == TokenKind::unbalanced;
}

// The contents of a plain string literal ('x' or "x"); nullopt with an escape.
std::optional<std::string> plain_string(const Token& t) {
  if (t.kind != TokenKind::string || t.text.size() < 2) return std::nullopt;
  const std::string_view inner = t.text.substr(1, t.text.size() - 2);
  if (inner.find('\\') != std::string_view::npos) return std::nullopt;
  return std::string(inner);
}

// Reads the tokens of one block and appends its reads; false when a read isn't literal.
class BlockReads {
 public:
  BlockReads(BlockLexer& lexer, std::vector<ContextRead>& out) : lexer_(lexer), out_(out) {}

  bool read() {
    bool after_dot = false;
    for (Token t = lexer_.next(); t.kind != TokenKind::block_end; t = lexer_.next()) {
      if (is_error(t)) return false;  // not reached after the purity check; never loop on one
      if (t.kind != TokenKind::name) {
        after_dot = is_symbol(t, '.');
        continue;
      }
      const bool qualified = after_dot;
      after_dot = false;
      if (std::find(kRunContextWords.begin(), kRunContextWords.end(), t.text) == kRunContextWords.end()) continue;
      if (qualified) return false;  // x.env_var: not the context's, but not what we can vouch for either
      if (t.text == "env_var" && !call(ContextRead::Kind::env_var)) return false;
      if (t.text == "var" && !call(ContextRead::Kind::var)) return false;
      if (t.text == "target" && !field()) return false;
      if (t.text != "env_var" && t.text != "var" && t.text != "target") return false;
    }
    return true;
  }

 private:
  // ( 'name' [, 'default' | number] )
  bool call(ContextRead::Kind kind) {
    if (!is_symbol(lexer_.next(), '(')) return false;
    const auto name = plain_string(lexer_.next());
    if (!name || name->empty()) return false;
    ContextRead read{kind, *name, std::nullopt};
    Token t = lexer_.next();
    if (is_symbol(t, ',')) {
      const Token fallback = lexer_.next();
      if (fallback.kind == TokenKind::number) {
        read.fallback = std::string(fallback.text);
      } else if (auto text = plain_string(fallback)) {
        read.fallback = std::move(text);
      } else {
        return false;
      }
      t = lexer_.next();
    }
    if (!is_symbol(t, ')')) return false;
    add(std::move(read));
    return true;
  }

  // . field
  bool field() {
    if (!is_symbol(lexer_.next(), '.')) return false;
    const Token name = lexer_.next();
    if (name.kind != TokenKind::name) return false;
    add({ContextRead::Kind::target, std::string(name.text), std::nullopt});
    return true;
  }

  void add(ContextRead read) {
    if (std::find(out_.begin(), out_.end(), read) == out_.end()) out_.push_back(std::move(read));
  }

  BlockLexer& lexer_;
  std::vector<ContextRead>& out_;
};

}  // namespace

std::string_view kind_name(ContextRead::Kind kind) {
  switch (kind) {
    case ContextRead::Kind::env_var:
      return "env_var";
    case ContextRead::Kind::var:
      return "var";
    case ContextRead::Kind::target:
      return "target";
  }
  return "?";
}

std::optional<std::vector<ContextRead>> literal_context_reads(std::string_view hook) {
  if (jinja_impurity(hook)) return std::nullopt;  // calls, {% do %}, filters, unlexable text
  std::vector<ContextRead> reads;
  bool literal = true;
  const auto open_comment = jinja::for_each_block(hook, [&](BlockLexer& lexer, char /*kind*/) {
    literal = BlockReads(lexer, reads).read();
    return literal;
  });
  if (!literal || open_comment) return std::nullopt;
  return reads;
}

}  // namespace ods::planner
