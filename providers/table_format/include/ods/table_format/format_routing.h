#pragma once
// One ChangeProvider over several table-format providers (ADR-0022 §2): each table goes to the
// provider of its format, as the probe confirms it, and a table of no listed format to the
// provider given for the other tables (a content fingerprint). The composition root chooses
// the providers; the planner never sees a format.
#include <memory>
#include <vector>

#include "ods/contracts/change_provider.h"

namespace ods::table_format {

// `formats` (at least one; each request's filter names its format, e.g. "delta", "iceberg") are
// tried in order; `other_tables` (may be null) reads the tables none of them matches. The
// request: formats[0]'s filter and statements, then the others' as the fallback and further
// fallbacks (relation_probe 0.5), `other_tables`' last. versions() hands each answered source
// to the provider whose branch ran and reads the rest itself: skipped, missing or unknown
// answers and answers of no known branch are unknown, with the probe's reason, and keep the
// latency the probe measured. Origin: the providers' origins joined by '+'. Thread-safe as
// its providers are.
std::unique_ptr<contracts::ChangeProvider> make_versions_by_format(
    std::vector<std::unique_ptr<contracts::ChangeProvider>> formats,
    std::unique_ptr<contracts::ChangeProvider> other_tables = nullptr);

}  // namespace ods::table_format
