#include "ods/base/sha256.h"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace ods {
namespace {

// One digest context per thread, reset for each digest: EVP_Digest would allocate and free
// a context per call, which costs more than hashing a short component.
struct DigestContext {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  DigestContext() = default;
  DigestContext(const DigestContext&) = delete;
  DigestContext& operator=(const DigestContext&) = delete;
  ~DigestContext() { EVP_MD_CTX_free(ctx); }
};

}  // namespace

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  // Fetched once: OpenSSL 3 otherwise looks the algorithm up on every call (~4x the cost of
  // hashing a short component).
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  thread_local DigestContext context;
  if (!kSha256 || !context.ctx || EVP_DigestInit_ex2(context.ctx, kSha256, nullptr) != 1 ||
      EVP_DigestUpdate(context.ctx, data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(context.ctx, md.data(), &len) != 1) {
    throw std::runtime_error("OpenSSL SHA-256 failed");  // only on a broken crypto library
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(static_cast<std::size_t>(len) * 2, '0');
  for (unsigned int i = 0; i < len; ++i) {
    out[2 * i] = kHex[md[i] >> 4];
    out[2 * i + 1] = kHex[md[i] & 0xf];
  }
  return out;
}

}  // namespace ods
