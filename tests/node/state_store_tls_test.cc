// The state store over TLS with sslmode=verify-full, on the real node (node_world.h), following
// docs/kubernetes.md "A CA for the state store" as written: the in-cluster PostgreSQL serves TLS
// with a certificate for its Service's DNS name signed by a CA this test makes; the CA goes into
// Secret pg-ca in ods-system and the state Secret's DSN says `sslmode=verify-full
// sslrootcert=/etc/ods/pg-ca/ca.crt`.
//   - The chart installed without the CA mounted: the operator does not start and its log says
//     why (it cannot open the state store: the root certificate file does not exist).
//   - `helm upgrade` with the doc's extraVolumes/extraVolumeMounts/extraEnv: both replicas
//     become ready, examples/shop's first run Succeeds and is recorded in the store, and the
//     operator's connections to database `ods` are TLS ones (pg_stat_ssl).
// The release is uninstalled afterwards and the plain state Secret put back, so that the other
// suites' ensure_operator_installed() installs the usual operator. PostgreSQL keeps TLS on: the
// other clients use sslmode=disable or prefer, which still work.
// Shard `node`; runs as root, serially.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>

#include "harness/kube_certificates.h"
#include "node_world.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kNamespace = "tls-shop";
constexpr const char* kDataDir = "/var/lib/postgresql/data";

// The doc's values, verbatim (docs/kubernetes.md, "A CA for the state store").
constexpr const char* kCaValues =
    "extraVolumes: [{name: pg-ca, secret: {secretName: pg-ca}}]\n"
    "extraVolumeMounts: [{name: pg-ca, mountPath: /etc/ods/pg-ca, readOnly: true}]\n"
    "extraEnv: [{name: PGSSLROOTCERT, value: /etc/ods/pg-ca/ca.crt}]\n";

class StateStoreTls : public NodeWorldTest {
 protected:
  void TearDown() override {
    if (!shared_world()) return;
    (void)w().kubectl({"delete", "namespace", kNamespace, "--wait=false"});
    (void)w().helm({"uninstall", "ods", "-n", "ods-system", "--wait", "--timeout", "3m"});
    (void)w().kubectl({"delete", "secret", "pg-ca", "-n", "ods-system", "--ignore-not-found"});
    auto restored = create_operator_namespace(w());  // the plain DSN again
    EXPECT_TRUE(restored) << restored.error();
  }

  // Writes `content` into the PostgreSQL pod's data directory as `name`, readable by its owner only.
  void write_into_postgres(const std::string& name, const std::string& content) {
    ProcessResult r =
        w().kubectl({"exec", "-n", "databases", "postgres-0", "--", "sh", "-c",
                     "umask 077; printf '%s' \"$1\" > \"$2\"", "sh", content, std::string(kDataDir) + "/" + name});
    ASSERT_EQ(r.exit_code, 0) << r.errors;
  }
  void postgres_sql(const std::string& sql) {
    ProcessResult r = w().psql("postgres", sql);
    ASSERT_EQ(r.exit_code, 0) << sql << ": " << r.errors;
  }
  std::string operator_logs() {
    std::string logs;
    for (const char* previous : {"--previous=false", "--previous=true"}) {
      logs +=
          w().kubectl({"logs", "-n", "ods-system", "-l", "app.kubernetes.io/name=ods", "--tail=20", previous}).output;
    }
    return logs;
  }
};

