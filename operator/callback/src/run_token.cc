#include "ods/callback/run_token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <fstream>
#include <sstream>

namespace ods::callback {

Result<RunTokens> RunTokens::from_key(std::string key) {
  if (key.size() < kMinKeyBytes)
    return fail("invalid_argument", "the controller key has " + std::to_string(key.size()) + " bytes; at least " +
                                        std::to_string(kMinKeyBytes) + " are needed");
  return RunTokens(std::move(key));
}

Result<RunTokens> RunTokens::from_key_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("io", path.string() + ": cannot read the controller key");
  std::ostringstream text;
  text << in.rdbuf();
  std::string key = text.str();
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r' || key.back() == ' ')) key.pop_back();
  auto tokens = from_key(std::move(key));
  if (!tokens) return fail(tokens.error().code, path.string() + ": " + tokens.error().message);
  return tokens;
}

std::string RunTokens::token_for(const std::string& ns, const std::string& name, const std::string& run_uid) const {
  const std::string message = ns + "/" + name + "/" + run_uid;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), digest, &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

bool RunTokens::verify(const std::string& ns, const std::string& name, const std::string& run_uid,
                       const std::string& presented) const {
  const std::string expected = token_for(ns, name, run_uid);
  if (presented.size() != expected.size()) return false;  // the length is public (always 64)
  return CRYPTO_memcmp(expected.data(), presented.data(), expected.size()) == 0;
}

}  // namespace ods::callback
