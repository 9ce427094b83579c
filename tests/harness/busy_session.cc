#include "harness/busy_session.h"

#include <chrono>
#include <thread>

namespace ods::testing {

std::expected<void, std::string> start_busy_session(BackgroundProcess& session, const PostgresServer& pg,
                                                    const std::string& role, const std::string& database,
                                                    const std::string& statements, const std::filesystem::path& dir) {
  auto started = session.start({"/usr/bin/psql", "-X", "-h", "127.0.0.1", "-p", std::to_string(pg.port()), "-U", role,
                                "-d", database, "-c", statements + "select pg_sleep(600)"},
                               dir, dir / (role + ".log"));
  if (!started) return started;
  for (int i = 0; i < 100; ++i) {
    if (busy_session_sleeps(pg, role, database)) return {};
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return std::unexpected(role + "'s session is not sleeping: " + session.log_tail());
}

bool busy_session_sleeps(const PostgresServer& pg, const std::string& role, const std::string& database) {
  return pg.psql("select count(*) from pg_stat_activity where state = 'active' and usename = '" + role +
                     "' and query like '%select pg_sleep(600)'",
                 database)
             .output.find('1') == 0;
}

}  // namespace ods::testing
