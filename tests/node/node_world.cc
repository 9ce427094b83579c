#include "node_world.h"

#include <fstream>
#include <sstream>
#include <thread>

#include "harness/source_paths.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kGitUser = "ods-node";
constexpr const char* kGitPassword = "node-Git-Pw-0c3b9e";

// examples/shop as a team's repository holds it (no build outputs), under examples/shop/.
std::map<std::string, std::string> shop_repository_files() {
  std::map<std::string, std::string> files;
  const fs::path shop = source_dir() / "examples" / "shop";
  for (auto it = fs::recursive_directory_iterator(shop); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() &&
        (name == "target" || name == "logs" || name == "dbt_packages" || name == ".ods" || name == "__pycache__")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || name.ends_with(".duckdb") || name.ends_with(".wal")) continue;
    files["examples/shop/" + fs::relative(it->path(), shop).string()] = read_text(it->path());
  }
  files["examples/shop/models/node_test_slow.sql"] =
      "-- Only in the real node's test repository (tests/node/node_world.h): takes\n"
      "-- $ODS_TEST_SLOW_SECONDS to build, so that a run stays in flight.\n"
      "{{ config(materialized='table') }}\n"
      "select 1 as one from pg_sleep({{ env_var('ODS_TEST_SLOW_SECONDS', '0') }})\n";
  // examples/shop_steady: examples/shop as it is (without node_test_slow, which compiles and builds
  // every run), for runs where nothing changes (pod_fast_path_test.cc).
  std::map<std::string, std::string> steady;
  for (const auto& [path, text] : files)
    if (!path.ends_with("node_test_slow.sql"))
      steady["examples/shop_steady/" + path.substr(std::string("examples/shop/").size())] = text;
  // examples/shop_packaged: the same project declaring a package of this repository (helpers/,
  // fetched by dbt deps from $SHOP_HELPERS_GIT), for the packages cache (packages_cache_test.cc).
  std::map<std::string, std::string> packaged;
  for (const auto& [path, text] : files)
    packaged["examples/shop_packaged/" + path.substr(std::string("examples/shop/").size())] = text;
  files.merge(packaged);
  files.merge(steady);
  files["examples/shop_packaged/packages.yml"] =
      "packages:\n  - git: \"{{ env_var('SHOP_HELPERS_GIT') }}\"\n    revision: main\n    subdirectory: helpers\n";
  files["helpers/dbt_project.yml"] = "name: shop_helpers\nversion: '1.0.0'\nconfig-version: 2\n";
  files["helpers/macros/forty_two.sql"] = "{% macro forty_two() %}42{% endmacro %}\n";
  return files;
}

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += prefix + line + "\n";
  return out;
}

}  // namespace

std::expected<std::unique_ptr<NodeWorld>, std::string> NodeWorld::start() {
  std::unique_ptr<NodeWorld> world(new NodeWorld());
  auto address = host_address();
  if (!address) return std::unexpected("host address: " + address.error());
  KubeControlPlane::Options options;
  options.node_ip = *address;
  auto plane = KubeControlPlane::start(options);
  if (!plane) return std::unexpected("control plane: " + plane.error());
  world->plane_ = std::move(*plane);
  auto node = KubeNode::start(*world->plane_);
  if (!node) return std::unexpected("node: " + node.error());
  world->node_ = std::move(*node);
  world->dir_ = world->node_->dir() / "world";
  fs::create_directories(world->dir_);
  auto helm = helm_binary();
  if (!helm) return std::unexpected(helm.error());
  world->helm_ = *helm;
  if (auto r = world->import_images(); !r) return std::unexpected(r.error());
  if (auto r = world->start_postgres(); !r) return std::unexpected(r.error());
  if (auto r = world->start_git_server(); !r) return std::unexpected(r.error());
  return world;
}

NodeWorld::~NodeWorld() {
  node_.reset();
  plane_.reset();
}

