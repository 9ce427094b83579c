#include "harness/kube_certificates.h"

#include <vector>

#include "harness/dbt_project.h"  // run_process

namespace ods::testing {

namespace {

std::expected<void, std::string> openssl(const std::filesystem::path& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "openssl");
  ProcessResult r = run_process(args, dir);
  if (r.exit_code == 0) return {};
  std::string command;
  for (const auto& a : args) command += (command.empty() ? "" : " ") + a;
  return std::unexpected("make_kube_certificates: `" + command + "` failed (exit code " + std::to_string(r.exit_code) +
                         "): " + r.errors + r.output);
}

const std::vector<std::string> kNewKey = {"-newkey", "ec",    "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                          "-nodes",  "-days", "2"};

// A certificate signed by the CA: `openssl req -x509 -CA` (OpenSSL 3) with the given subject
// and extensions.
std::expected<void, std::string> signed_certificate(const std::filesystem::path& dir, const std::string& name,
                                                    const std::string& subject,
                                                    const std::vector<std::string>& extensions) {
  std::vector<std::string> args = {"req",     "-x509",       "-CA",  "ca.crt",      "-CAkey", "ca.key",
                                   "-keyout", name + ".key", "-out", name + ".crt", "-subj",  subject};
  args.insert(args.end(), kNewKey.begin(), kNewKey.end());
  for (const auto& e : extensions) {
    args.push_back("-addext");
    args.push_back(e);
  }
  return openssl(dir, args);
}

}  // namespace

std::expected<KubeCertificates, std::string> make_kube_certificates(
    const std::filesystem::path& dir, const std::vector<std::string>& extra_serving_names) {
  std::string serving_names = "IP:127.0.0.1,DNS:localhost";
  for (const auto& name : extra_serving_names) serving_names += "," + name;
  std::vector<std::string> ca = {"req",     "-x509",
                                 "-keyout", "ca.key",
                                 "-out",    "ca.crt",
                                 "-subj",   "/CN=ods-test-ca",
                                 "-addext", "basicConstraints=critical,CA:TRUE",
                                 "-addext", "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"};
  ca.insert(ca.end(), kNewKey.begin(), kNewKey.end());
  if (auto r = openssl(dir, ca); !r) return std::unexpected(r.error());
  if (auto r =
          signed_certificate(dir, "serving", "/CN=kube-apiserver",
                             {"subjectAltName=" + serving_names, "basicConstraints=critical,CA:FALSE",
                              "keyUsage=critical,digitalSignature,keyEncipherment", "extendedKeyUsage=serverAuth"});
      !r)
    return std::unexpected(r.error());
  if (auto r =
          signed_certificate(dir, "admin", "/O=system:masters/CN=ods-test-admin",
                             {"basicConstraints=critical,CA:FALSE",
                              "keyUsage=critical,digitalSignature,keyEncipherment", "extendedKeyUsage=clientAuth"});
      !r)
    return std::unexpected(r.error());
  if (auto r = openssl(
          dir, {"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "service-account.key"});
      !r)
    return std::unexpected(r.error());
  if (auto r = openssl(dir, {"pkey", "-in", "service-account.key", "-pubout", "-out", "service-account.pub"}); !r)
    return std::unexpected(r.error());
  return KubeCertificates{dir};
}

}  // namespace ods::testing
