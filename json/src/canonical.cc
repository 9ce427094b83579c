#include "ods/json/canonical.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "ods/json/writer.h"

namespace ods::json {
namespace {

// A number that is not a plain 64-bit integer, as nlohmann's dump() writes the value it
// parses to (its Grisu2 shortest form, which std::to_chars does not always reproduce).
void append_number(std::string_view text, std::string& out) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (text.find_first_of(".eE") == std::string_view::npos) {
    if (text.front() == '-') {
      std::int64_t v = 0;
      if (std::from_chars(first, last, v).ec == std::errc()) {
        out += std::to_string(v);
        return;
      }
    } else {
      std::uint64_t v = 0;
      if (std::from_chars(first, last, v).ec == std::errc()) {
        out += std::to_string(v);
        return;
      }
    }
  }
  double d = 0;
  std::from_chars(first, last, d);  // validated by the reader: within a double's range
  out += nlohmann::json(d).dump();
}

// Per depth: the decoded keys and canonical values of the current object's members.
struct Slot {
  std::size_t key_begin, key_size, value_begin, value_end;
};
struct Level {
  std::string keys;
  std::string values;
  std::vector<Slot> slots;
};

class Canonicaliser {
 public:
  Canonicaliser(Reader& reader, std::vector<std::unique_ptr<Level>>& levels) : reader_(reader), levels_(levels) {}

  void value(std::string& out, std::size_t depth, const CanonicalOptions* top) {
    switch (reader_.peek()) {
      case Type::object:
        object(out, depth, top);
        return;
      case Type::array: {
        reader_.begin_array();
        out.push_back('[');
        bool first = true;
        while (reader_.next_element()) {
          if (!first) out.push_back(',');
          first = false;
          value(out, depth + 1, nullptr);
        }
        out.push_back(']');
        return;
      }
      case Type::string:
        append_string(reader_.string_view(), out, Utf8::pass_through);  // validated by the reader
        return;
      case Type::number: {
        const std::string_view text = reader_.number_text();
        // Plain integers of up to 18 characters fit int64 and are canonical as written.
        if (text.size() <= 18 && text != "-0" && text.find_first_of(".eE") == std::string_view::npos) {
          out.append(text);
        } else {
          append_number(text, out);
        }
        return;
      }
      case Type::boolean:
        out += reader_.boolean() ? "true" : "false";
        return;
      case Type::null:
        reader_.null();
        out += "null";
        return;
    }
  }

 private:
  void object(std::string& out, std::size_t depth, const CanonicalOptions* top) {
    while (levels_.size() <= depth) levels_.push_back(std::make_unique<Level>());
    Level& level = *levels_[depth];  // behind a pointer: stays valid in the recursion
    level.keys.clear();
    level.values.clear();
    level.slots.clear();
    reader_.begin_object();
    std::string_view key;
    while (reader_.next_member(key)) {
      Slot slot{level.keys.size(), key.size(), 0, 0};
      level.keys.append(key);
      const std::string_view name = std::string_view(level.keys).substr(slot.key_begin, slot.key_size);
      const bool dropped = top != nullptr && std::find(top->drop.begin(), top->drop.end(), name) != top->drop.end();
      std::size_t value_start = 0;
      if (top != nullptr && top->top_level != nullptr) {
        top->top_level->emplace_back(std::string(name), std::string_view());
        reader_.peek();  // skips whitespace: the value starts here
        value_start = reader_.offset();
      }
      if (dropped) {
        reader_.skip();
      } else {
        slot.value_begin = level.values.size();
        value(level.values, depth + 1, nullptr);
        slot.value_end = level.values.size();
        level.slots.push_back(slot);
      }
      if (top != nullptr && top->top_level != nullptr) {
        top->top_level->back().second = reader_.text().substr(value_start, reader_.offset() - value_start);
      }
    }
    const auto key_of = [&level](const Slot& slot) {
      return std::string_view(level.keys).substr(slot.key_begin, slot.key_size);
    };
    std::stable_sort(level.slots.begin(), level.slots.end(),
                     [&](const Slot& a, const Slot& b) { return key_of(a) < key_of(b); });
    out.push_back('{');
    for (std::size_t i = 0; i < level.slots.size(); ++i) {
      if (i > 0) out.push_back(',');
      append_string(key_of(level.slots[i]), out, Utf8::pass_through);
      out.push_back(':');
      const Slot& slot = level.slots[i];
      out.append(level.values, slot.value_begin, slot.value_end - slot.value_begin);
    }
    out.push_back('}');
  }

  Reader& reader_;
  std::vector<std::unique_ptr<Level>>& levels_;
};

}  // namespace

void append_canonical(Reader& reader, std::string& out, const CanonicalOptions& options) {
  thread_local std::vector<std::unique_ptr<Level>> levels;  // reused: no allocation once warm
  Canonicaliser(reader, levels).value(out, 0, &options);
}

std::string canonical(std::string_view text, const CanonicalOptions& options) {
  thread_local Reader reader({});  // reused for its scratch space
  reader.reset(text);
  std::string out;
  append_canonical(reader, out, options);
  reader.finish();
  return out;
}

}  // namespace ods::json