std::expected<void, std::string> NodeWorld::import_images() {
  for (const char* variable : {"ODS_PROJECT_IMAGES_DIR", "ODS_TEST_POSTGRES_IMAGE_DIR"}) {
    const char* dir = std::getenv(variable);
    if (!dir || !*dir) {
      return std::unexpected(std::string(variable) +
                             " is not set: run through ctest (fixtures node_project_images and "
                             "node_postgres_image), or set it to the --out directory of scripts/images.sh");
    }
    std::ifstream list(fs::path(dir) / "images.txt");
    if (!list) return std::unexpected(std::string("no images.txt in ") + dir);
    for (std::string name, id, archive, digest; list >> name >> id >> archive >> digest;) {
      if (auto imported = node_->import_image(fs::path(dir) / archive); !imported) return imported;
      for (const char* role : {"operator", "runner", "postgres"}) {
        if (name.find(role) != std::string::npos) images_[role] = name;
      }
    }
  }
  if (images_.size() != 3) return std::unexpected("expected the operator, runner and postgres images");
  return {};
}

std::string NodeWorld::operator_repository() const {
  const std::string& name = images_.at("operator");
  return name.substr(0, name.rfind(':'));
}

std::string NodeWorld::operator_tag() const {
  const std::string& name = images_.at("operator");
  return name.substr(name.rfind(':') + 1);
}

std::vector<std::string> NodeWorld::chart_image_values() const {
  const std::string& runner = images_.at("runner");
  return {"--set", "image.operator.repository=" + operator_repository(),
          "--set", "image.operator.tag=" + operator_tag(),
          "--set", "image.operator.pullPolicy=Never",
          "--set", "image.runner.repository=" + runner.substr(0, runner.rfind(':')),
          "--set", "image.runner.tag=" + runner.substr(runner.rfind(':') + 1)};
}

std::string NodeWorld::cluster_dsn(const std::string& database) const {
  return std::string("host=") + kWarehouseHost + " port=5432 dbname=" + database +
         " user=postgres password=" + postgres_password_ + " sslmode=disable connect_timeout=10";
}

std::map<std::string, std::string> NodeWorld::git_secret_data() const {
  return {{"username", kGitUser}, {"password", kGitPassword}, {"ca.crt", read_text(git_.certificate())}};
}

std::string NodeWorld::git_url_with_credentials() const {
  const std::string url = git_.url();
  const auto scheme = url.find("://");
  return url.substr(0, scheme + 3) + kGitUser + ":" + kGitPassword + "@" + url.substr(scheme + 3);
}

std::expected<void, std::string> NodeWorld::start_postgres() {
  const std::string manifest =
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: databases}\n---\n"
      "apiVersion: v1\nkind: Secret\nmetadata: {name: postgres-superuser, namespace: databases}\n"
      "stringData: {password: \"" +
      postgres_password_ +
      "\"}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: postgres, namespace: databases}\n"
      "spec:\n  selector: {app: postgres}\n  ports: [{name: postgres, port: 5432, targetPort: 5432}]\n---\n"
      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: postgres, namespace: databases}\n"
      "spec:\n  serviceName: postgres\n  replicas: 1\n  selector: {matchLabels: {app: postgres}}\n"
      "  template:\n    metadata: {labels: {app: postgres}}\n    spec:\n"
      "      securityContext: {runAsUser: 999, runAsGroup: 999, fsGroup: 999}\n"
      "      terminationGracePeriodSeconds: 5\n"
      "      containers:\n      - name: postgres\n        image: " +
      images_.at("postgres") +
      "\n        imagePullPolicy: Never\n"
      "        env:\n        - {name: POSTGRES_DATABASES, value: \"ods shop\"}\n"
      "        - name: POSTGRES_PASSWORD\n          valueFrom: {secretKeyRef: {name: postgres-superuser, key: "
      "password}}\n"
      "        ports: [{containerPort: 5432, name: postgres}]\n"
      "        readinessProbe:\n          exec: {command: [/usr/lib/postgresql/15/bin/pg_isready, -h, 127.0.0.1]}\n"
      "          periodSeconds: 2\n"
      "        volumeMounts: [{name: data, mountPath: /var/lib/postgresql/data}]\n"
      "      volumes: [{name: data, emptyDir: {}}]\n";
  if (ProcessResult r = apply(manifest); r.exit_code != 0) return std::unexpected("postgres: " + r.errors);
  if (!wait(240s, [&] {
        return jsonpath({"statefulset", "postgres", "-n", "databases"}, "{.status.readyReplicas}") == "1";
      })) {
    return std::unexpected("postgres did not become ready:\n" + diagnostics("databases"));
  }
  postgres_pod_ip_ = jsonpath({"pod", "postgres-0", "-n", "databases"}, "{.status.podIP}");
  // The warehouse's raw tables, written from the host to the pod's address.
  if (ProcessResult r = generate_shop_data({}); r.exit_code != 0) {
    return std::unexpected("generate_data.py --postgres: " + r.output + r.errors);
  }
  return {};
}

