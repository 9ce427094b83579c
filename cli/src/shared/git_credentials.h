#pragma once
// The credentials of a private git source (DbtProject spec.source.git.secretRef): the runner
// Job mounts the Secret read-only at $ODS_GIT_CREDENTIALS_DIR, one file per key. They reach git
// only through its environment, never its command line, the URL or a log:
// - https://: `password` (with `username`, default "git") becomes an HTTP Basic header, or
//   `bearerToken` an `Authorization: Bearer` header, set for that URL alone as
//   http.<url>.extraHeader through GIT_CONFIG_COUNT/GIT_CONFIG_KEY_0/GIT_CONFIG_VALUE_0; and
//   `ca.crt` (a server certificate signed by a private CA) becomes GIT_SSL_CAINFO, alone or
//   beside either credential;
// - ssh:// and git@host:path: `identity` (the private key) is copied to a file only its owner
//   reads (ssh refuses a key others may read; the Secret volume is group-readable), and
//   GIT_SSH_COMMAND runs ssh with that key, IdentitiesOnly, BatchMode and
//   StrictHostKeyChecking=yes against `known_hosts` from the Secret (required: an unknown host
//   key is refused, never accepted on first use).
// GIT_TERMINAL_PROMPT=0 always, so a refused credential fails at once instead of prompting.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ods/base/result.h"

namespace ods::cli {

struct GitCredentials {
  std::vector<std::pair<std::string, std::string>> environment;  // for git's process only
  std::filesystem::path private_key_dir;  // a copy of the SSH key to remove afterwards; empty: none
};

// The environment git needs for `url` with the Secret files in `dir` (empty: no credentials,
// only GIT_TERMINAL_PROMPT=0); SSH key copies go under `scratch`. Errors ("git_credentials"):
// no usable key for the URL's kind, an SSH key without known_hosts, an unreadable file; the
// message names the folder and keys, never a value.
[[nodiscard]] Result<GitCredentials> git_credentials(const std::filesystem::path& dir, const std::string& url,
                                                     const std::filesystem::path& scratch);

// Standard base64 with padding (for the Basic header).
std::string base64(const std::string& bytes);

}  // namespace ods::cli
