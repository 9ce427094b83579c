#pragma once
// ODS_DBT_TRY(lhs, expr): evaluates a Result-returning `expr`; on error returns the error
// from the enclosing function (which must return a Result), otherwise `lhs = value`
// (`lhs` may be a declaration, so it can't be parenthesised).
// NOLINTBEGIN(bugprone-macro-parentheses)
#define ODS_DBT_CONCAT_INNER(a, b) a##b
#define ODS_DBT_CONCAT(a, b) ODS_DBT_CONCAT_INNER(a, b)
#define ODS_DBT_TRY(lhs, expr)                                                         \
  auto ODS_DBT_CONCAT(ods_dbt_try_, __LINE__) = (expr);                                \
  if (!ODS_DBT_CONCAT(ods_dbt_try_, __LINE__))                                         \
    return std::unexpected(std::move(ODS_DBT_CONCAT(ods_dbt_try_, __LINE__).error())); \
  lhs = std::move(*ODS_DBT_CONCAT(ods_dbt_try_, __LINE__))
// NOLINTEND(bugprone-macro-parentheses)

// ODS_DBT_TRY_VOID(expr): the same for a Result<void>.
#define ODS_DBT_TRY_VOID(expr)                                                          \
  do {                                                                                  \
    auto ods_dbt_try_void = (expr);                                                     \
    if (!ods_dbt_try_void) return std::unexpected(std::move(ods_dbt_try_void.error())); \
  } while (false)
