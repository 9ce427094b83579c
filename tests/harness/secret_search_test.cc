// The secrets search itself (harness/secret_search.h): a secret is found in every form inside
// longer texts, base64 at each byte offset it can start at in the encoded text and whatever
// follows it, so a search that comes back clean means something.
#include "harness/secret_search.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <string>

namespace ods::testing {
namespace {

std::string base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string url_safe(std::string text) {
  for (char& c : text) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return text;
}

TEST(SecretSearch, FindsTheBase64OfASecretInsideALongerEncodedTextAtEveryOffset) {
  const std::string secret = "st8-Secret-9d41e7?>";  // '?' and '>' give '+' and '/' in some encodings
  const SecretSearch search({{"state password", secret}});
  for (std::size_t before = 0; before < 7; ++before) {
    for (std::size_t after = 0; after < 4; ++after) {
      const std::string plain =
          "user=ods password=" + std::string(before, 'x') + secret + std::string(after, 'y') + ";";
      const std::string encoded = base64(plain);
      SCOPED_TRACE("offset " + std::to_string((18 + before) % 3) + ", " + std::to_string(after) + " bytes after");
      EXPECT_NE(search.find(encoded), "") << encoded;
      EXPECT_NE(search.find(url_safe(encoded)), "") << url_safe(encoded);
      EXPECT_NE(search.find("Authorization: Basic " + encoded + "\n"), "");
    }
  }
}

TEST(SecretSearch, FindsEachOtherFormAndNothingInCleanText) {
  const std::string secret = "wh+Secret/c0ffee=";
  const SecretSearch search({{"warehouse password", secret}});
  EXPECT_EQ(search.find("postgresql://ods:" + secret + "@db/x"), "warehouse password");
  EXPECT_EQ(search.find("postgresql://ods:wh%2BSecret%2Fc0ffee%3D@db/x"), "percent-encoded warehouse password");
  EXPECT_EQ(search.find("7768"
                        "2b5365637265742f6330666665653d"),
            "hex of warehouse password");
  EXPECT_EQ(search.find("a log line, a status, a row: nothing of it here"), "");
}

}  // namespace
}  // namespace ods::testing
