#include "json_stream.h"

#include <optional>
#include <utility>

namespace ods::dbt::internal {
namespace {

using ods::json::Type;

class SectionReader {
 public:
  SectionReader(std::string_view text, std::string_view file, std::span<const SectionSpec> sections, StreamSink& sink)
      : reader_(text, file),
        tokens_(reader_.tokens()),
        file_(file),
        sections_(sections),
        sink_(sink),
        seen_(sections.size(), false) {}

  Result<std::vector<bool>> run() {
    bool ok = false;
    try {
      ok = read_root();
    } catch (const ods::json::SyntaxError& e) {
      return std::unexpected(artifact_syntax_error(file_, "", e));
    }
    if (stopped_) return fail(std::string(kStoppedBySink), "");
    if (!ok) return std::unexpected(std::move(*type_error_));
    return std::move(seen_);
  }

 private:
  bool type_error(const std::string& field, std::string_view expected) {
    type_error_ = Error{"invalid_artifact", std::string(file_) + ": " + field + ": expected " + std::string(expected)};
    return false;
  }

  bool read_entry(std::size_t section, std::string&& key) {
    Json entry;
    raw_.clear();
    reader_.read_object_members(
        &entry,
        [&](const EntrySoFar& partial, std::string_view member) { return sink_.keep_key(section, partial, member); },
        &raw_);
    if (!sink_.on_entry(section, std::move(key), std::move(entry), raw_)) {
      stopped_ = true;
      return false;
    }
    sink_.on_read_up_to(tokens_.offset());
    return true;
  }

  bool read_entry_map(std::size_t section) {
    const std::string name(sections_[section].name);
    if (tokens_.peek() != Type::object) return type_error(name, "an object");
    tokens_.begin_object();
    std::string_view key;
    while (tokens_.next_member(key)) {
      if (tokens_.peek() != Type::object) return type_error(name + "." + std::string(key), "an object");
      if (!read_entry(section, std::string(key))) return false;
    }
    return true;
  }

  bool read_entry_list(std::size_t section) {
    const std::string name(sections_[section].name);
    if (tokens_.peek() != Type::array) return type_error(name, "an array");
    tokens_.begin_array();
    for (std::size_t index = 0; tokens_.next_element(); ++index) {
      if (tokens_.peek() != Type::object) return type_error(name + "[" + std::to_string(index) + "]", "an object");
      if (!read_entry(section, std::to_string(index))) return false;
    }
    return true;
  }

  bool read_section(std::size_t section) {
    seen_[section] = true;
    switch (sections_[section].mode) {
      case SectionMode::whole: {
        Json value;
        reader_.read_value(&value);
        if (!sink_.on_value(section, std::move(value))) {
          stopped_ = true;
          return false;
        }
        sink_.on_read_up_to(tokens_.offset());
        return true;
      }
      case SectionMode::entry_map:
        return read_entry_map(section);
      case SectionMode::entry_list:
        return read_entry_list(section);
    }
    return true;
  }

  bool read_root() {
    if (tokens_.text().find_first_not_of(" \t\n\r") == std::string_view::npos) tokens_.fail("empty input");
    if (tokens_.peek() != Type::object) return type_error("top level", "an object");
    tokens_.begin_object();
    std::string_view key;
    while (tokens_.next_member(key)) {
      std::size_t section = sections_.size();
      for (std::size_t i = 0; i < sections_.size(); ++i) {
        if (sections_[i].name == key) section = i;
      }
      if (section == sections_.size()) {
        tokens_.skip();
      } else if (!read_section(section)) {
        return false;
      }
    }
    tokens_.finish();
    return true;
  }

  JsonReader reader_;
  ods::json::Reader& tokens_;  // reader_'s
  std::string_view file_;
  std::span<const SectionSpec> sections_;
  StreamSink& sink_;
  std::vector<bool> seen_;
  RawMembers raw_;
  std::optional<Error> type_error_;
  bool stopped_ = false;
};

}  // namespace

Result<std::vector<bool>> stream_sections(std::string_view text, std::string_view file,
                                          std::span<const SectionSpec> sections, StreamSink& sink) {
  return SectionReader(text, file, sections, sink).run();
}

}  // namespace ods::dbt::internal