TEST_F(StateStoreTls, VerifyFullWorksWithTheCaMountedAsTheDocSaysAndFailsClearlyWithout) {
  // No other operator may act on the projects meanwhile.
  (void)w().helm({"uninstall", "ods", "-n", "ods-system", "--wait", "--timeout", "3m"});

  // PostgreSQL serves TLS with a certificate for the Service's names, signed by a fresh CA.
  const fs::path pki = w().dir() / "pg-tls";
  fs::create_directories(pki);
  auto certificates = make_kube_certificates(
      pki, {"DNS:" + std::string(kWarehouseHost), "DNS:postgres.databases.svc", "DNS:postgres.databases"});
  ASSERT_TRUE(certificates) << certificates.error();
  write_into_postgres("server.crt", read_text(certificates->serving_cert()));
  write_into_postgres("server.key", read_text(certificates->serving_key()));
  postgres_sql(std::string("alter system set ssl_cert_file = '") + kDataDir + "/server.crt'");
  postgres_sql(std::string("alter system set ssl_key_file = '") + kDataDir + "/server.key'");
  postgres_sql("alter system set ssl = on");
  postgres_sql("select pg_reload_conf()");
  ASSERT_TRUE(NodeWorld::wait(30s, [&] { return w().psql("postgres", "show ssl").output == "on\n"; }))
      << w().kubectl({"logs", "-n", "databases", "postgres-0", "--tail=20"}).output;

  // The platform team's Secrets: the CA, and a DSN that verifies the server's name against it.
  ASSERT_TRUE(create_operator_namespace(w()));
  const fs::path ca = pki / "ca.crt";
  ASSERT_EQ(w().kubectl({"delete", "secret", "ods-state", "-n", "ods-system"}).exit_code, 0);
  const std::string dsn = std::string("host=") + kWarehouseHost +
                          " port=5432 dbname=ods user=postgres password=" + w().postgres_password() +
                          " sslmode=verify-full sslrootcert=/etc/ods/pg-ca/ca.crt connect_timeout=10";
  ProcessResult state =
      w().kubectl({"create", "secret", "generic", "ods-state", "-n", "ods-system", "--from-literal=dsn=" + dsn});
  ASSERT_EQ(state.exit_code, 0) << state.errors;
  (void)w().kubectl({"delete", "secret", "pg-ca", "-n", "ods-system", "--ignore-not-found"});
  ProcessResult ca_secret =
      w().kubectl({"-n", "ods-system", "create", "secret", "generic", "pg-ca", "--from-file=ca.crt=" + ca.string()});
  ASSERT_EQ(ca_secret.exit_code, 0) << ca_secret.errors;

  const std::vector<std::string> images = w().chart_image_values();

  // Without the CA mounted: the operator cannot verify the server and says so.
  std::vector<std::string> install{"install", "ods", "helm/ods", "-n", "ods-system"};
  install.insert(install.end(), images.begin(), images.end());
  ProcessResult installed = w().helm(install);
  ASSERT_EQ(installed.exit_code, 0) << installed.output << installed.errors;
  std::string logs;
  EXPECT_TRUE(NodeWorld::wait(180s,
                              [&] {
                                logs = operator_logs();
                                return logs.find("cannot open the PostgreSQL state store") != std::string::npos &&
                                       logs.find("/etc/ods/pg-ca/ca.crt") != std::string::npos;
                              }))
      << logs << w().diagnostics("ods-system");
  std::cout << "state store TLS: the operator without the CA says:\n" << logs << std::endl;
  EXPECT_EQ(logs.find(w().postgres_password()), std::string::npos) << "the log shows the DSN's password";
  EXPECT_NE(w().jsonpath({"deployment", "ods", "-n", "ods-system"}, "{.status.readyReplicas}"), "2");

  // With the doc's values: ready, and a run Succeeds, recorded through TLS.
  const fs::path values = w().dir() / "pg-ca-values.yaml";
  std::ofstream(values, std::ios::trunc) << kCaValues;
  std::vector<std::string> upgrade{"upgrade", "ods",       "helm/ods", "-n", "ods-system",
                                   "--wait",  "--timeout", "5m",       "-f", values.string()};
  upgrade.insert(upgrade.end(), images.begin(), images.end());
  ProcessResult upgraded = w().helm(upgrade);
  ASSERT_EQ(upgraded.exit_code, 0) << upgraded.output << upgraded.errors << w().diagnostics("ods-system");
  ASSERT_TRUE(NodeWorld::wait(180s, [&] {
    return w().jsonpath({"deployment", "ods", "-n", "ods-system"}, "{.status.readyReplicas}") == "2";
  })) << w().diagnostics("ods-system");

  auto secrets = create_shop_secrets(w(), kNamespace);
  ASSERT_TRUE(secrets) << secrets.error();
  ASSERT_EQ(w().apply(shop_project(w(), "shop"), kNamespace).exit_code, 0);
  std::vector<std::string> runs;
  ASSERT_TRUE(NodeWorld::wait(120s, [&] { return !(runs = w().runs_of(kNamespace, "shop")).empty(); }))
      << w().diagnostics(kNamespace);
  ASSERT_EQ(w().wait_run_finished(kNamespace, runs.front()), "Succeeded") << w().diagnostics(kNamespace);
  const std::string uid = w().jsonpath({"dbtrun", runs.front(), "-n", kNamespace}, "{.metadata.uid}");
  EXPECT_EQ(w().psql("ods", "select count(*) from runs where run_id = '" + uid + "'").output, "1\n");
  ProcessResult tls = w().psql("postgres",
                               "select count(*) filter (where s.ssl) > 0 and count(*) filter (where not s.ssl) = 0 "
                               "from pg_stat_ssl s join pg_stat_activity a using (pid) "
                               "where a.datname = 'ods' and a.client_addr is not null");
  EXPECT_EQ(tls.output, "t\n") << tls.errors
                               << w().psql("postgres",
                                           "select a.client_addr, s.* from pg_stat_ssl s join "
                                           "pg_stat_activity a using (pid) where a.datname = 'ods'")
                                      .output;
}

}  // namespace
}  // namespace ods::testing
