#pragma once
// The cost rule for sources (run/evidence_cost.h; docs/warehouses.md, "Evidence bounded by
// cost"), applied around the probe: which sources' content fingerprint is left unread, how the
// probe is told (its content statement made to answer no row for them, so no warehouse scans
// them, whatever provider wrote it), and what the sources then carry. Vendor-neutral: the
// provider's cheaper evidence stands in where it has one (PostgreSQL's statistics, sources.json's
// max_loaded_at), else the source is unknown and its readers build (`evidence_costs_more`).
#include <map>
#include <string>
#include <vector>

#include "ods/contracts/change_provider.h"
#include "ods/contracts/state_store.h"
#include "ods/planner/inputs.h"

namespace ods::cli {

// Source id -> why its content fingerprint is left unread: the sources whose fingerprint took
// longer, in the ledger's newest reading, than building everything downstream of them took when
// last built (with the rule's hysteresis). Empty when nothing is recorded or the ledger can't be
// read (every fingerprint is then read, as before the rule).
std::map<std::string, std::string> sources_too_costly(contracts::StateStore& store, const std::string& scope,
                                                      const planner::ProjectInputs& inputs);

// `request` with its content statements (content::kContentStatement, in its own statements and
// its fallbacks') wrapped so that they answer no row, and so read nothing, for the relations of
// `sources` (by their schema and identifier, as the probe fills {schema} and {identifier},
// compared case-insensitively). A source whose relation name can't be split is left as it was:
// its fingerprint is read.
void leave_content_unread(contracts::ProbeRequest& request, const std::vector<const planner::SourceInput*>& sources);

// After the provider read the answers: `version` of a source left unread carries why, as a
// kExactEvidenceTooCostly evidence item (replacing the provider's source_content_unread,
// which would quote the empty answer), and an unknown version says why in `why_unknown`.
// Returns false when the provider read an exact version anyway (its relation wasn't matched):
// then nothing is changed and the fingerprint counts as read.
bool note_content_unread(contracts::SourceVersion& version, const std::string& why);

}  // namespace ods::cli
