#include "json_stream.h"

#include <optional>
#include <utility>

namespace ods::dbt::internal {
namespace {

class SectionReader {
 public:
  SectionReader(std::string_view text, std::string_view file, std::span<const SectionSpec> sections, StreamSink& sink)
      : reader_(text, file), file_(file), sections_(sections), sink_(sink), seen_(sections.size(), false) {}

  Result<std::vector<bool>> run() {
    const bool ok = read_root();
    if (stopped_) return fail(std::string(kStoppedBySink), "");
    if (!ok) return std::unexpected(std::move(type_error_ ? *type_error_ : *reader_.error()));
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
    const bool ok = reader_.read_object_members(
        &entry, 1,
        [&](const EntrySoFar& partial, const std::string& member) { return sink_.keep_key(section, partial, member); },
        &raw_);
    if (!ok) return false;
    if (!sink_.on_entry(section, std::move(key), std::move(entry), raw_)) {
      stopped_ = true;
      return false;
    }
    return true;
  }

  bool read_entry_map(std::size_t section) {
    const std::string name(sections_[section].name);
    if (reader_.peek() != '{') return type_error(name, "an object");
    reader_.consume('{');
    if (reader_.consume('}')) return true;
    do {
      reader_.ws();
      std::string key;
      if (!reader_.read_string(&key) || !reader_.expect(':')) return false;
      if (reader_.peek() != '{') return type_error(name + "." + key, "an object");
      reader_.set_context(name + "." + key);
      if (!read_entry(section, std::move(key))) return false;
    } while (reader_.consume(','));
    reader_.set_context(name);
    return reader_.expect('}');
  }

  bool read_entry_list(std::size_t section) {
    const std::string name(sections_[section].name);
    if (reader_.peek() != '[') return type_error(name, "an array");
    reader_.consume('[');
    if (reader_.consume(']')) return true;
    std::size_t index = 0;
    do {
      const std::string label = name + "[" + std::to_string(index) + "]";
      if (reader_.peek() != '{') return type_error(label, "an object");
      reader_.set_context(label);
      if (!read_entry(section, std::to_string(index))) return false;
      ++index;
    } while (reader_.consume(','));
    reader_.set_context(name);
    return reader_.expect(']');
  }

  bool read_section(std::size_t section) {
    seen_[section] = true;
    reader_.set_context(std::string(sections_[section].name));
    switch (sections_[section].mode) {
      case SectionMode::kWhole: {
        Json value;
        if (!reader_.read_value(&value, 1)) return false;
        if (!sink_.on_value(section, std::move(value))) {
          stopped_ = true;
          return false;
        }
        return true;
      }
      case SectionMode::kEntryMap:
        return read_entry_map(section);
      case SectionMode::kEntryList:
        return read_entry_list(section);
    }
    return true;
  }

  bool read_root() {
    if (reader_.peek() != '{') {
      if (reader_.at_end()) return reader_.syntax_error("empty input");
      return type_error("top level", "an object");
    }
    reader_.consume('{');
    if (!reader_.consume('}')) {
      std::string key;
      do {
        reader_.ws();
        key.clear();
        reader_.set_context("");
        if (!reader_.read_string(&key) || !reader_.expect(':')) return false;
        std::size_t section = sections_.size();
        for (std::size_t i = 0; i < sections_.size(); ++i) {
          if (sections_[i].name == key) section = i;
        }
        if (section == sections_.size()) {
          reader_.set_context(key);
          if (!reader_.read_value(nullptr, 1)) return false;
        } else if (!read_section(section)) {
          return false;
        }
      } while (reader_.consume(','));
      reader_.set_context("");
      if (!reader_.expect('}')) return false;
    }
    reader_.ws();
    if (!reader_.at_end()) return reader_.syntax_error("unexpected data after the JSON value");
    return true;
  }

  JsonReader reader_;
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
