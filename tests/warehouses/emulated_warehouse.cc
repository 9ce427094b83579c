#include "warehouses/emulated_warehouse.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "harness/loopback_port.h"
#include "harness/source_paths.h"

namespace ods::testing {

namespace fs = std::filesystem;

namespace {

std::string last_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.substr(text.rfind('\n') + 1);
}

std::vector<std::string> with_timeout(int seconds, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"timeout", "-k", "10", std::to_string(seconds)});
  return argv;
}

}  // namespace

void EmulatedWarehouse::start(const EmulatorKind& kind) {
  kind_ = kind;
  auto started = std::chrono::steady_clock::now();
  ProcessResult venv = run_process(
      with_timeout(1800, {(source_dir() / "scripts" / "warehouse-venv.sh").string(), kind.name}), source_dir());
  ASSERT_EQ(venv.exit_code, 0) << venv.errors;
  venv_ = last_line(venv.output);
  std::printf("%s venv %s: %.0f s\n", kind.name.c_str(), venv_.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  std::fflush(stdout);  // before any fork: a child would print the buffer again

  project_ = std::make_unique<DbtProject>("warehouses");
  project_->use_venv(venv_ / "bin");
  auto port = free_loopback_port();
  ASSERT_TRUE(port) << port.error();
  port_ = *port;
  server_ = std::make_unique<BackgroundProcess>();
  std::vector<std::string> argv;
  std::vector<std::string> env;
  if (kind.name == "snowflake") {
    argv = {(venv_ / "bin" / "fakesnow").string(), "-s", "-p", std::to_string(port_)};
  } else {
    auto grpc = free_loopback_port();
    ASSERT_TRUE(grpc) << grpc.error();
    argv = {(venv_ / "bin" / "bqemulator").string(),
            "start",
            "--rest-port",
            std::to_string(port_),
            "--grpc-port",
            std::to_string(*grpc),
            "--project",
            "local-project"};
    env = {"HOME=" + (venv_ / "home").string()};  // DuckDB finds the spatial extension there
  }
  auto launched = server_->start(argv, project_->dir(), project_->dir() / "emulator.log", env);
  ASSERT_TRUE(launched) << launched.error();
  bool up = false;
  for (int i = 0; i < 120 && !up; ++i) {
    ASSERT_FALSE(server_->exited()) << server_->exit_description() << "\n" << server_->log_tail();
    up = loopback_http_get(port_, "/").has_value();
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ASSERT_TRUE(up) << kind.name << " emulator did not answer on port " << port_ << "\n" << server_->log_tail();
  project_->add_env(
      {"ODS_WAREHOUSE_PORT=" + std::to_string(port_), "DBT_SEND_ANONYMOUS_USAGE_STATS=false", "DO_NOT_TRACK=1"});
  project_->replace_in("profiles.yml", "target: snowflake", "target: " + kind.name);
  sql({});  // "create"
}

void EmulatedWarehouse::stop() {
  if (server_) server_->stop(std::chrono::seconds(5));
  server_.reset();
  project_.reset();
}

void EmulatedWarehouse::sql(const std::vector<std::string>& statements) const {
  std::vector<std::string> argv{(venv_ / "bin" / "python").string(), "scripts/warehouse.py", kind_.name,
                                std::to_string(port_)};
  if (statements.empty()) {
    argv.push_back("create");
  } else {
    argv.push_back("sql");
    argv.insert(argv.end(), statements.begin(), statements.end());
  }
  ProcessResult r = run_process(with_timeout(120, argv), project_->dir(), project_->env());
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors << "\nemulator:\n" << log_tail();
}

std::map<std::string, nlohmann::json> EmulatedWarehouse::run(const std::vector<std::string>& env,
                                                             nlohmann::json* document) const {
  std::vector<std::string> all = kind_.extra_env;
  all.insert(all.end(), env.begin(), env.end());
  all.insert(all.end(), project_->env().begin(), project_->env().end());
  auto started = std::chrono::steady_clock::now();
  ProcessResult r =
      run_process(with_timeout(900, {ods_binary().string(), "state", "run", "--format", "json", "--cutoff", "always",
                                     "--project-dir", project_->dir().string(), "--profiles-dir",
                                     project_->dir().string(), "--dbt", (venv_ / "bin" / "dbt").string()}),
                  project_->dir(), all);
  std::printf("ods state run (%s): %.0f s\n", kind_.name.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  std::fflush(stdout);
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "stdout:\n"
                                   << r.output << "\nstderr:\n"
                                   << r.errors << "\nemulator:\n"
                                   << log_tail();
  EXPECT_EQ(r.exit_code, 0) << r.errors << "\nemulator:\n" << log_tail();
  std::map<std::string, nlohmann::json> entries;
  if (doc.is_discarded() || !doc.contains("plan")) return entries;
  for (const auto& e : doc.at("plan").at("entries")) entries[e.at("name").get<std::string>()] = e;
  if (document) *document = doc;
  return entries;
}

ProcessResult EmulatedWarehouse::dbt(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{(venv_ / "bin" / "dbt").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--project-dir", project_->dir().string(), "--profiles-dir", project_->dir().string()});
  return run_process(with_timeout(600, argv), project_->dir(), project_->env());
}

}  // namespace ods::testing
