#pragma once
// Fingerprints (ADR-0013 #13): a map component -> SHA-256 hex, plus a digest over
// "name\0digest\n" of the sorted components. Canonical and reproducible.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ods/base/sha256.h"

namespace ods::planner {

inline constexpr std::string_view kFingerprintScheme = "dbt/2";

struct FingerprintDiff {
  std::vector<std::string> changed, added, removed;  // component names, sorted
  bool empty() const { return changed.empty() && added.empty() && removed.empty(); }
  // "sql changed; macros added" — for reason messages.
  std::string describe() const;
};

struct Fingerprint {
  std::map<std::string, std::string> components;  // name -> sha256 hex

  // Adds component `name` as the SHA-256 of `content`.
  void add(const std::string& name, std::string_view content) { components[name] = sha256_hex(content); }
  // The digest over the sorted components; stable across processes and machines.
  std::string digest() const;
  friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};

// What differs going from `before` to `after`.
FingerprintDiff diff(const Fingerprint& before, const Fingerprint& after);

}  // namespace ods::planner
