#include "process/tests/test_programs.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

namespace ods::process::testing {

namespace fs = std::filesystem;

fs::path TempDir::write(const std::string& name, const std::string& content) const {
  fs::path file = path() / name;
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
  return file;
}

fs::path TempDir::script(const std::string& name, const std::string& body) const {
  fs::path file = write(name, "#!/bin/sh\n" + body + "\n");
  fs::permissions(file, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  return file;
}

std::string TempDir::read(const std::string& name) const {
  std::ifstream in(path() / name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool TempDir::exists(const std::string& name) const { return fs::exists(path() / name); }

bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto close_paren = line.rfind(')');
  return close_paren != std::string::npos && close_paren + 2 < line.size() &&
         (line[close_paren + 2] == 'Z' || line[close_paren + 2] == 'X');
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

pid_t read_pid(const TempDir& dir, const std::string& file) {
  pid_t pid = -1;
  eventually([&] {
    const std::string text = dir.read(file);
    if (text.empty() || text.back() != '\n') return false;
    pid = static_cast<pid_t>(std::stol(text));
    return true;
  });
  return pid;
}

std::atomic<int> g_custom_handler_calls{0};
extern "C" void custom_handler(int) { g_custom_handler_calls.fetch_add(1); }

struct sigaction current_action(int signal_number) {
  struct sigaction action {};
  ::sigaction(signal_number, nullptr, &action);
  return action;
}

CustomHandlers::CustomHandlers() {
  struct sigaction action {};
  action.sa_handler = custom_handler;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &saved_int_);
  ::sigaction(SIGTERM, &action, &saved_term_);
}

CustomHandlers::~CustomHandlers() {
  ::sigaction(SIGINT, &saved_int_, nullptr);
  ::sigaction(SIGTERM, &saved_term_, nullptr);
}

}  // namespace ods::process::testing
