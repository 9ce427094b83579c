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
//
// Tokens are words ([A-Za-z0-9_.]+, an exponent's sign included: 1e-5), maximal operator
// runs (so `a>=b` equals `a >= b` but not `a > = b`), ( ) , ; alone, quoted text and hints
// verbatim. Quotes are ', " and `, all read the same way (no escapes, no doubling); ' and "
// count as literals for the adjacency rule, ` (an identifier in every dialect) does not.
// Gives up (normalised=false, text=sql, give_up="<what> at offset <n>") on: a byte outside
// the allow-list ([ $ # @ { ? & ... , control bytes, non-ASCII); a backslash in quotes; a
// triple quote; a quote touching a word or another quote (x'41', N'a', 'a''b'); `--`
// without following whitespace; `//`; a block comment opening with anything but
// whitespace, *, -, = or + (/*!, /*M!); a nested block comment; a \r not followed by \n
// (anywhere, comments and quotes included); two ' or " literals with only whitespace or
// comments between; a `.` next to whitespace; an unterminated quote or block comment.
// Inside quotes and comments any other byte (non-ASCII included) is allowed.
NormalizedSql normalize_sql(std::string_view sql);

}  // namespace ods::planner
