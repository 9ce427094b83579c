#pragma once
// Formatting-insensitive SQL (ADR-0013 #209): an allow-list tokenizer. Outside quotes and
// comments only ASCII letters, digits, _, ASCII whitespace, ( ) , ; = < > + - * / % | : ! .
// are accepted; tokens are rejoined with single spaces; comments are dropped except
// optimizer hints (/*+ ... */). Case and spelling never change. Anything whose meaning
// depends on the dialect gives up, and the caller hashes the raw text instead.
#include <string>
#include <string_view>

namespace ods::planner {

struct NormalizedSql {
  bool normalised = false;  // false: gave up; `text` is the raw input unchanged
  std::string text;         // the normalised SQL (or the raw text when it gave up)
  std::string give_up;      // why it gave up, e.g. "'[' at offset 17"; empty when normalised
};

// Pure, thread-safe, linear in the input's length.
NormalizedSql normalize_sql(std::string_view sql);

}  // namespace ods::planner