std::expected<void, std::string> NodeWorld::start_git_server() {
  return git_.start({.dir = dir_ / "git",
                     .name = "shop",
                     .files = shop_repository_files(),
                     .basic_credential = std::string(kGitUser) + ":" + kGitPassword,
                     .bearer_token = {}},
                    node_->ip());
}

ProcessResult NodeWorld::apply(const std::string& manifest, const std::string& namespace_name) const {
  static int count = 0;
  const fs::path file = dir_ / ("manifest-" + std::to_string(++count) + ".yaml");
  std::ofstream(file, std::ios::trunc) << manifest;
  std::vector<std::string> args{"apply", "-f", file.string()};
  if (!namespace_name.empty()) args.insert(args.end(), {"-n", namespace_name});
  return kubectl(args);
}

std::string NodeWorld::jsonpath(const std::vector<std::string>& what, const std::string& path) const {
  std::vector<std::string> args{"get"};
  args.insert(args.end(), what.begin(), what.end());
  args.insert(args.end(), {"-o", "jsonpath=" + path});
  ProcessResult r = kubectl(args);
  return r.exit_code == 0 ? r.output : "";
}

ProcessResult NodeWorld::helm(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{helm_.string(), "--kubeconfig", plane_->kubeconfig().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(
      argv, source_dir(),
      {"HELM_CACHE_HOME=" + (dir_ / "helm-cache").string(), "HELM_CONFIG_HOME=" + (dir_ / "helm-config").string(),
       "HELM_DATA_HOME=" + (dir_ / "helm-data").string()});
}

ProcessResult NodeWorld::psql(const std::string& database, const std::string& sql) const {
  return kubectl({"exec", "-n", "databases", "postgres-0", "--", "/usr/lib/postgresql/15/bin/psql", "-h", "/tmp", "-U",
                  "postgres", "-d", database, "-tAc", sql});
}

ProcessResult NodeWorld::generate_shop_data(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{
      (source_dir() / ".venv" / "bin" / "python").string(),
      (source_dir() / "examples" / "shop" / "scripts" / "generate_data.py").string(), "--postgres",
      "host=" + postgres_pod_ip_ + " port=5432 dbname=shop user=postgres password=" + postgres_password_};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, dir_);
}

bool NodeWorld::wait(std::chrono::seconds limit, const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return condition();
    std::this_thread::sleep_for(1s);
  }
}

std::string NodeWorld::run_phase(const std::string& namespace_name, const std::string& name) const {
  return jsonpath({"dbtrun", name, "-n", namespace_name}, "{.status.phase}");
}

std::string NodeWorld::wait_run_finished(const std::string& namespace_name, const std::string& name,
                                         std::chrono::seconds limit) const {
  std::string phase;
  (void)wait(limit, [&] {
    phase = run_phase(namespace_name, name);
    return phase == "Succeeded" || phase == "Failed";
  });
  return phase;
}

