#pragma once
// Reads one value of a Secret through the API: the operator's PostgreSQL DSN and its callback
// key live in Secrets (rule 5: referenced, never stored in a resource or a flag).
#include <string>

#include "ods/base/result.h"
#include "ods/kube/client.h"
#include "operator_options.h"

namespace ods::operator_app {

// The decoded value of `ref.key` in Secret `ref.namespace_name/ref.name`. Errors ("secret"):
// the Secret is missing or unreadable (the API's answer), the key is absent or empty, or its
// data is not base64. The value itself never appears in a message.
[[nodiscard]] Result<std::string> read_secret_value(kube::Client& client, const SecretKeyRef& ref);

// Standard base64 (with padding) decoded; nullopt for anything else.
std::optional<std::string> decode_base64(const std::string& text);

}  // namespace ods::operator_app
