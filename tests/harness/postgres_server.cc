#include "harness/postgres_server.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>
#include <thread>

#include "harness/background_process.h"  // file_tail
#include "harness/loopback_port.h"
#include "harness/process_tree.h"
#include "harness/temp_dir.h"

namespace ods::testing {

namespace fs = std::filesystem;

namespace {

// initdb and postgres refuse to run as root; as root they run as this Debian system user.
constexpr const char* kServerOsUser = "postgres";
constexpr int kPortAttempts = 10;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_root() { return ::geteuid() == 0; }

std::string describe(const ProcessResult& r) {
  std::string text = "exit code " + std::to_string(r.exit_code);
  if (!r.output.empty()) text += "\nstdout:\n" + r.output;
  if (!r.errors.empty()) text += "\nstderr:\n" + r.errors;
  return text;
}

// A new, empty directory under $TMPDIR/ods-tests, traversable by the server's OS user.
fs::path fresh_server_dir() {
  fs::path dir = ods::testing::fresh_test_dir("pg");
  std::error_code ec;
  fs::permissions(dir.parent_path(), fs::perms::others_exec | fs::perms::group_exec, fs::perm_options::add, ec);
  return dir;
}

std::string quoted_identifier(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

fs::path postgres_bin_dir() {
  if (const char* env = std::getenv("ODS_PG_BIN"); env && *env) return env;
  fs::path best;
  int best_version = -1;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    if (!fs::exists(e.path() / "bin" / "initdb", ec)) continue;
    if (int v = std::stoi(name); v > best_version) {
      best_version = v;
      best = e.path() / "bin";
    }
  }
  return best;
}

PostgresServer::PostgresServer(Options options, fs::path dir) : options_(std::move(options)), dir_(std::move(dir)) {}

std::expected<std::unique_ptr<PostgresServer>, std::string> PostgresServer::start(Options options) {
  fs::path bin = postgres_bin_dir();
  if (bin.empty())
    return std::unexpected(
        "PostgresServer: no server binaries (no /usr/lib/postgresql/<version>/bin/initdb, ODS_PG_BIN unset); "
        "run scripts/setup.sh (Debian package `postgresql`)");
  if (options.user.empty() || options.database.empty())
    return std::unexpected("PostgresServer: user and database must not be empty");
  std::unique_ptr<PostgresServer> server(new PostgresServer(std::move(options), fresh_server_dir()));
  server->bin_dir_ = std::move(bin);
  if (auto r = server->init_cluster(); !r) return std::unexpected(r.error());

  std::string last_error;
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    auto port = free_loopback_port();
    if (!port) return std::unexpected("PostgresServer: " + port.error());
    server->port_ = *port;
    bool port_race = false;
    auto started = server->start_on_port(port_race);
    if (started) break;
    if (!port_race) return std::unexpected(started.error());
    last_error = started.error();  // someone took the port between bind and postgres: next one
  }
  if (!server->running_)
    return std::unexpected("PostgresServer: no free port after " + std::to_string(kPortAttempts) +
                           " attempts; last error: " + last_error);

  if (server->options_.database != "postgres") {
    ProcessResult r = server->psql("create database " + quoted_identifier(server->options_.database), "postgres");
    if (r.exit_code != 0)
      return std::unexpected("PostgresServer: create database " + server->options_.database +
                             " failed: " + describe(r) + "\nserver log tail:\n" + server->log_tail());
  }
  return server;
}

PostgresServer::~PostgresServer() {
  if (running_) {
    if (!stop()) run_server_binary("pg_ctl", {"stop", "-D", (dir_ / "data").string(), "-m", "immediate", "-w"});
  }
  if (dir_.empty() || std::getenv("ODS_KEEP_TEST_DIRS")) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string PostgresServer::dsn() const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " user=" + options_.user + " dbname=" + options_.database;
}

std::vector<std::string> PostgresServer::libpq_env() const {
  return {"PGHOST=127.0.0.1", "PGPORT=" + std::to_string(port_), "PGUSER=" + options_.user,
          "PGDATABASE=" + options_.database};
}

ProcessResult PostgresServer::run_server_binary(const std::string& binary, const std::vector<std::string>& args) const {
  std::vector<std::string> argv;
  if (is_root()) argv = {"runuser", "-u", kServerOsUser, "--"};
  argv.push_back((bin_dir_ / binary).string());
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, dir_, {"LC_ALL=C", "LANG=C"});
}

