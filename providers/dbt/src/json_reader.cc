#include "json_reader.h"

#include <charconv>
#include <cstdint>

#include "ods/json/canonical.h"
#include "ods/json/reader.h"
#include "ods/json/writer.h"

namespace ods::dbt::internal {
namespace {

using ods::json::Type;

// A number's text (validated by the tokenizer) as nlohmann's parser would store it: an
// integer when it has no fraction or exponent and fits, else a double.
Json number_value(std::string_view text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (text.find_first_of(".eE") == std::string_view::npos) {
    if (text.front() == '-') {
      std::int64_t v = 0;
      if (std::from_chars(begin, end, v).ec == std::errc()) return v;
    } else {
      std::uint64_t v = 0;
      if (std::from_chars(begin, end, v).ec == std::errc()) return v;
    }
  }
  double d = 0;  // an underflow (1e-400) reads as 0, as nlohmann's
  std::from_chars(begin, end, d);
  return d;
}

}  // namespace

void append_json_string(std::string_view s, std::string& out) {
  ods::json::append_string(s, out, ods::json::Utf8::pass_through);  // the text was read as JSON
}

Error artifact_syntax_error(std::string_view file, std::string_view context, const ods::json::SyntaxError& e) {
  constexpr std::size_t kPathShown = 200;  // a path 512 levels deep is not read by anyone
  std::string path = e.path();
  if (path.size() > kPathShown) path = path.substr(0, kPathShown) + "...";
  std::string where(context);
  if (!path.empty()) where += (where.empty() ? "" : ".") + path;
  if (!where.empty()) where = " (reading " + where + ")";
  return Error{"invalid_artifact", std::string(file) + ": not valid JSON at byte " + std::to_string(e.offset()) +
                                       where + ": " + e.problem()};
}

JsonReader::JsonReader(std::string_view text, std::string_view file) : tokens_(text), file_(file) {}

void JsonReader::reset(std::string_view text, std::string_view file) {
  tokens_.reset(text);
  file_ = file;
  depth_ = 0;
  for (auto& members : scratch_) members->clear();
}

JsonReader::Members& JsonReader::scratch_at(std::size_t depth) {
  // Members are collected in a scratch vector (one per depth, reused), then moved into
  // the object at its final size: ordered_map's keys are const, so letting it grow would
  // copy every key on each reallocation (and its own insert searches for duplicates).
  while (scratch_.size() <= depth) scratch_.push_back(std::make_unique<Members>());
  return *scratch_[depth];
}

void JsonReader::finish_object(Json* out, Members& scratch, std::size_t first) {
  if (out == nullptr) return;
  *out = Json::object();
  Json::object_t::Container& members = out->get_ref<Json::object_t&>();
  members.reserve(scratch.size() - first);
  for (std::size_t i = first; i < scratch.size(); ++i) {
    members.emplace_back(std::move(scratch[i].first), std::move(scratch[i].second));
  }
  scratch.resize(first);
}

void JsonReader::read_value(Json* out) {
  if (out == nullptr) {
    tokens_.skip();
    return;
  }
  switch (tokens_.peek()) {
    case Type::object:
      read_object_members(
          out, [](const EntrySoFar&, std::string_view) { return Keep::build; }, nullptr);
      return;
    case Type::array: {
      *out = Json::array();
      auto& elements = out->get_ref<Json::array_t&>();
      tokens_.begin_array();
      while (tokens_.next_element()) {
        elements.emplace_back();
        read_value(&elements.back());
      }
      return;
    }
    case Type::string:
      *out = std::string(tokens_.string_view());
      return;
    case Type::number:
      *out = number_value(tokens_.number_text());
      return;
    case Type::boolean:
      *out = tokens_.boolean();
      return;
    case Type::null:
      tokens_.null();
      *out = nullptr;
      return;
  }
}

std::string_view JsonReader::skip_raw() {
  tokens_.peek();  // past the whitespace: the value starts here
  const std::size_t start = tokens_.offset();
  tokens_.skip();
  return tokens_.text().substr(start, tokens_.offset() - start);
}

Result<std::string> canonical_json_text(std::string_view text, std::string_view file, std::string_view context,
                                        std::span<const std::string_view> drop, RawMembers* top_level) {
  thread_local ods::json::Reader reader({});  // reused for its scratch space
  reader.reset(text);
  std::string out;
  try {
    ods::json::append_canonical(reader, out, {.drop = drop, .top_level = top_level});
    reader.finish();
  } catch (const ods::json::SyntaxError& e) {
    return std::unexpected(artifact_syntax_error(file, context, e));
  }
  return out;
}

}  // namespace ods::dbt::internal
