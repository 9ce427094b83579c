// load_kubeconfig(): contexts, file and -data variants, tokens, and errors that name the field.
#include <gtest/gtest.h>

#include <fstream>

#include "harness/temp_dir.h"
#include "ods/kube/config.h"
#include "ods/kube/rest_client.h"

namespace ods::kube {
namespace {

namespace fs = std::filesystem;

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write("ca.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    write("admin.crt", "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n");
    write("admin.key", "-----BEGIN PRIVATE KEY-----\nMIID\n-----END PRIVATE KEY-----\n");
  }

  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::trunc) << text;
    return dir_ / name;
  }

  // A kubeconfig with two contexts: "certs" (files, relative paths) and "token" (a token in
  // namespace team-a); `user_extra` is appended to the certs user.
  fs::path kubeconfig(const std::string& current = "certs", const std::string& certs_user = "") {
    return write("config", "apiVersion: v1\nkind: Config\ncurrent-context: " + current +
                               "\nclusters:\n"
                               "- name: local\n  cluster:\n    server: https://127.0.0.1:6443/\n"
                               "    certificate-authority: ca.crt\n"
                               "- name: remote\n  cluster:\n    server: https://k8s.example:443\n"
                               "    certificate-authority-data: " +
                               base64("-----BEGIN CERTIFICATE-----\nMIIE\n-----END CERTIFICATE-----\n") +
                               "\nusers:\n"
                               "- name: admin\n  user:\n" +
                               (certs_user.empty() ? "    client-certificate: admin.crt\n    client-key: admin.key\n"
                                                   : certs_user) +
                               "- name: bot\n  user:\n    token: abc.def\n"
                               "contexts:\n"
                               "- name: certs\n  context:\n    cluster: local\n    user: admin\n"
                               "- name: token\n  context:\n    cluster: remote\n    user: bot\n"
                               "    namespace: team-a\n");
  }

  static std::string base64(const std::string& text) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned bits = 0;
    int count = 0;
    for (unsigned char c : text) {
      bits = (bits << 8) | c;
      count += 8;
      while (count >= 6) {
        count -= 6;
        out.push_back(kAlphabet[(bits >> count) & 0x3F]);
      }
    }
    if (count > 0) out.push_back(kAlphabet[(bits << (6 - count)) & 0x3F]);
    while (out.size() % 4) out.push_back('=');
    return out;
  }

  ods::testing::TempDir temp_{"kubeconfig"};
  const fs::path dir_ = temp_.path();
};

TEST_F(KubeconfigTest, TheCurrentContextWithClientCertificateFilesRelativeToTheKubeconfig) {
  auto config = load_kubeconfig(kubeconfig());
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://127.0.0.1:6443");
  EXPECT_EQ(config->certificate_authority.file, dir_ / "ca.crt");
  EXPECT_TRUE(config->certificate_authority.data.empty());
  EXPECT_EQ(config->client_certificate.file, dir_ / "admin.crt");
  EXPECT_EQ(config->client_key.file, dir_ / "admin.key");
  EXPECT_EQ(config->token, nullptr);
  EXPECT_EQ(config->namespace_name, "default");
  EXPECT_NE(config->origin.find("context certs"), std::string::npos) << config->origin;
}

TEST_F(KubeconfigTest, ANamedContextWithInlineCaDataATokenAndANamespace) {
  auto config = load_kubeconfig(kubeconfig(), "token");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://k8s.example:443");
  EXPECT_EQ(config->certificate_authority.data, "-----BEGIN CERTIFICATE-----\nMIIE\n-----END CERTIFICATE-----\n");
  EXPECT_TRUE(config->certificate_authority.file.empty());
  ASSERT_NE(config->token, nullptr);
  EXPECT_EQ(config->token->token(), "abc.def");
  EXPECT_TRUE(config->client_certificate.empty());
  EXPECT_EQ(config->namespace_name, "team-a");
}