std::expected<void, std::string> PostgresServer::init_cluster() {
  if (is_root()) {
    const passwd* pw = ::getpwnam(kServerOsUser);
    if (!pw)
      return std::unexpected(std::string("PostgresServer: running as root, but initdb and postgres refuse root and "
                                         "there is no `") +
                             kServerOsUser + "` system user to run them as (Debian's postgresql package creates it)");
    if (::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0)
      return std::unexpected("PostgresServer: chown " + dir_.string() + ": " + std::strerror(errno));
  }
  fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::replace);

  ProcessResult r = run_server_binary("initdb", {"-D", (dir_ / "data").string(), "-U", options_.user, "--auth=trust",
                                                 "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"});
  if (r.exit_code != 0) return std::unexpected("PostgresServer: initdb failed: " + describe(r));

  // Appending keeps the files' owner (the server's OS user).
  std::ofstream hba(dir_ / "data" / "pg_hba.conf", std::ios::trunc);
  hba << "# ODS test server: trust, on the private unix socket and 127.0.0.1 only.\n"
         "local all all trust\n"
         "host  all all 127.0.0.1/32 trust\n";
  std::ofstream conf(dir_ / "data" / "postgresql.conf", std::ios::app);
  conf << "\n# ODS test server (tests/harness/postgres_server.cc); the port is given on the command line.\n"
       << "listen_addresses = '127.0.0.1'\n"
       << "unix_socket_directories = '" << dir_.string() << "'\n"
       << "fsync = off\nsynchronous_commit = " << (options_.durable_commits ? "on" : "off")
       << "\nfull_page_writes = off\n"
       << "max_connections = 50\nshared_buffers = 32MB\n";
  if (!hba || !conf) return std::unexpected("PostgresServer: cannot write the configuration in " + dir_.string());
  return {};
}

std::expected<void, std::string> PostgresServer::start_on_port(bool& port_race) {
  port_race = false;
  const fs::path log = dir_ / "server.log";
  std::error_code ec;
  const auto log_size_before = fs::exists(log, ec) ? fs::file_size(log, ec) : 0;
  ProcessResult r = run_server_binary(
      "pg_ctl", {"start", "-D", (dir_ / "data").string(), "-l", log.string(), "-w", "-t",
                 std::to_string(options_.ready_timeout.count()), "-o", "-p " + std::to_string(port_)});
  if (r.exit_code != 0) {
    const std::string new_log = slurp(log).substr(std::min<std::uintmax_t>(log_size_before, fs::file_size(log, ec)));
    port_race = new_log.find("Address already in use") != std::string::npos;
    return std::unexpected("PostgresServer: pg_ctl start on 127.0.0.1:" + std::to_string(port_) +
                           " failed: " + describe(r) + "\nserver log tail:\n" + log_tail());
  }
  running_ = true;
  return wait_until_ready();
}

