// refuse_foreign_methods (selection.h): the selector methods ODS answers from its own state,
// found in --select/--exclude and in a --selector's YAML definition, before any dbt call.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "ods/dbt/selection.h"

namespace ods::dbt {
namespace {

// The method a selector (one word of a union, without graph operators or intersections) names,
// without its arguments (`state:modified.body` -> "state"); "" for a bare name or path.
std::string method_of(std::string word) {
  std::size_t from = 0;
  while (from < word.size() && (word[from] == '@' || word[from] == '+' || (word[from] >= '0' && word[from] <= '9')))
    ++from;
  word = word.substr(from);
  const auto colon = word.find(':');
  if (colon == std::string::npos) return "";
  return word.substr(0, std::min(colon, word.find('.')));
}

// Why ODS refuses `method`; "" when it does not.
std::string why_refused(const std::string& method) {
  if (method == "state")
    return "ODS decides what changed from its own recorded state (that is what `ods state run` builds); drop "
           "state:modified and friends: `ods state plan` shows what changed";
  if (method == "result")
    return "result: reads a previous dbt run's run_results.json through --state; ODS decides from its recorded runs "
           "what must build again (a failed node is never reused), so drop result:";
  if (method == "source_status")
    return "source_status: compares two `dbt source freshness` runs through --state; ODS reads each source's data "
           "version from the warehouse itself and builds the readers of sources whose data changed, so drop "
           "source_status:";
  return "";
}

Result<void> check_word(const std::string& word, const std::string& where) {
  const std::string why = why_refused(method_of(word));
  if (why.empty()) return {};
  return fail("usage", where + ": selector '" + word + "' is not for ODS: " + why + ".");
}

// Every selector of a dbt union text (spaces), each part of its intersections (commas).
Result<void> check_text(const std::string& text, const std::string& where) {
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    std::istringstream parts(word);
    std::string part;
    while (std::getline(parts, part, ',')) ODS_TRY_VOID(check_word(part, where));
  }
  return {};
}

// Keys of a selector definition's maps that are not methods.
bool is_keyword(const std::string& key) {
  static const std::set<std::string> kKeywords{"method",
                                               "value",
                                               "union",
                                               "intersection",
                                               "exclude",
                                               "parents",
                                               "children",
                                               "parents_depth",
                                               "children_depth",
                                               "childrens_parents",
                                               "indirect_selection",
                                               "name",
                                               "description",
                                               "default"};
  return kKeywords.contains(key);
}

class DefinitionWalk {
 public:
  DefinitionWalk(const YAML::Node& selectors, std::string where) : selectors_(selectors), where_(std::move(where)) {}

  Result<void> selector(const std::string& name) {
    if (!seen_.insert(name).second || !selectors_.IsSequence()) return {};
    for (const auto& entry : selectors_) {
      if (entry.IsMap() && entry["name"] && entry["name"].IsScalar() && entry["name"].Scalar() == name &&
          entry["definition"])
        return node(entry["definition"]);
    }
    return {};  // dbt says the name is unknown
  }

 private:
  Result<void> node(const YAML::Node& n) {
    if (n.IsScalar()) return check_text(n.Scalar(), where_);
    if (n.IsSequence()) {
      for (const auto& item : n) ODS_TRY_VOID(node(item));
      return {};
    }
    if (!n.IsMap()) return {};
    if (n["method"] && n["method"].IsScalar()) {
      const std::string method = n["method"].Scalar();
      if (method == "selector" && n["value"] && n["value"].IsScalar()) ODS_TRY_VOID(selector(n["value"].Scalar()));
      const std::string value = n["value"] && n["value"].IsScalar() ? n["value"].Scalar() : "";
      ODS_TRY_VOID(check_word(method + ":" + value, where_));
    }
    for (const auto& kv : n) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (key == "union" || key == "intersection" || key == "exclude") {
        ODS_TRY_VOID(node(kv.second));
      } else if (!key.empty() && !is_keyword(key)) {
        const std::string value = kv.second.IsScalar() ? kv.second.Scalar() : "";
        ODS_TRY_VOID(check_word(key + ":" + value, where_));  // the key-value form, `state: modified`
      }
    }
    return {};
  }

  const YAML::Node& selectors_;
  std::string where_;
  std::set<std::string> seen_;
};

}  // namespace

Result<void> refuse_foreign_methods(const SelectionFlags& flags, const std::filesystem::path& selectors_yml) {
  ODS_TRY_VOID(check_text(flags.select, "--select"));
  ODS_TRY_VOID(check_text(flags.exclude, "--exclude"));
  if (flags.selector.empty()) return {};
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(selectors_yml.string());
  } catch (const YAML::Exception&) {
    return {};  // dbt reads the file and says what is wrong with it
  }
  if (!doc.IsMap() || !doc["selectors"]) return {};
  const YAML::Node selectors = doc["selectors"];
  return DefinitionWalk(selectors, "--selector " + flags.selector + " (" + selectors_yml.filename().string() + ")")
      .selector(flags.selector);
}

}  // namespace ods::dbt
