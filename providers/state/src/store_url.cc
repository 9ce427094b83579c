// The state store URL parsed (parse_store_url) and open_state_store, which opens the store it names.
#include "ods/state/store_url.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "ods/state/stores.h"
#include "postgres_connection.h"

namespace ods::state {
namespace {

constexpr char kExpected[] =
    "expected sqlite:PATH, sqlite://PATH, memory:, postgresql://… or libpq settings (host=… dbname=…)";

// The RFC 3986 scheme of `url` (lower-cased), or empty when it has none.
std::string scheme_of(const std::string& url) {
  const auto colon = url.find(':');
  if (colon == std::string::npos || colon == 0) return {};
  const std::string scheme = url.substr(0, colon);
  if (std::isalpha(static_cast<unsigned char>(scheme[0])) == 0) return {};
  const bool valid = std::ranges::all_of(scheme, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
  });
  if (!valid) return {};
  std::string lower = scheme;
  std::ranges::transform(lower, lower.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

}  // namespace

StoreUrl parse_store_url(const std::string& url) {
  StoreUrl out;
  out.scheme = scheme_of(url);
  if (out.scheme.empty()) {
    if (url.find('=') != std::string::npos) out.kind = StoreUrl::Kind::postgresql;
    return out;
  }
  if (out.scheme == "memory") {
    out.kind = StoreUrl::Kind::memory;
    out.path = url.substr(out.scheme.size() + 1);
  } else if (out.scheme == "sqlite") {
    out.kind = StoreUrl::Kind::sqlite;
    out.path = url.substr(out.scheme.size() + 1);
    if (out.path.starts_with("//")) out.path.erase(0, 2);
  } else if (out.scheme == "postgresql" || out.scheme == "postgres") {
    out.kind = StoreUrl::Kind::postgresql;
  }
  return out;
}

ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_state_store(const std::string& url, const Clock& clock,
                                                                          const OpenOptions& options) {
  const StoreUrl parsed = parse_store_url(url);
  switch (parsed.kind) {
    case StoreUrl::Kind::postgresql:
      return open_postgres_store(url, clock, options);
    case StoreUrl::Kind::memory:
      if (!parsed.path.empty() && parsed.path != "//") {
        return ods::fail("invalid_url", "A memory: state store URL takes no path; write just 'memory:'.");
      }
      return make_memory_store(clock);
    case StoreUrl::Kind::sqlite:
      if (parsed.path.empty()) {
        return ods::fail("invalid_url", "State store URL '" + url + "' names no database file; " + kExpected + ".");
      }
      return open_sqlite_store(parsed.path, clock, options);
    case StoreUrl::Kind::unknown:
      break;
  }
  if (parsed.scheme.empty()) {
    // No scheme means no user information either, so the text is safe to repeat.
    return ods::fail("invalid_url", "State store URL '" + url + "' has no scheme; " + kExpected + ".");
  }
  return ods::fail("invalid_url", "Unknown state store URL scheme '" + parsed.scheme + "'; " + kExpected + ".");
}

std::string redact_state_url(const std::string& url) {
  std::string out = url;
  if (auto query = out.find('?'); query != std::string::npos) out = out.substr(0, query) + "?…";
  if (auto scheme = out.find("://"); scheme != std::string::npos) {
    const auto at = out.find('@', scheme + 3);
    const auto slash = out.find('/', scheme + 3);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
      // The user name stays (the store's own messages name it too); the password goes.
      const std::string user_info = out.substr(scheme + 3, at - scheme - 3);
      out = out.substr(0, scheme + 3) + user_info.substr(0, user_info.find(':')) + "@" + out.substr(at + 1);
    }
    return out;
  }
  if (const StoreUrl parsed = parse_store_url(url); parsed.scheme.empty() && parsed.kind == StoreUrl::Kind::postgresql)
    return internal::scrub_password(url, url);
  return out;
}

}  // namespace ods::state
