#pragma once
// The cost rule for sources (run/evidence_cost.h; docs/warehouses.md, "Evidence bounded by
// cost"), applied around the probe: which sources' content fingerprint is left unread, how the
// probe is told (the request's skip list, relation_probe 0.10: their content statement is never
// sent, whatever provider wrote it, and their relations are still checked and their cheaper
// statements still run), and what the sources then carry. Vendor-neutral: the
// provider's cheaper evidence stands in where it has one (PostgreSQL's statistics, sources.json's
// max_loaded_at), else the source is unknown and its readers build (`evidence_costs_more`).
#include <map>
#include <string>

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

// `request` told not to run its content statement (content::kContentStatement, whichever branch
// the relation matches) on the relations of the sources in `too_costly` (source id -> why), by
// their ids in ProbeRequest::skip_statements; the other statements and ids stay as they were.
void leave_content_unread(contracts::ProbeRequest& request, const std::map<std::string, std::string>& too_costly);

// After the provider read the answers: `version` of a source left unread carries why, as a
// kExactEvidenceTooCostly evidence item (replacing the provider's source_content_unread,
// which would give another cause for the missing answer), and an unknown version says why in
// `why_unknown`.
// Returns false when the provider read an exact version anyway (a probe that ran the statement
// all the same, e.g. the dbt program's skip list left out for its length): then nothing is
// changed and the fingerprint counts as read. A version that isn't exact never reads as the
// fingerprint's: a skipped fingerprint is never taken as "unchanged" content.
bool note_content_unread(contracts::SourceVersion& version, const std::string& why);

}  // namespace ods::cli
