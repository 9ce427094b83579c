#include "harness/secret_search.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <cctype>

#include "harness/dbt_project.h"  // read_text_file

namespace ods::testing {

namespace {

std::string hex_of(std::string_view bytes, const char* digits) {
  std::string out;
  for (unsigned char c : bytes) (out += digits[c >> 4]) += digits[c & 15];
  return out;
}

std::string base64(std::string_view s) {
  std::string out(4 * ((s.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

// The characters of base64 that the bytes of `s` alone decide when `s` starts `offset` (0, 1 or 2)
// bytes into a 3-byte group of a longer text: the same in any text holding `s` at such an offset.
std::string base64_at_offset(std::string_view s, std::size_t offset) {
  const std::string encoded = base64(std::string(offset, '\0') + std::string(s));
  const std::size_t skip = offset == 0 ? 0 : offset + 1;    // the characters holding bits of the bytes before
  const std::size_t decided = 4 * (offset + s.size()) / 3;  // the last one may hold bits of the bytes after
  return decided > skip ? encoded.substr(skip, decided - skip) : "";
}

std::string url_safe(std::string text) {
  for (char& c : text) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return text;
}

std::string percent_encoded(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex_of(std::string_view(reinterpret_cast<const char*>(&c), 1), "0123456789ABCDEF");
    }
  }
  return out;
}

}  // namespace

std::vector<SecretForm> secret_forms(const std::string& name, const std::string& secret) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(secret.data()), secret.size(), digest);
  std::vector<SecretForm> forms{
      {name, secret},
      {"percent-encoded " + name, percent_encoded(secret)},
      {"hex of " + name, hex_of(secret, "0123456789abcdef")},
      {"upper-case hex of " + name, hex_of(secret, "0123456789ABCDEF")},
      {"sha256 of " + name,
       hex_of(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest), "0123456789abcdef")},
  };
  // base64 and base64url at each of the three offsets a secret can have inside an encoded text.
  for (std::size_t offset = 0; offset < 3; ++offset) {
    const std::string at = offset == 0 ? "" : " (at byte offset " + std::to_string(offset) + ")";
    const std::string encoded = base64_at_offset(secret, offset);
    forms.push_back({"base64 of " + name + at, encoded});
    forms.push_back({"base64url of " + name + at, url_safe(encoded)});
  }
  return forms;
}

SecretSearch::SecretSearch(const std::vector<std::pair<std::string, std::string>>& secrets) {
  for (const auto& [name, value] : secrets) {
    for (auto& form : secret_forms(name, value)) forms_.push_back(std::move(form));
  }
}

std::string SecretSearch::find(std::string_view text) const {
  for (const auto& f : forms_) {
    if (text.find(f.text) != std::string_view::npos) return f.label;
  }
  return "";
}

void SecretSearch::expect_clean(const std::string& where, std::string_view text) {
  ++texts_;
  bytes_ += text.size();
  const std::string found = find(text);
  EXPECT_EQ(found, "") << where << " holds the " << found;
}

std::size_t SecretSearch::expect_clean_tree(const std::filesystem::path& dir,
                                            const std::function<bool(const std::filesystem::path&)>& skip) {
  std::size_t files = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    if (skip && skip(it->path())) continue;
    expect_clean(it->path().string(), read_text_file(it->path()));
    ++files;
  }
  EXPECT_FALSE(ec) << "cannot list " << dir << ": " << ec.message();
  return files;
}

}  // namespace ods::testing
