#pragma once
// Canonical JSON: the one canonicaliser of ODS, whose bytes fingerprints are computed over
// (providers/dbt's config, test and contract digests). Changing its output changes every
// fingerprint, so it is pinned by tests here and in providers/dbt.
//
// The canonical form of a value: no whitespace; an object's members sorted by key (bytewise
// on the decoded key, stable, so duplicate members are all kept in their order); strings
// escaped as Writer does ('"', '\\' and control characters only); true, false, null and
// integers that fit 64 bits in decimal ("-0" is "0"); any other number in nlohmann/json's
// dump() form of the double it reads as ("1.50" is "1.5", "1E2" is "100.0").
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ods/json/reader.h"

namespace ods::json {

struct CanonicalOptions {
  // Members of the top-level object left out of the output.
  std::span<const std::string_view> drop;
  // When not null and the value is an object: every top-level member (dropped ones too) is
  // appended here as (name, the value's text in the input, a view), so a caller can read a few
  // of them without scanning the text again.
  std::vector<std::pair<std::string, std::string_view>>* top_level = nullptr;
};

// Reads the next value from `reader` and appends its canonical form to `out`. Throws
// SyntaxError (from `reader`) on malformed text; `out` may then hold part of the value.
void append_canonical(Reader& reader, std::string& out, const CanonicalOptions& options = {});

// The canonical form of the JSON `text` (one value, nothing but whitespace after it).
// Throws SyntaxError.
std::string canonical(std::string_view text, const CanonicalOptions& options = {});

}  // namespace ods::json
