#pragma once
// Pieces every StateStore implementation shares: argument checks, snapshot ids, and the
// chain check behind check(). Internal to providers/state.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ods/base/result.h"
#include "ods/contracts/state_store.h"

namespace ods::state::internal {

// A fresh snapshot id: 32 lower-case hex digits from 128 random bits. Thread-safe.
std::string new_snapshot_id();

// Lower-case hex SHA-256 of `data`, prefixed "sha256:". Thread-safe.
std::string content_digest(std::string_view data);

// Whether `text` is one well-formed JSON value (validated without building a DOM).
bool is_json(std::string_view text);

// The "conflict" error of a commit whose expected parent is not the head (nothing written).
ods::Error head_moved(const std::string& scope, const std::optional<std::string>& head,
                      const std::optional<std::string>& expected);

// "invalid_argument" when scope or run id is empty or the document is not JSON.
[[nodiscard]] ods::Result<void> validate_commit(const std::string& scope, const std::string& run_id,
                                                const std::string& document);
// "invalid_argument" when the record's scope or run id is empty.
[[nodiscard]] ods::Result<void> validate_run(const ods::contracts::RunRecord& run);

// One snapshot's place in its scope's chain, as check() sees it.
struct ChainLink {
  std::string id;
  std::optional<std::string> parent;
  std::string scope;
};

// Problems with the chains: each head must name a snapshot of its scope; walking parents
// from it must reach a first snapshot (no parent) without leaving the scope, looping or
// meeting a missing id; and every snapshot of a scope must be on that walk (no orphans, no
// forks, no snapshots in a scope without a head). Returns one sentence per problem.
std::vector<std::string> check_chains(const std::vector<ChainLink>& snapshots,
                                      const std::map<std::string, std::string>& heads);

}  // namespace ods::state::internal
