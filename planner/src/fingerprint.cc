// Fingerprints: SHA-256 per component and a digest over the sorted components.
#include "ods/planner/fingerprint.h"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace ods::planner {

namespace {
// One digest context per thread, reset for each digest: EVP_Digest would allocate and free
// a context per call, which costs more than hashing a short component.
struct DigestContext {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
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
  std::string out(len * 2, '0');
  for (unsigned int i = 0; i < len; ++i) {
    out[2 * i] = kHex[md[i] >> 4];
    out[2 * i + 1] = kHex[md[i] & 0xf];
  }
  return out;
}

std::string Fingerprint::digest() const {
  std::size_t size = 0;
  for (const auto& [name, value] : components) size += name.size() + value.size() + 2;
  std::string text;
  text.reserve(size);
  for (const auto& [name, value] : components) {  // std::map: sorted by name
    text += name;
    text += '\0';
    text += value;
    text += '\n';
  }
  return sha256_hex(text);
}

FingerprintDiff diff(const Fingerprint& before, const Fingerprint& after) {
  FingerprintDiff d;
  for (const auto& [name, value] : after.components) {
    auto it = before.components.find(name);
    if (it == before.components.end()) {
      d.added.push_back(name);
    } else if (it->second != value) {
      d.changed.push_back(name);
    }
  }
  for (const auto& [name, value] : before.components) {
    if (!after.components.contains(name)) d.removed.push_back(name);
  }
  return d;
}

namespace {
std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}
}  // namespace

std::string FingerprintDiff::describe() const {
  std::string out;
  auto part = [&out](const std::vector<std::string>& names, const char* what) {
    if (names.empty()) return;
    if (!out.empty()) out += "; ";
    out += join(names) + " " + what;
  };
  part(changed, "changed");
  part(added, "added");
  part(removed, "removed");
  return out;
}

}  // namespace ods::planner
