#pragma once
// How the callback service's steps refuse a request: an HTTP status and the JSON error's
// code, field and message.
#include <expected>
#include <string>

#include "ods/base/result.h"
#include "ods/callback/run_lookup.h"

namespace ods::callback::detail {

struct Refusal {
  int status = 500;
  std::string code;
  std::string field;  // JSON path of the offending field; "" when it is not about one
  std::string message;
};

template <class T>
using Answer = std::expected<T, Refusal>;

inline std::unexpected<Refusal> refuse_with(int status, std::string code, std::string field, std::string message) {
  return std::unexpected(Refusal{status, std::move(code), std::move(field), std::move(message)});
}

// A state store (or lookup) error: 503 when it may pass ("unavailable", "conflict"), so the pod
// retries; 500 otherwise. `doing` says what failed ("reading the head of shop/dev").
inline std::unexpected<Refusal> store_refusal(const Error& e, const std::string& doing) {
  const bool passing = e.code == "unavailable" || e.code == "conflict";
  return refuse_with(passing ? 503 : 500, passing ? "unavailable" : e.code, "", doing + ": " + e.message);
}

// The run a request is about, authenticated.
struct RunCall {
  std::string ns, name;
  RunInfo run;
};

}  // namespace ods::callback::detail
