#pragma once
// Expected failures are values: every fallible ODS function returns Result<T>.
//
// Message style (one for the whole code base): `message` is a complete sentence for a person,
// starting with a capital letter and ending with a period, that names what failed and where
// (the file, field, row, URL or process it is about) and, when there is one, what to do.
// `code` is one of the stable words listed in ods/base/error_codes.h.
#include <expected>
#include <string>
#include <utility>

namespace ods {

// An error that says what went wrong and where.
struct Error {
  std::string code;
  std::string message;
};

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string code, std::string message) {
  return std::unexpected<Error>(Error{std::move(code), std::move(message)});
}

}  // namespace ods

// ODS_TRY(lhs, expr): evaluates `expr`, a Result (or any std::expected); on error returns the
// error from the enclosing function (which must return a Result), otherwise `lhs = value`
// (`lhs` may be a declaration, so it can't be parenthesised).
// ODS_TRY_VOID(expr): the same for a Result<void>, whose value there is nothing to keep of.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define ODS_TRY_CONCAT_INNER(a, b) a##b
#define ODS_TRY_CONCAT(a, b) ODS_TRY_CONCAT_INNER(a, b)
#define ODS_TRY(lhs, expr)                                                         \
  auto ODS_TRY_CONCAT(ods_try_, __LINE__) = (expr);                                \
  if (!ODS_TRY_CONCAT(ods_try_, __LINE__))                                         \
    return std::unexpected(std::move(ODS_TRY_CONCAT(ods_try_, __LINE__).error())); \
  lhs = std::move(*ODS_TRY_CONCAT(ods_try_, __LINE__))
// NOLINTEND(bugprone-macro-parentheses)
#define ODS_TRY_VOID(expr)                                                      \
  do {                                                                          \
    auto ods_try_void = (expr);                                                 \
    if (!ods_try_void) return std::unexpected(std::move(ods_try_void.error())); \
  } while (false)
