#pragma once
// Run credentials: each runner pod gets a token that lets it report for its own run only.
//   token = lowercase hex of HMAC-SHA256(controller key, "<namespace>/<name>/<run uid>")
// The operator puts the token into the run's Secret (ODS_RUN_TOKEN_FILE in the pod); the
// callback server recomputes it from the run it is asked about and compares in constant time.
// A token names neither the key nor the state store; a new run uid gives a new token.
#include <filesystem>
#include <string>

#include "ods/base/result.h"

namespace ods::callback {

// The smallest controller key accepted, in bytes.
inline constexpr std::size_t kMinKeyBytes = 16;

class RunTokens {
 public:
  // Errors: "invalid_argument" when `key` is shorter than kMinKeyBytes.
  [[nodiscard]] static Result<RunTokens> from_key(std::string key);
  // Reads the key from a file (the operator mounts it from a Secret); trailing newlines and
  // spaces are not part of the key. Errors: "io" when the file can't be read (naming it);
  // "invalid_argument" when the key is too short.
  [[nodiscard]] static Result<RunTokens> from_key_file(const std::filesystem::path& path);

  // The token of one run. Thread-safe (const).
  std::string token_for(const std::string& ns, const std::string& name, const std::string& run_uid) const;
  // Whether `presented` is that token; the comparison takes the same time wherever it differs.
  bool verify(const std::string& ns, const std::string& name, const std::string& run_uid,
              const std::string& presented) const;

 private:
  explicit RunTokens(std::string key) : key_(std::move(key)) {}
  std::string key_;
};

}  // namespace ods::callback
