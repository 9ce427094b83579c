// Fingerprints: SHA-256 per component and a digest over the sorted components.
#include "ods/planner/fingerprint.h"

namespace ods::planner {

std::string Fingerprint::digest() const {
  std::size_t size = 0;
  for (const auto& [name, value] : components) size += name.size() + value.size() + 2;
  std::string text;
  text.reserve(size);
  for (const auto& [name, value] : components) {  // std::map: sorted by name
    text += name;
    text += '\0';
    text += value;
    text += '\n';
  }
  return sha256_hex(text);
}

FingerprintDiff diff(const Fingerprint& before, const Fingerprint& after) {
  FingerprintDiff d;
  for (const auto& [name, value] : after.components) {
    auto it = before.components.find(name);
    if (it == before.components.end()) {
      d.added.push_back(name);
    } else if (it->second != value) {
      d.changed.push_back(name);
    }
  }
  for (const auto& [name, value] : before.components) {
    if (!after.components.contains(name)) d.removed.push_back(name);
  }
  return d;
}

namespace {
std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}
}  // namespace

std::string FingerprintDiff::describe() const {
  std::string out;
  auto part = [&out](const std::vector<std::string>& names, const char* what) {
    if (names.empty()) return;
    if (!out.empty()) out += "; ";
    out += join(names) + " " + what;
  };
  part(changed, "changed");
  part(added, "added");
  part(removed, "removed");
  return out;
}

}  // namespace ods::planner
