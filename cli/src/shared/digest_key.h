#pragma once
// The digest key (issue #14): the secret that keys the digests of what hooks read from the
// run context (env_var, var, target). It is never in the state store, never logged, and
// never sent anywhere; a new key changes every such digest, so those nodes build once.
//
// Where it comes from, first match wins:
//   1. $ODS_DIGEST_KEY (the operator mounts it from a Secret into runner pods only);
//   2. the key file ${XDG_CONFIG_HOME:-$HOME/.config}/ods/digest.key, which `ods state key
//      --create` writes with mode 0600 (a file readable or writable by group or others is
//      refused).
#include <filesystem>
#include <optional>
#include <string>

#include "context.h"

namespace ods::cli {

inline constexpr std::size_t kMinDigestKeyBytes = 16;

struct DigestKey {
  std::string bytes;   // the secret itself: never print, log or store it
  std::string origin;  // "$ODS_DIGEST_KEY" or the key file's path: safe to print
};

// ${XDG_CONFIG_HOME:-$HOME/.config}/ods/digest.key ("" when neither variable is set).
std::filesystem::path digest_key_path(const Environment& env);

// The key, or nullopt when neither source has one. Errors ("digest_key", naming the file or
// the variable): a key shorter than kMinDigestKeyBytes, a key file group or others can read
// or write (with its mode), a key file that can't be read.
[[nodiscard]] Result<std::optional<DigestKey>> load_digest_key(const Environment& env);

// Writes a new random key (32 bytes, hex) to digest_key_path with mode 0600, creating its
// folder with mode 0700. Refuses ("digest_key") when the file exists or can't be written.
// Returns the path.
[[nodiscard]] Result<std::filesystem::path> create_digest_key(const Environment& env);

// How to enable the keyed digest, for reasons and messages.
std::string digest_key_hint();

}  // namespace ods::cli
