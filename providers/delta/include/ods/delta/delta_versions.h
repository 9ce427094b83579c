#pragma once
// DeltaVersions (ADR-0022 §1, §3): a ChangeProvider whose version of a Delta table is
// "<table id>/<version of its newest data-change commit>", exact, origin "delta_history".
// Its request asks, for each source that is a table whose format the probe confirms as Delta:
//   detail:  DESCRIBE DETAIL {relation}            (id, format)
//   history: DESCRIBE HISTORY {relation} LIMIT 20  (the newest 20 commits, newest first)
// The table id makes the value unique: a table dropped and created again gets a new id. The
// commit's time and operation are kept as evidence, not in the value (timestamps lose
// precision when normalised). Unknown, with the reason: a view or a non-Delta table, a missing
// id or version, no data-change commit in the window. The other tables are another provider's
// (table_format::make_versions_by_format routes them).
// Built over any RelationProbe: it says what to run and reads the answers, never how.
#include <memory>

#include "ods/contracts/change_provider.h"

namespace ods::delta {

inline constexpr const char* kDeltaOrigin = "delta_history";
inline constexpr std::size_t kHistoryWindow = 20;

std::unique_ptr<contracts::ChangeProvider> make_delta_versions();

}  // namespace ods::delta
