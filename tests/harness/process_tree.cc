#include "harness/process_tree.h"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

namespace ods::testing {

namespace {

struct ProcStat {
  pid_t ppid = 0;
  pid_t pgid = 0;
  char state = '?';
};

// Fields 3 (state), 4 (ppid) and 5 (pgrp) of /proc/<pid>/stat; false when it is gone.
bool read_stat(pid_t pid, ProcStat& out) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return false;
  std::istringstream rest(text.substr(close + 1));
  rest >> out.state >> out.ppid >> out.pgid;
  return static_cast<bool>(rest);
}

}  // namespace

bool process_gone(pid_t pid) {
  ProcStat s;
  return !read_stat(pid, s) || s.state == 'Z' || s.state == 'X';
}

bool process_exists(pid_t pid) {
  ProcStat s;
  return read_stat(pid, s);
}

std::vector<pid_t> descendants_of(pid_t root) {
  std::map<pid_t, std::vector<pid_t>> children;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    ProcStat s;
    const pid_t pid = std::stoi(name);
    if (read_stat(pid, s)) children[s.ppid].push_back(pid);
  }
  std::vector<pid_t> out;
  std::vector<pid_t> todo{root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (pid_t c : children[p]) {
      out.push_back(c);
      todo.push_back(c);
    }
  }
  return out;
}

void kill_process_tree(pid_t root) {
  ::kill(root, SIGSTOP);
  const std::vector<pid_t> tree = descendants_of(root);
  std::set<pid_t> groups;
  for (pid_t p : tree) {
    ProcStat s;
    if (read_stat(p, s) && s.pgid != ::getpgrp()) groups.insert(s.pgid);
  }
  ProcStat own;
  if (read_stat(root, own) && own.pgid != ::getpgrp()) groups.insert(own.pgid);
  ::kill(root, SIGKILL);
  for (pid_t g : groups) ::kill(-g, SIGKILL);
  for (pid_t p : tree) ::kill(p, SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (pid_t p : tree) {
    while (!process_gone(p) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

}  // namespace ods::testing
