#pragma once
// The frame every table format's ChangeProvider (providers/delta, providers/iceberg) reads its
// answers in: one SourceVersion per source of the report, in source-id order. An answer the probe
// skipped (not a table of the format), found missing or could not give, or one from another
// branch of the request (another format's statements), is unknown with the reason; the format's
// own reader gets the rest. Pure; thread-safe.
#include <functional>
#include <string>
#include <vector>

#include "ods/contracts/change_provider.h"

namespace ods::table_format {

// Reads the answer of the format's own statements (status ok, branch 0) into `v` (source id and
// probe seconds already set) and returns it: a version, or why_unknown set.
using FormatReader = std::function<contracts::SourceVersion(contracts::SourceVersion v, const contracts::ProbeAnswer&,
                                                            const std::string& observed_at)>;

// `table_kind` names the format's tables in reasons: "a Delta table" gives "not a Delta table: …".
std::vector<contracts::SourceVersion> format_versions(const contracts::ProbeReport& report,
                                                      const std::string& observed_at, const std::string& table_kind,
                                                      const FormatReader& read);

// `v` with why_unknown set to `why`.
contracts::SourceVersion unknown(contracts::SourceVersion v, std::string why);

}  // namespace ods::table_format