std::vector<std::string> NodeWorld::runs_of(const std::string& namespace_name, const std::string& project) const {
  std::vector<std::string> names;
  std::istringstream in(jsonpath(
      {"dbtruns", "-n", namespace_name, "-l", "ods.dev/project=" + project, "--sort-by=.metadata.creationTimestamp"},
      "{range .items[*]}{.metadata.name}{\"\\n\"}{end}"));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) names.push_back(line);
  }
  return names;
}

std::string NodeWorld::diagnostics(const std::string& namespace_name) const {
  std::string out = "--- dbtruns\n" + kubectl({"describe", "dbtruns", "-n", namespace_name}).output;
  out += "--- pods of " + namespace_name + "\n" + kubectl({"describe", "pods", "-n", namespace_name}).output;
  out += "--- pods of ods-system\n" + kubectl({"get", "pods", "-n", "ods-system", "-o", "wide"}).output;
  out +=
      "--- operator logs\n" +
      indent(kubectl({"logs", "-n", "ods-system", "-l", "app.kubernetes.io/name=ods", "--tail=40", "--prefix"}).output,
             "  ");
  return out + "--- node\n" + node_->logs_tail();
}

namespace {

// Creates (or replaces) generic Secret `name` in `namespace_name` with `args` (--from-literal=…,
// --from-file=…).
std::expected<void, std::string> replace_secret(NodeWorld& world, const std::string& namespace_name,
                                                const std::string& name, const std::vector<std::string>& args) {
  (void)world.kubectl({"delete", "secret", name, "-n", namespace_name, "--ignore-not-found"});
  std::vector<std::string> argv{"create", "secret", "generic", name, "-n", namespace_name};
  argv.insert(argv.end(), args.begin(), args.end());
  if (ProcessResult r = world.kubectl(argv); r.exit_code != 0) {
    return std::unexpected("secret " + namespace_name + "/" + name + ": " + r.errors);
  }
  return {};
}

std::expected<void, std::string> ensure_namespace(NodeWorld& world, const std::string& name) {
  if (world.kubectl({"get", "namespace", name}).exit_code == 0) return {};
  if (ProcessResult r = world.kubectl({"create", "namespace", name}); r.exit_code != 0) {
    return std::unexpected("namespace " + name + ": " + r.errors);
  }
  return {};
}

}  // namespace

std::expected<void, std::string> create_operator_namespace(NodeWorld& world) {
  if (auto r = ensure_namespace(world, "ods-system"); !r) return r;
  if (auto r = replace_secret(world, "ods-system", "ods-state", {"--from-literal=dsn=" + world.cluster_dsn("ods")}); !r)
    return r;
  return replace_secret(world, "ods-system", "ods-callback-key",
                        {"--from-literal=key=node-callback-key-0123456789abcdef0123"});
}

std::expected<void, std::string> ensure_operator_installed(NodeWorld& world) {
  if (world.helm({"status", "ods", "-n", "ods-system"}).exit_code == 0) return {};
  if (auto r = create_operator_namespace(world); !r) return r;
  std::vector<std::string> install{"install", "ods", "helm/ods", "-n", "ods-system", "--wait", "--timeout", "5m"};
  const auto images = world.chart_image_values();
  install.insert(install.end(), images.begin(), images.end());
  ProcessResult installed = world.helm(install);
  if (installed.exit_code != 0) return std::unexpected("helm install: " + installed.output + installed.errors);
  return {};
}