TEST_F(KubeconfigTest, ClientCertificateAndKeyData) {
  const std::string cert = "-----BEGIN CERTIFICATE-----\nMIIF\n-----END CERTIFICATE-----\n";
  const std::string key = "-----BEGIN EC PRIVATE KEY-----\nMIIG\n-----END EC PRIVATE KEY-----\n";
  auto config = load_kubeconfig(kubeconfig(
      "certs", "    client-certificate-data: " + base64(cert) + "\n    client-key-data: " + base64(key) + "\n"));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->client_certificate.data, cert);
  EXPECT_EQ(config->client_key.data, key);
}

TEST_F(KubeconfigTest, ATokenFileIsReadAndResolvedBesideTheKubeconfig) {
  write("token", "from-file\n");
  auto config = load_kubeconfig(kubeconfig("certs", "    tokenFile: token\n"));
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_NE(config->token, nullptr);
  EXPECT_EQ(config->token->token(), "from-file");
  EXPECT_EQ(config->token->file(), dir_ / "token");
}

// Each broken kubeconfig is refused with the file and the field in the message.
TEST_F(KubeconfigTest, ErrorsNameTheFileAndTheField) {
  struct Case {
    std::string context;
    std::string user;
    std::string field;
  };
  const std::vector<Case> cases = {
      {"nowhere", "", "contexts has no entry named nowhere"},
      {"certs", "    client-certificate: admin.crt\n", "users[admin].user.client-key is missing"},
      {"certs", "    client-certificate: missing.crt\n    client-key: admin.key\n",
       "users[admin].user.client-certificate names"},
      {"certs", "    client-certificate-data: '%%%'\n    client-key: admin.key\n",
       "users[admin].user.client-certificate-data is not base64"},
      {"certs", "    client-certificate-data: aGVsbG8=\n    client-key: admin.key\n",
       "users[admin].user.client-certificate-data does not hold PEM data"},
      {"certs", "    exec:\n      command: aws\n", "users[admin].user.exec is not supported"},
      {"certs", "    tokenFile: no-such-token\n", "users[admin].user.tokenFile"},
  };
  for (const Case& c : cases) {
    const fs::path path = kubeconfig(c.context, c.user);
    auto config = load_kubeconfig(path);
    ASSERT_FALSE(config) << c.field;
    EXPECT_EQ(config.error().code, "invalid_kubeconfig");
    EXPECT_NE(config.error().message.find(c.field), std::string::npos) << config.error().message;
    EXPECT_NE(config.error().message.find(path.string()), std::string::npos) << config.error().message;
  }
}

TEST_F(KubeconfigTest, AClusterWithoutServerAndAMissingFileAreRefused) {
  const fs::path no_server =
      write("no-server",
            "current-context: c\nclusters:\n- name: x\n  cluster:\n    insecure-skip-tls-verify: true\n"
            "contexts:\n- name: c\n  context:\n    cluster: x\n");
  auto config = load_kubeconfig(no_server);
  ASSERT_FALSE(config);
  EXPECT_NE(config.error().message.find("clusters[x].cluster.server is missing"), std::string::npos)
      << config.error().message;
  auto missing = load_kubeconfig(dir_ / "nothing-here");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
  auto not_yaml = load_kubeconfig(write("broken", "clusters: [unclosed\n"));
  ASSERT_FALSE(not_yaml);
  EXPECT_NE(not_yaml.error().message.find("YAML"), std::string::npos) << not_yaml.error().message;
}

TEST_F(KubeconfigTest, MakeClientRefusesPemThatDoesNotLoad) {
  auto config = load_kubeconfig(kubeconfig());  // the fake PEM files are not certificates
  ASSERT_TRUE(config) << config.error().message;
  auto client = make_client(*config);
  ASSERT_FALSE(client);
  EXPECT_EQ(client.error().code, "invalid_tls");
  EXPECT_NE(client.error().message.find("context certs"), std::string::npos) << client.error().message;
}

}  // namespace
}  // namespace ods::kube
