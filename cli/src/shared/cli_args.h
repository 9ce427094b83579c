#pragma once
// Command-line parsing for `ods`: a command path ("state plan"), flags and positionals.
// Bad flags are refused with a message naming the flag (rule 6); nothing runs then.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ods/base/result.h"

namespace ods::cli {

struct FlagSpec {
  std::string name;  // "--project-dir"
  bool takes_value = true;
  std::string help;
};

struct ParsedArgs {
  std::map<std::string, std::string> flags;  // name -> value ("" for switches)
  std::vector<std::string> positionals;
  bool has(const std::string& flag) const { return flags.contains(flag); }
  std::string get(const std::string& flag, const std::string& fallback = "") const {
    auto it = flags.find(flag);
    return it == flags.end() ? fallback : it->second;
  }
};

// Parses `args` (after the command words) against `specs`. Accepts "--flag value" and
// "--flag=value". Errors: "usage" naming an unknown flag or a flag missing its value.
[[nodiscard]] Result<ParsedArgs> parse_args(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs);

}  // namespace ods::cli
