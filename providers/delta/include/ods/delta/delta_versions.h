#pragma once
// DeltaVersions (ADR-0022 §1, §3): a ChangeProvider whose version of a Delta table is
// "<table id>/<version of its newest data-change commit>", exact, origin "delta_history".
// Its request asks, for each source that is a table whose format the probe confirms as Delta:
//   detail:  DESCRIBE DETAIL {relation}            (id, format)
//   history: DESCRIBE HISTORY {relation} LIMIT 20  (the newest 20 commits, newest first)
// The table id makes the value unique: a table dropped and created again gets a new id. The
// commit's time and operation are kept as evidence, not in the value (timestamps lose
// precision when normalised). Unknown, with the reason: a view or a non-Delta table (unless
// the fallback answers for it), a missing id or version, no data-change commit in the window.
// Built over any RelationProbe: it says what to run and reads the answers, never how.
#include <memory>

#include "ods/contracts/change_provider.h"

namespace ods::delta {

inline constexpr const char* kDeltaOrigin = "delta_history";
inline constexpr std::size_t kHistoryWindow = 20;

// `other_tables` (may be null) answers for the tables the Delta filter does not match (e.g. a
// content fingerprint for parquet tables): its filter and statements become the request's
// fallback, and its versions() reads those answers. Without it such tables are unknown.
std::unique_ptr<contracts::ChangeProvider> make_delta_versions(
    std::unique_ptr<contracts::ChangeProvider> other_tables = nullptr);

}  // namespace ods::delta
