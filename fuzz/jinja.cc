// Fuzz target: the Jinja lexer and the purity checks (planner jinja_lexer.h, jinja_purity.h).
//   - the lexer ends every block within one token per byte, its tokens are views into the
//     template at non-decreasing offsets, and an end or error kind repeats once reached;
//   - jinja_impurity says why with "at line <n>", n within the template, and its verdict does
//     not change when a line of plain text is put in front (the line number moves by one);
//   - reads_run_context returns a word that is in the text.
#include <algorithm>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "jinja_lexer.h"
#include "ods/planner/jinja_purity.h"

namespace {

using ods::planner::jinja::BlockLexer;
using ods::planner::jinja::TokenKind;

void check_lexer(std::string_view text, std::string_view close) {
  BlockLexer lexer(text, 0, close);
  std::size_t last_offset = 0;
  for (std::size_t steps = 0;; ++steps) {
    ods::fuzz::require(steps <= text.size() + 1, "the lexer does not advance");
    const auto token = lexer.next();
    ods::fuzz::require(token.offset >= last_offset && token.offset <= text.size(), "token offset out of order");
    ods::fuzz::require(token.text.empty() || (token.text.data() >= text.data() &&
                                              token.text.data() + token.text.size() <= text.data() + text.size()),
                       "a token that is not a view into the template");
    last_offset = token.offset;
    if (token.kind != TokenKind::name && token.kind != TokenKind::string && token.kind != TokenKind::number &&
        token.kind != TokenKind::symbol) {
      ods::fuzz::require(lexer.next().kind == token.kind, "an end or error kind that does not repeat");
      if (token.kind == TokenKind::block_end) ods::fuzz::require(lexer.end() <= text.size(), "end past the template");
      return;
    }
  }
}

// The line number of "... at line <n>".
std::size_t line_in(const std::string& reason) {
  const std::size_t at = reason.rfind(" at line ");
  ods::fuzz::require(at != std::string::npos, "an impurity that names no line", reason);
  return std::stoul(reason.substr(at + 9));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = ods::fuzz::as_text(data, size);
  check_lexer(text, "}}");
  check_lexer(text, "%}");

  const auto impurity = ods::planner::jinja_impurity(text);
  const auto shifted = ods::planner::jinja_impurity("plain text\n" + std::string(text));
  ods::fuzz::require(impurity.has_value() == shifted.has_value(), "a plain line in front changes purity",
                     impurity.value_or("pure") + " / " + shifted.value_or("pure"));
  if (impurity) {
    const auto lines = static_cast<std::size_t>(1 + std::count(text.begin(), text.end(), '\n'));
    const std::size_t line = line_in(*impurity);
    ods::fuzz::require(line >= 1 && line <= lines, "an impurity at a line the template lacks", *impurity);
    ods::fuzz::require(line_in(*shifted) == line + 1, "a plain line in front does not move the line by one",
                       *impurity + " / " + *shifted);
  }
  if (const auto word = ods::planner::reads_run_context(text)) {
    ods::fuzz::require(!word->empty() && text.find(*word) != std::string_view::npos, "a word the text lacks", *word);
  }
  return 0;
}
