#pragma once
// A whole file's bytes, read and written in one place for the CLI's own files (the packages
// cache's entries, the parse's copy and its digest).
#include <filesystem>
#include <optional>
#include <string>

#include "ods/base/result.h"

namespace ods::cli {

// The file's bytes; nullopt when it cannot be read.
std::optional<std::string> read_bytes(const std::filesystem::path& path);

// Writes `bytes` to `path` (replacing what was there) and gives it `mode`. Errors: "io",
// naming the file.
Result<void> write_bytes(const std::filesystem::path& path, const std::string& bytes, std::filesystem::perms mode);

}  // namespace ods::cli
