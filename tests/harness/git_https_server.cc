#include "harness/git_https_server.h"

#include <fstream>
#include <thread>

#include "harness/dbt_project.h"  // run_process

namespace ods::testing {

namespace fs = std::filesystem;

std::expected<void, std::string> GitHttpsServer::start(Options options, const std::string& host) {
  options_ = std::move(options);
  host_ = host;
  const fs::path dir = options_.dir;
  fs::create_directories(dir / "work");
  fs::create_directories(dir / "root");
  const ProcessResult cert = run_process(
      {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", (dir / "key.pem").string(), "-out",
       certificate().string(), "-days", "1", "-subj", "/CN=" + host_, "-addext", "subjectAltName=IP:" + host_},
      dir);
  if (cert.exit_code != 0) return std::unexpected("openssl req failed: " + cert.errors);
  for (const auto& [path, content] : options_.files) {
    fs::create_directories((dir / "work" / path).parent_path());
    std::ofstream(dir / "work" / path) << content;
  }
  const std::vector<std::vector<std::string>> steps{
      {"git", "init", "-q", "-b", "main"},
      {"git", "add", "-A"},
      {"git", "-c", "user.name=ods", "-c", "user.email=ods@example.com", "commit", "-qm", "the project"},
      {"git", "clone", "-q", "--bare", ".", (dir / "root" / (options_.name + ".git")).string()}};
  for (const auto& step : steps) {
    const ProcessResult done = run_process(step, dir / "work");
    if (done.exit_code != 0) return std::unexpected(step[1] + " failed: " + done.output + done.errors);
  }
  std::vector<std::string> argv{"/usr/bin/python3",
                                (source_dir() / "tests/harness/git_https_server.py").string(),
                                "--root",
                                (dir / "root").string(),
                                "--cert",
                                certificate().string(),
                                "--key",
                                (dir / "key.pem").string(),
                                "--port-file",
                                (dir / "port").string(),
                                "--requests",
                                (dir / "requests.jsonl").string(),
                                "--host",
                                host_};
  if (!options_.basic_credential.empty()) argv.insert(argv.end(), {"--basic", options_.basic_credential});
  if (!options_.bearer_token.empty()) argv.insert(argv.end(), {"--bearer", options_.bearer_token});
  if (auto started = process_.start(argv, dir, dir / "server.log"); !started) return started;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(dir / "port")) {
    if (process_.exited()) return std::unexpected("the git server ended: " + process_.log_tail());
    if (std::chrono::steady_clock::now() > deadline) return std::unexpected("the git server did not start");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::ifstream(dir / "port") >> port_;
  return {};
}

std::string GitHttpsServer::url() const {
  return "https://" + host_ + ":" + std::to_string(port_) + "/" + options_.name + ".git";
}

std::vector<nlohmann::json> GitHttpsServer::requests() const {
  std::vector<nlohmann::json> out;
  std::ifstream in(options_.dir / "requests.jsonl");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

}  // namespace ods::testing
