#pragma once
// The CA runner pods verify the callback server with (docs/kubernetes.md, "TLS for the
// callback"): the operator reads it at start and passes it to each runner pod as
// $ODS_CALLBACK_CA (a CA certificate is public: a value in the Job, not a Secret).
#include <string>

#include "ods/base/result.h"
#include "operator_options.h"

namespace ods::operator_app {

struct CallbackTrust {
  std::string ca_pem;  // one or more PEM certificates
  std::string file;    // where it was read
};

// With TLS (o.callback_tls_cert set): --callback-tls-ca, else ca.crt in the certificate's folder
// when that file exists and is not empty (a kubernetes.io/tls Secret mounted whole, as
// cert-manager writes it), else the certificate file itself (pods then trust exactly that
// certificate). Errors ("invalid_argument"): the file can't be read or holds no PEM certificate,
// naming it.
[[nodiscard]] Result<CallbackTrust> callback_trust(const OperatorOptions& o);

// Why a runner pod trusting `ca_pem` would refuse the certificate chain in `cert_file` for the
// callback URL's host name, as a sentence; "" when it would accept it.
std::string callback_trust_problem(const std::string& ca_pem, const std::string& cert_file,
                                   const std::string& callback_url);

}  // namespace ods::operator_app
