#pragma once
// Test harness: a private, throw-away PostgreSQL server on a free loopback port.
//
// start() runs Debian's server binaries (/usr/lib/postgresql/<newest>/bin, or $ODS_PG_BIN):
// `initdb` into a fresh temp dir, then `pg_ctl start` with
//   listen_addresses = 127.0.0.1 (TCP on the loopback only), port = a free port (found by
//   binding port 0; another free port is tried when the server loses the race for it),
//   unix_socket_directories = the temp dir (nothing in /var/run/postgresql),
//   fsync, synchronous_commit and full_page_writes off (speed; the data are disposable;
//   Options::durable_commits turns synchronous_commit on),
//   pg_hba.conf: trust for the unix socket and for 127.0.0.1/32 only.
// It waits until `pg_isready` answers on 127.0.0.1:<port> and creates the database.
// Nothing has to run beforehand; the Debian package's own cluster is not used.
//
// initdb and postgres refuse to run as root. When the test runs as root, the harness chowns
// the temp dir to the `postgres` system user (created by Debian's postgresql-common) and
// runs initdb and pg_ctl through `runuser -u postgres --`. As any other user it runs them
// directly. Clients (psql, dbt) connect over TCP as the bootstrap superuser Options::user,
// which is a database role only (no matching OS user needed).
//
// Not thread-safe: one thread drives a server. Several servers may run side by side.
#include <chrono>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/dbt_project.h"  // ProcessResult

namespace ods::testing {

class PostgresServer {
 public:
  struct Options {
    std::string user = "postgres";  // bootstrap superuser (database role), trust auth
    std::string database = "ods";   // created after start
    std::chrono::seconds ready_timeout{60};
    // synchronous_commit on: a COMMIT answers once its WAL is written out, so a server killed
    // afterwards (crash()) still has it. Off by default (speed): a commit acknowledged just
    // before a SIGKILL may then be lost, which a test of what survives a crash must not allow.
    bool durable_commits = false;
  };

  // Initialises and starts a new server and creates Options::database.
  // On failure returns a message naming the failed step, with the command's output and the
  // tail of the server log; everything started or created so far is stopped and removed.
  [[nodiscard]] static std::expected<std::unique_ptr<PostgresServer>, std::string> start(Options options);
  [[nodiscard]] static std::expected<std::unique_ptr<PostgresServer>, std::string> start() { return start(Options{}); }

  // Stops the server (fast shutdown) and removes its directory
  // (kept when ODS_KEEP_TEST_DIRS is set).
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // The TCP port on 127.0.0.1; stays the same across restart().
  int port() const { return port_; }
  const std::string& user() const { return options_.user; }
  const std::string& database() const { return options_.database; }
  // libpq key/value connection string: "host=127.0.0.1 port=<port> user=<user> dbname=<database>".
  std::string dsn() const;
  // The same as libpq environment entries: PGHOST, PGPORT, PGUSER, PGDATABASE ("NAME=value").
  std::vector<std::string> libpq_env() const;
  // The temp dir: data/ (the cluster), server.log, and the unix socket.
  const std::filesystem::path& dir() const { return dir_; }
  bool running() const { return running_; }

  // `pg_ctl stop -m fast` and waits. No-op when already stopped. On failure returns the
  // pg_ctl output and log tail; the server is then considered stopped only if it is gone.
  [[nodiscard]] std::expected<void, std::string> stop();
  // stop() then start on the same data dir and port; waits until ready. Fails (with the log
  // tail) if the port was taken meanwhile or the server does not come up.
  [[nodiscard]] std::expected<void, std::string> restart();

  // How crash() ends the server: SIGKILL to the postmaster and every backend (a machine that
  // dies), or `pg_ctl stop -m immediate` (no shutdown checkpoint; crash recovery on start).
  enum class CrashMode { sigkill, immediate_shutdown };
  // Ends the server at once, mid-transaction for whoever is connected, and waits until none
  // of its processes is left; restart() then starts it on the same data dir and port, where
  // it runs crash recovery. A lock file left by a server that is a zombie (nobody reaped it)
  // is removed, as a reboot would. Errors say what could not be ended.
  [[nodiscard]] std::expected<void, std::string> crash(CrashMode mode);

  // Runs `sql` with psql (-X -q -A -t, ON_ERROR_STOP) over TCP against database() (or `db`).
  // `output` holds unaligned, tuples-only rows ('|' between columns), one per line.
  ProcessResult psql(const std::string& sql) const;
  ProcessResult psql(const std::string& sql, const std::string& db) const;
  // `pg_dumpall --data-only` over TCP: every row of every database as SQL text (COPY blocks).
  ProcessResult dump_all_rows() const;

  // The last `lines` lines of server.log (for failure messages).
  std::string log_tail(std::size_t lines = 30) const;

 private:
  PostgresServer(Options options, std::filesystem::path dir);
  // Runs a server binary (as the `postgres` user when we are root).
  ProcessResult run_server_binary(const std::string& binary, const std::vector<std::string>& args) const;
  [[nodiscard]] std::expected<void, std::string> init_cluster();
  // pg_ctl start on port_ + wait for pg_isready. `port_race` is set when the port was taken.
  [[nodiscard]] std::expected<void, std::string> start_on_port(bool& port_race);
  [[nodiscard]] std::expected<void, std::string> wait_until_ready();

  Options options_;
  std::filesystem::path dir_;
  std::filesystem::path bin_dir_;
  int port_ = 0;
  bool running_ = false;
};

// The directory holding initdb, pg_ctl and postgres: $ODS_PG_BIN, else the newest
// /usr/lib/postgresql/<version>/bin; empty when none is found.
std::filesystem::path postgres_bin_dir();

// One server per test program for the suites whose cases each copy a loaded database (user
// postgres, `database` created at start), started by the first call and stopped at exit; nullptr
// after a failed start, which the call reports once as a test failure (EXPECT) with the reason.
// Not thread-safe: call from the test's thread.
PostgresServer* suite_server(const std::string& database);

}  // namespace ods::testing
