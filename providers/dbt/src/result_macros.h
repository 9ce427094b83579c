#pragma once
// ODS_TRY(lhs, expr): evaluates a Result-returning `expr`; on error returns it from the
// enclosing function (which must return a Result), otherwise declares `lhs` = the value.
#define ODS_DBT_CONCAT_INNER(a, b) a##b
#define ODS_DBT_CONCAT(a, b) ODS_DBT_CONCAT_INNER(a, b)
#define ODS_TRY(lhs, expr)                                                  \
  auto ODS_DBT_CONCAT(ods_try_, __LINE__) = (expr);                         \
  if (!ODS_DBT_CONCAT(ods_try_, __LINE__))                                  \
    return std::unexpected(std::move(ODS_DBT_CONCAT(ods_try_, __LINE__).error())); \
  lhs = std::move(*ODS_DBT_CONCAT(ods_try_, __LINE__))
// ODS_TRY_VOID(expr): for Result<void>.
#define ODS_TRY_VOID(expr)                                                  \
  do {                                                                      \
    auto ods_try_void = (expr);                                             \
    if (!ods_try_void) return std::unexpected(std::move(ods_try_void.error())); \
  } while (false)
