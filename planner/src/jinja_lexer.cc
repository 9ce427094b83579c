#include "jinja_lexer.h"

namespace ods::planner::jinja {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_byte(char c) { return is_name_start(c) || is_digit(c); }
bool is_open_bracket(char c) { return c == '(' || c == '[' || c == '{'; }
bool is_close_bracket(char c) { return c == ')' || c == ']' || c == '}'; }
bool is_symbol(char c) {
  constexpr std::string_view kSymbols = "()[]{},.:|~+-*/%=<>!";
  return kSymbols.find(c) != std::string_view::npos;
}

}  // namespace

bool BlockLexer::at_close() const {
  const std::string_view rest = text_.substr(pos_);
  if (rest.starts_with(close_)) return true;
  return (rest.starts_with('-') || rest.starts_with('+')) && rest.substr(1).starts_with(close_);
}

Token BlockLexer::next() {
  if (done_) return last_;
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  const std::size_t start = pos_;
  auto finish = [&](TokenKind kind, std::size_t length) {
    done_ = true;
    last_ = {kind, text_.substr(start, length), start};
    return last_;
  };
  if (pos_ >= text_.size()) return finish(TokenKind::unterminated_block, 0);
  if (depth_ == 0 && at_close()) {
    pos_ += close_.size() + (text_[pos_] == close_[0] ? 0 : 1);
    return finish(TokenKind::block_end, pos_ - start);
  }
  const char c = text_[pos_];
  if (c == '\'' || c == '"') return lex_string();
  if (is_digit(c)) return lex_number();
  if (is_name_start(c)) {
    while (is_name_byte(at(pos_))) ++pos_;
    return {TokenKind::name, text_.substr(start, pos_ - start), start};
  }
  if (!is_symbol(c)) return finish(TokenKind::unexpected, 1);
  if (is_open_bracket(c)) ++depth_;
  if (is_close_bracket(c)) {
    if (depth_ == 0) return finish(TokenKind::unbalanced, 1);
    --depth_;
  }
  ++pos_;
  return {TokenKind::symbol, text_.substr(start, 1), start};
}

Token BlockLexer::lex_string() {
  const std::size_t start = pos_;
  const char quote = text_[pos_];
  for (std::size_t i = start + 1; i < text_.size(); ++i) {
    if (text_[i] == '\\') {
      ++i;  // the escaped byte, whatever it is
    } else if (text_[i] == quote) {
      pos_ = i + 1;
      return {TokenKind::string, text_.substr(start, pos_ - start), start};
    }
  }
  done_ = true;
  last_ = {TokenKind::unterminated_string, text_.substr(start, 1), start};
  return last_;
}

Token BlockLexer::lex_number() {
  const std::size_t start = pos_;
  auto digits = [&] {
    while (is_digit(at(pos_)) || at(pos_) == '_') ++pos_;
  };
  digits();
  if (at(pos_) == '.' && is_digit(at(pos_ + 1))) {
    ++pos_;
    digits();
  }
  const char sign = at(pos_ + 1);
  if ((at(pos_) == 'e' || at(pos_) == 'E') &&
      (is_digit(sign) || ((sign == '+' || sign == '-') && is_digit(at(pos_ + 2))))) {
    pos_ += is_digit(sign) ? 1 : 2;
    digits();
  }
  return {TokenKind::number, text_.substr(start, pos_ - start), start};
}

}  // namespace ods::planner::jinja
