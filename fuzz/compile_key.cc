// Fuzz target: what the compile key may cover of a template (planner jinja_purity.h:
// compile_key_reads, compile_impure_word; docs/compile-key.md).
//   - a template that can't be keyed says why, naming a line within the template (but for an
//     empty {% %}), and the same template behind a plain line is refused the same way, one line
//     further down; a keyable one stays keyable with the same reads;
//   - the reads are sorted and unique, and every var and call read is a text of the template;
//   - the key is never laxer than the purity check but for what it lists: a keyable template
//     that calls no macro and reads no var is pure (jinja_impurity);
//   - compile_impure_word returns a word that is in the text.
#include <algorithm>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "ods/planner/jinja_purity.h"

namespace {

std::size_t line_in(const std::string& reason) {
  const std::size_t at = reason.rfind(" at line ");
  ods::fuzz::require(at != std::string::npos, "a blocker that names no line", reason);
  return std::stoul(reason.substr(at + 9));
}

void require_sorted_unique(const std::vector<std::string>& v, const char* what) {
  ods::fuzz::require(std::is_sorted(v.begin(), v.end()) && std::adjacent_find(v.begin(), v.end()) == v.end(), what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = ods::fuzz::as_text(data, size);
  const auto reads = ods::planner::compile_key_reads(text);
  const auto shifted = ods::planner::compile_key_reads("plain text\n" + std::string(text));
  ods::fuzz::require(reads.has_value() == shifted.has_value(), "a plain line in front changes keyability");
  if (!reads) {
    if (reads.error() != "a tag without a name") {
      const auto lines = static_cast<std::size_t>(1 + std::count(text.begin(), text.end(), '\n'));
      const std::size_t line = line_in(reads.error());
      ods::fuzz::require(line >= 1 && line <= lines, "a blocker at a line the template lacks", reads.error());
      ods::fuzz::require(line_in(shifted.error()) == line + 1, "a plain line in front does not move the line by one",
                         reads.error() + " / " + shifted.error());
    }
  } else {
    ods::fuzz::require(reads->vars == shifted->vars && reads->calls == shifted->calls,
                       "a plain line in front changes the reads");
    require_sorted_unique(reads->vars, "vars not sorted and unique");
    require_sorted_unique(reads->calls, "calls not sorted and unique");
    for (const auto& var : reads->vars)
      ods::fuzz::require(text.find(var) != std::string_view::npos, "a var the text lacks", var);
    for (const auto& call : reads->calls) {
      const std::string name = call.substr(call.find('.') == std::string::npos ? 0 : call.find('.') + 1);
      ods::fuzz::require(!name.empty() && text.find(name) != std::string_view::npos, "a call the text lacks", call);
    }
    if (reads->vars.empty() && reads->calls.empty()) {
      const auto impurity = ods::planner::jinja_impurity(text);
      ods::fuzz::require(!impurity, "keyable without calls or vars, yet impure", impurity.value_or(""));
    }
  }
  if (const auto word = ods::planner::compile_impure_word(text))
    ods::fuzz::require(text.find(*word) != std::string_view::npos, "a word the text lacks", *word);
  return 0;
}