std::expected<void, std::string> create_shop_secrets(NodeWorld& world, const std::string& namespace_name) {
  if (auto r = ensure_namespace(world, namespace_name); !r) return r;
  const fs::path profiles = world.dir() / ("profiles-" + namespace_name) / "profiles.yml";
  fs::create_directories(profiles.parent_path());
  std::ofstream(profiles, std::ios::trunc)
      << "shop:\n  target: pg\n  outputs:\n    pg: {type: postgres, host: " << kWarehouseHost
      << ", port: 5432, user: postgres, password: \"" << world.postgres_password()
      << "\", dbname: shop, schema: main, threads: 2}\n";
  if (auto r = replace_secret(world, namespace_name, "shop-dbt-profile", {"--from-file=" + profiles.string()}); !r)
    return r;
  if (auto r = replace_secret(world, namespace_name, "shop-digest-key",
                              {"--from-literal=digest-key=node-shop-digest-key-0123456789"});
      !r)
    return r;
  const auto git = world.git_secret_data();
  const fs::path ca = world.dir() / "git-ca.crt";
  std::ofstream(ca, std::ios::trunc) << git.at("ca.crt");
  return replace_secret(world, namespace_name, "shop-git",
                        {"--from-literal=username=" + git.at("username"),
                         "--from-literal=password=" + git.at("password"), "--from-file=ca.crt=" + ca.string()});
}

std::string shop_project(NodeWorld& world, const std::string& name, const std::string& extra_spec,
                         const std::string& resources, const ShopProjectOptions& options) {
  const std::string& profile_secret = options.profile;
  const std::string& digest_secret = options.digest_key;
  auto variables = options.env;
  if (options.slow_seconds > 0) variables.emplace_back("ODS_TEST_SLOW_SECONDS", std::to_string(options.slow_seconds));
  std::string env;
  for (const auto& [variable, value] : variables)
    env += (env.empty() ? "" : ", ") + std::string("{name: ") + variable + ", value: \"" + value + "\"}";
  if (!env.empty()) env = "    env: [" + env + "]\n";
  return "apiVersion: ods.dev/v1alpha1\nkind: DbtProject\nmetadata: {name: " + name +
         "}\nspec:\n  source:\n    git: {url: \"" + world.git_url() + "\", revision: main, path: " + options.path +
         ", secretRef: {name: shop-git}}\n  image: " + world.image("runner") +
         "\n  profileSecretRef: {name: " + profile_secret + "}\n  digestKeySecretRef: {name: " + digest_secret +
         "}\n  target: pg\n  schedule: \"0 6 * * *\"\n"
         "  runnerPodTemplate:\n    resources: " +
         resources + "\n" + env + extra_spec;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void NodeWorldTest::SetUp() {
  if (!shared_world()) GTEST_FAIL() << "the node world did not start: " << world_start_error();
}

void InstalledOperatorTest::SetUp() {
  NodeWorldTest::SetUp();
  if (HasFatalFailure()) return;
  auto installed = ensure_operator_installed(w());
  ASSERT_TRUE(installed) << installed.error();
}

void HostPathCacheTest::TearDown() {
  if (!shared_world()) return;
  (void)w().kubectl({"delete", "namespace", ns_, "--wait=false"});
  (void)w().helm({"upgrade", "ods", "helm/ods", "-n", "ods-system", "--reuse-values", "--wait", "--timeout", "5m",
                  "--set", "runner.packagesCache.hostPath="});
}

fs::path HostPathCacheTest::use_host_path_cache(const std::string& folder) {
  const fs::path cache = w().dir() / folder;
  fs::create_directories(cache);
  fs::permissions(cache, fs::perms::all | fs::perms::sticky_bit);
  ProcessResult upgraded = w().helm({"upgrade", "ods", "helm/ods", "-n", "ods-system", "--reuse-values", "--wait",
                                     "--timeout", "5m", "--set", "runner.packagesCache.hostPath=" + cache.string()});
  EXPECT_EQ(upgraded.exit_code, 0) << upgraded.output << upgraded.errors << w().diagnostics("ods-system");
  return cache;
}

std::string HostPathCacheTest::pod_log(const std::string& run) {
  return w().kubectl({"logs", "-n", ns_, "-l", "ods.dev/run=" + run, "--tail=-1"}).output;
}

}  // namespace ods::testing
