// pg_commit_racer CONNINFO SCOPE WRITER ROUNDS: one of the processes that race commits on
// one scope (concurrency_test.cc). Each round reads the head and commits its document plus
// one node "writer<W>-round<R>" built by this round. Prints one line per round:
// "landed <snapshot id>" or "conflict", and exits 1 on any other outcome.
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "ods/state/stores.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: pg_commit_racer CONNINFO SCOPE WRITER ROUNDS\n";
    return 2;
  }
  const std::string scope = argv[2];
  const std::string writer = argv[3];
  const int rounds = std::atoi(argv[4]);
  auto store = ods::state::open_state_store(argv[1]);
  if (!store) {
    std::cerr << store.error().code << ": " << store.error().message << "\n";
    return 1;
  }
  for (int round = 0; round < rounds; ++round) {
    auto head = (*store)->latest(scope);
    if (!head) {
      std::cerr << head.error().code << ": " << head.error().message << "\n";
      return 1;
    }
    nlohmann::json doc = *head ? nlohmann::json::parse((**head).document)
                               : nlohmann::json{{"schema_version", "1.2"}, {"nodes", nlohmann::json::object()}};
    const std::string run_id = "writer" + writer + "-round" + std::to_string(round);
    doc["run_id"] = run_id;
    doc["nodes"][run_id] = {{"run_id", run_id}, {"fingerprint", {{"code", "sha256:" + run_id}}}};
    std::optional<std::string> parent;
    if (*head) parent = (**head).id;
    auto committed = (*store)->commit(scope, parent, run_id, doc.dump());
    if (committed) {
      std::cout << "landed " << committed->id << " " << run_id << "\n";
    } else if (committed.error().code == "conflict") {
      std::cout << "conflict\n";
    } else {
      std::cerr << committed.error().code << ": " << committed.error().message << "\n";
      return 1;
    }
  }
  return 0;
}
