#pragma once
// Internal to the planner: a lexer for the inside of one Jinja {{ }} or {% %} block, just
// detailed enough for the purity allow-list (jinja_purity.cc). Not a Jinja parser.
#include <cstddef>
#include <optional>
#include <string_view>

namespace ods::planner::jinja {

enum class TokenKind {
  name,                 // [A-Za-z_][A-Za-z0-9_]*
  string,               // '...' or "..." with backslash escapes
  number,               // 12, 1_000, 1.5, 2e-3
  symbol,               // one byte of ( ) [ ] { } , . : | ~ + - * / % = < > !
  block_end,            // the block's close ("}}" or "%}", with an optional -/+ before it)
  unterminated_string,  // text: the opening quote
  unterminated_block,   // the template ended before the close
  unexpected,           // text: a byte Jinja can't lex here (@, $, ;, non-ASCII, ...)
  unbalanced,           // text: a closing bracket with nothing open
};

struct Token {
  TokenKind kind;
  std::string_view text;  // a view into the template
  std::size_t offset;     // byte offset of the token in the template
};

// Lexes one block. Brackets are counted, so a "}}" inside a dict literal doesn't end an
// expression block. Holds a view of the template: the template must outlive the lexer.
class BlockLexer {
 public:
  // `text` is the whole template, `begin` the first byte after "{{"/"{%" and its optional
  // -/+, `close` the delimiter that ends the block ("}}" or "%}").
  BlockLexer(std::string_view text, std::size_t begin, std::string_view close)
      : text_(text), pos_(begin), close_(close) {}

  // The next token. After block_end or any error kind, the lexer stays where it stopped
  // and returns the same kind again.
  Token next();

  // Offset just past the close delimiter; meaningful once next() returned block_end.
  std::size_t end() const { return pos_; }

 private:
  char at(std::size_t i) const { return i < text_.size() ? text_[i] : '\0'; }
  bool at_close() const;  // the close (optionally after - or +) starts at pos_
  Token lex_string();
  Token lex_number();

  std::string_view text_;
  std::size_t pos_;
  std::string_view close_;
  int depth_ = 0;  // open ( [ { brackets
  bool done_ = false;
  Token last_{TokenKind::block_end, {}, 0};
};

// Walks the {{ }} and {% %} blocks of a template in order; plain text and {# #} comments are
// skipped. For each block, calls on_block(lexer, kind) with a lexer at the block's first
// token (after the opening delimiter and its optional -/+) and kind '{' or '%'; on_block reads
// the block (to block_end, for the walk to go on past it) and returns false to stop the walk.
// Returns the offset of an unterminated {# (the rest of the template is that comment), or
// nullopt. The one block walk of the purity check and the hooks' literal reads.
template <typename OnBlock>
std::optional<std::size_t> for_each_block(std::string_view text, OnBlock&& on_block) {
  std::size_t pos = 0;
  while ((pos = text.find('{', pos)) != std::string_view::npos) {
    const char kind = pos + 1 < text.size() ? text[pos + 1] : '\0';
    if (kind == '#') {
      const std::size_t end = text.find("#}", pos + 2);
      if (end == std::string_view::npos) return pos;
      pos = end + 2;
      continue;
    }
    if (kind != '{' && kind != '%') {
      ++pos;
      continue;
    }
    std::size_t begin = pos + 2;
    if (begin < text.size() && (text[begin] == '-' || text[begin] == '+')) ++begin;
    BlockLexer lexer(text, begin, kind == '{' ? "}}" : "%}");
    if (!on_block(lexer, kind)) return std::nullopt;
    pos = lexer.end();
  }
  return std::nullopt;
}

}  // namespace ods::planner::jinja
