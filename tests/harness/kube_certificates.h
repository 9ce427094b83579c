#pragma once
// Test harness: the throw-away PKI of a test Kubernetes control plane, made with the openssl CLI
// (ECDSA P-256 keys, valid for 2 days, nothing kept after the test).
//
//   ca.crt / ca.key                 the CA; kube-apiserver trusts client certificates it signed
//                                   (--client-ca-file) and clients trust the serving certificate
//   serving.crt / serving.key       kube-apiserver's TLS certificate, for 127.0.0.1 and localhost
//                                   (and the extra names asked for)
//   admin.crt / admin.key           a client certificate, CN=ods-test-admin, O=system:masters
//                                   (the group that passes every RBAC check)
//   service-account.key / .pub      the key pair that signs and verifies service-account tokens
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

namespace ods::testing {

struct KubeCertificates {
  std::filesystem::path dir;
  std::filesystem::path ca_cert() const { return dir / "ca.crt"; }
  std::filesystem::path serving_cert() const { return dir / "serving.crt"; }
  std::filesystem::path serving_key() const { return dir / "serving.key"; }
  std::filesystem::path admin_cert() const { return dir / "admin.crt"; }
  std::filesystem::path admin_key() const { return dir / "admin.key"; }
  std::filesystem::path service_account_key() const { return dir / "service-account.key"; }
  std::filesystem::path service_account_public_key() const { return dir / "service-account.pub"; }
};

// Writes every file above into `dir` (which must exist); `extra_serving_names` are more
// subjectAltName entries of the serving certificate ("IP:10.0.0.1", "DNS:kubernetes"). On failure
// returns the openssl command that failed with its output.
[[nodiscard]] std::expected<KubeCertificates, std::string> make_kube_certificates(
    const std::filesystem::path& dir, const std::vector<std::string>& extra_serving_names = {});

}  // namespace ods::testing
