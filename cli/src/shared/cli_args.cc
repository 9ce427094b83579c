#include "cli_args.h"

#include "flag_names.h"

namespace ods::cli {

Result<ParsedArgs> parse_args(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs) {
  ParsedArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a.rfind("--", 0) != 0) {
      if (!a.empty() && a[0] == '-' && a != "-") return fail("usage", "unknown option '" + a + "'");
      out.positionals.push_back(a);
      continue;
    }
    std::string name = a, value;
    bool inline_value = false;
    if (auto eq = a.find('='); eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    const FlagSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == name) spec = &s;
    if (!spec) return fail("usage", "unknown option '" + name + "' (see --help)");
    if (spec->takes_value && !inline_value) {
      if (i + 1 >= args.size()) return fail("usage", "option " + name + " needs a value");
      value = args[++i];
    } else if (!spec->takes_value && inline_value) {
      return fail("usage", "option " + name + " takes no value");
    }
    if (spec->takes_value && value.empty()) return fail("usage", "option " + name + " needs a non-empty value");
    const bool unions = name == kFlagSelect || name == kFlagExclude;  // repeated: the union, as dbt reads it
    if (out.flags.contains(name) && !unions) return fail("usage", "option " + name + " given twice");
    if (unions && out.flags.contains(name)) value = out.flags[name] + " " + value;
    out.flags[name] = value;
  }
  return out;
}

}  // namespace ods::cli
