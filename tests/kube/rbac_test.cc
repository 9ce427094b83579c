// The client as a service account (a token from the TokenRequest API): RBAC refuses with 403
// Forbidden until a Role and RoleBinding allow it; a token file that changes is re-read after a 401.
#include <gtest/gtest.h>

#include <fstream>

#include "kube/kube_client_fixture.h"

namespace ods::testing {
namespace {

const kube::Resource kRoles{"rbac.authorization.k8s.io", "v1", "roles"};
const kube::Resource kRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};

class KubeRbacTest : public KubeClientTest {
 protected:
  // A Role allowing `verbs` on ConfigMaps and Leases, bound to the service account.
  static void allow(const std::string& ns, const std::string& account, const std::vector<std::string>& verbs) {
    const Json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                       {"kind", "Role"},
                       {"metadata", {{"name", account}}},
                       {"rules",
                        {{{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", verbs}},
                         {{"apiGroups", {"coordination.k8s.io"}}, {"resources", {"leases"}}, {"verbs", verbs}}}}};
    const Json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                          {"kind", "RoleBinding"},
                          {"metadata", {{"name", account}}},
                          {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", account}}},
                          {"subjects", {{{"kind", "ServiceAccount"}, {"name", account}, {"namespace", ns}}}}};
    auto created_role = client().create(kRoles, ns, role);
    ASSERT_TRUE(created_role) << created_role.error().message;
    auto created_binding = client().create(kRoleBindings, ns, binding);
    ASSERT_TRUE(created_binding) << created_binding.error().message;
  }
};

TEST_F(KubeRbacTest, AServiceAccountIsForbiddenUntilARoleAllowsIt) {
  const std::string ns = make_namespace("rbac");
  auto kubeconfig = plane().service_account_kubeconfig(ns, "operator");
  ASSERT_TRUE(kubeconfig) << kubeconfig.error();
  auto as_operator = client_for(*kubeconfig);
  ASSERT_TRUE(as_operator);

  auto forbidden = as_operator->list(kConfigMaps, ns, {});
  ASSERT_FALSE(forbidden);
  EXPECT_EQ(forbidden.error().status, 403);
  EXPECT_EQ(forbidden.error().reason, "Forbidden");
  EXPECT_NE(forbidden.error().message.find("system:serviceaccount:" + ns + ":operator"), std::string::npos)
      << forbidden.error().message;

  allow(ns, "operator", {"get", "list", "watch", "create"});
  // The authorizer sees the new Role through its own informer: a moment later.
  ASSERT_TRUE(eventually([&] { return as_operator->list(kConfigMaps, ns, {}).has_value(); }))
      << as_operator->list(kConfigMaps, ns, {}).error().message;
  auto created = as_operator->create(kConfigMaps, ns, config_map("mine", "1"));
  ASSERT_TRUE(created) << created.error().message;
  // What the Role does not name stays forbidden: delete, and other namespaces.
  auto removed = as_operator->remove(kConfigMaps, {ns, "mine"});
  ASSERT_FALSE(removed);
  EXPECT_EQ(removed.error().status, 403);
  auto elsewhere = as_operator->list(kConfigMaps, "default", {});
  ASSERT_FALSE(elsewhere);
  EXPECT_EQ(elsewhere.error().status, 403);
}

TEST_F(KubeRbacTest, ATokenFileRewrittenSinceTheLastReadIsReReadAfterA401) {
  const std::string ns = make_namespace("token-file");
  auto account_kubeconfig = plane().service_account_kubeconfig(ns, "reader");
  ASSERT_TRUE(account_kubeconfig) << account_kubeconfig.error();
  auto account = kube::load_kubeconfig(*account_kubeconfig);
  ASSERT_TRUE(account && account->token) << (account ? "no token" : account.error().message);
  allow(ns, "reader", {"get", "list"});

  // A kubeconfig naming a token file that holds an expired (here: a wrong) token.
  const auto token_file = plane().dir() / ("token-" + ns);
  std::ofstream(token_file, std::ios::trunc) << "expired-token\n";
  const auto kubeconfig = plane().dir() / ("token-file-" + ns + ".kubeconfig");
  std::ofstream(kubeconfig, std::ios::trunc)
      << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
      << "clusters:\n- name: k\n  cluster:\n    server: " << plane().server_url()
      << "\n    certificate-authority: " << plane().certificates().ca_cert().string() << "\n"
      << "users:\n- name: u\n  user:\n    tokenFile: " << token_file.string() << "\n"
      << "contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n";
  auto reader = client_for(kubeconfig);
  ASSERT_TRUE(reader);
  auto unauthorized = reader->list(kConfigMaps, ns, {});
  ASSERT_FALSE(unauthorized);
  EXPECT_EQ(unauthorized.error().status, 401);

  // The kubelet rotates the token: the next 401 makes the client read the file again.
  std::ofstream(token_file, std::ios::trunc) << account->token->token() << "\n";
  ASSERT_TRUE(eventually([&] { return reader->list(kConfigMaps, ns, {}).has_value(); }))
      << reader->list(kConfigMaps, ns, {}).error().message;
}

}  // namespace
}  // namespace ods::testing