std::expected<void, std::string> PostgresServer::wait_until_ready() {
  const fs::path pg_isready = bin_dir_ / "pg_isready";
  const auto deadline = std::chrono::steady_clock::now() + options_.ready_timeout;
  ProcessResult last;
  for (;;) {
    last = run_process({pg_isready.string(), "-h", "127.0.0.1", "-p", std::to_string(port_), "-U", options_.user, "-d",
                        "postgres", "-t", "2"},
                       dir_);
    if (last.exit_code == 0) return {};
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return std::unexpected("PostgresServer: not ready on 127.0.0.1:" + std::to_string(port_) + " after " +
                         std::to_string(options_.ready_timeout.count()) + " s (pg_isready " + describe(last) +
                         ")\nserver log tail:\n" + log_tail());
}

std::expected<void, std::string> PostgresServer::stop() {
  if (!running_) return {};
  ProcessResult r = run_server_binary("pg_ctl", {"stop", "-D", (dir_ / "data").string(), "-m", "fast", "-w", "-t",
                                                 std::to_string(options_.ready_timeout.count())});
  std::error_code ec;
  if (r.exit_code != 0 && fs::exists(dir_ / "data" / "postmaster.pid", ec))
    return std::unexpected("PostgresServer: pg_ctl stop failed: " + describe(r) + "\nserver log tail:\n" + log_tail());
  running_ = false;
  return {};
}

std::expected<void, std::string> PostgresServer::restart() {
  if (auto r = stop(); !r) return r;
  bool port_race = false;
  auto started = start_on_port(port_race);
  if (!started && port_race)
    return std::unexpected("PostgresServer: port " + std::to_string(port_) +
                           " was taken while the server was down: " + started.error());
  return started;
}

std::expected<void, std::string> PostgresServer::crash(CrashMode mode) {
  if (!running_) return std::unexpected("PostgresServer: crash() on a server that is not running");
  const fs::path lock = dir_ / "data" / "postmaster.pid";
  pid_t postmaster = 0;
  {
    std::ifstream in(lock);
    in >> postmaster;
  }
  if (postmaster <= 0) return std::unexpected("PostgresServer: no postmaster pid in " + lock.string());
  if (mode == CrashMode::immediate_shutdown) {
    ProcessResult r = run_server_binary("pg_ctl", {"stop", "-D", (dir_ / "data").string(), "-m", "immediate", "-w",
                                                   "-t", std::to_string(options_.ready_timeout.count())});
    if (r.exit_code != 0) return std::unexpected("PostgresServer: pg_ctl stop -m immediate failed: " + describe(r));
  } else {
    kill_process_tree(postmaster);  // the postmaster, its backends and their process group
  }
  const auto deadline = std::chrono::steady_clock::now() + options_.ready_timeout;
  while (!process_gone(postmaster)) {
    if (std::chrono::steady_clock::now() >= deadline)
      return std::unexpected("PostgresServer: the postmaster (pid " + std::to_string(postmaster) +
                             ") is still running after it was killed");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  running_ = false;
  std::error_code ec;
  if (process_exists(postmaster)) {
    // A zombie (nobody reaps it here) still holds the pid that postgres checks in its lock files.
    fs::remove(lock, ec);
    fs::remove(dir_ / (".s.PGSQL." + std::to_string(port_) + ".lock"), ec);
  }
  return {};
}

ProcessResult PostgresServer::psql(const std::string& sql) const { return psql(sql, options_.database); }

ProcessResult PostgresServer::psql(const std::string& sql, const std::string& db) const {
  fs::path binary = bin_dir_ / "psql";
  std::error_code ec;
  if (!fs::exists(binary, ec)) binary = "psql";
  return run_process({binary.string(), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                      std::to_string(port_), "-U", options_.user, "-d", db, "-c", sql},
                     fs::temp_directory_path(), {"PGCONNECT_TIMEOUT=10"});
}

ProcessResult PostgresServer::dump_all_rows() const {
  fs::path binary = bin_dir_ / "pg_dumpall";
  std::error_code ec;
  if (!fs::exists(binary, ec)) binary = "pg_dumpall";
  return run_process({binary.string(), "--data-only", "-h", "127.0.0.1", "-p", std::to_string(port_), "-U",
                      options_.user, "-l", options_.database},
                     fs::temp_directory_path(), {"PGCONNECT_TIMEOUT=10"});
}

std::string PostgresServer::log_tail(std::size_t lines) const { return file_tail(dir_ / "server.log", lines); }

PostgresServer* suite_server(const std::string& database) {
  static std::map<std::string, std::unique_ptr<PostgresServer>> servers;
  static std::map<std::string, std::string> failed;
  if (!servers.contains(database) && !failed.contains(database)) {
    auto started = PostgresServer::start({.user = "postgres", .database = database});
    if (started) {
      servers[database] = std::move(*started);
    } else {
      failed[database] = started.error();
    }
  }
  EXPECT_FALSE(failed.contains(database)) << failed[database];
  return servers.contains(database) ? servers[database].get() : nullptr;
}

}  // namespace ods::testing
