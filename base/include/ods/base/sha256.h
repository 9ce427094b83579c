#pragma once
// SHA-256 of bytes, as lowercase hex: the one digest function of ODS (fingerprint components,
// content addresses of stored documents, input digests).
#include <string>
#include <string_view>

namespace ods {

// 64 lowercase hex digits. Thread-safe; throws std::runtime_error only when the crypto library
// itself is broken.
std::string sha256_hex(std::string_view data);

}  // namespace ods
