#include "cluster_secrets.h"

#include <array>

namespace ods::operator_app {

std::optional<std::string> decode_base64(const std::string& text) {
  static const std::array<int, 256> kValues = [] {
    std::array<int, 256> v{};
    v.fill(-1);
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < alphabet.size(); ++i) v[static_cast<unsigned char>(alphabet[i])] = static_cast<int>(i);
    return v;
  }();
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int quad[4];
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = text[i + j];
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        quad[j] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;  // data after padding
      quad[j] = kValues[static_cast<unsigned char>(c)];
      if (quad[j] < 0) return std::nullopt;
    }
    const unsigned bits = (quad[0] << 18) | (quad[1] << 12) | (quad[2] << 6) | quad[3];
    out += static_cast<char>((bits >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((bits >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(bits & 0xff);
  }
  return out;
}

Result<std::string> read_secret_value(kube::Client& client, const SecretKeyRef& ref) {
  const std::string where = "Secret " + ref.namespace_name + "/" + ref.name;
  auto secret = client.get(kube::resources::kSecrets, {ref.namespace_name, ref.name});
  if (!secret) return fail("secret", "cannot read " + where + ": " + secret.error().message);
  const auto data = secret->find("data");
  if (data == secret->end() || !data->is_object() || !data->contains(ref.key) || !(*data)[ref.key].is_string()) {
    return fail("secret", where + " has no key '" + ref.key + "'");
  }
  auto value = decode_base64((*data)[ref.key].get<std::string>());
  if (!value) return fail("secret", where + " key '" + ref.key + "' is not base64 data");
  while (!value->empty() && (value->back() == '\n' || value->back() == '\r')) value->pop_back();
  if (value->empty()) return fail("secret", where + " key '" + ref.key + "' is empty");
  return *value;
}

}  // namespace ods::operator_app
