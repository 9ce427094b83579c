#pragma once
// Streaming reader for large JSON artifacts. The top-level object's members are either
// skipped without building anything, delivered whole, or, for big maps/lists like manifest
// `nodes`, delivered one entry at a time as a small DOM (plus members kept as raw text)
// that the sink converts and discards. Memory stays proportional to one entry.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "json_reader.h"
#include "ods/base/result.h"

namespace ods::dbt::internal {

enum class SectionMode {
  whole,       // the member's value is delivered whole (any JSON type)
  entry_map,   // an object; each member's value (an object) is delivered as an entry
  entry_list,  // an array; each element (an object) is delivered as an entry
};

struct SectionSpec {
  std::string_view name;
  SectionMode mode;
};

// Receives the sections. Used by one stream at a time.
class StreamSink {
 public:
  virtual ~StreamSink() = default;
  // What to do with top-level member `key` of the entry being read in `section`
  // (`partial` holds the members built so far). Skipped members cost no allocation.
  virtual Keep keep_key(std::size_t section, const EntrySoFar& partial, std::string_view key) const = 0;
  // A SectionMode::whole section's value. Return false to stop the stream (the sink keeps its error).
  virtual bool on_value(std::size_t section, Json&& value) = 0;
  // One entry of a SectionMode::entry_map (key = member name) or SectionMode::entry_list (key = index) section, with
  // the members kept as raw text (views valid during the call). Return false to stop.
  virtual bool on_entry(std::size_t section, std::string&& key, Json&& entry, const RawMembers& raw) = 0;
  // After each entry and whole value handed over: the stream itself reads nothing before byte
  // `offset` of the text again (what the sink keeps of it, e.g. raw members, aside).
  virtual void on_read_up_to(std::size_t /*offset*/) {}
};

// The code stream_sections returns when the sink stopped the stream.
inline constexpr std::string_view kStoppedBySink = "stopped_by_sink";

// Streams `text` (a JSON object) through `sink`. `file` names the artifact in errors.
// Members not in `sections` are skipped. Returns which sections were present.
// Errors: "invalid_artifact" for malformed JSON (ods::json::Reader's rules: RFC 8259, UTF-8
// validated, nesting deeper than 512 levels refused; the message gives the byte offset and
// the member path being read) or a section of the wrong type (e.g. "manifest.json: nodes:
// expected an object"); kStoppedBySink when the sink returned false.
[[nodiscard]] Result<std::vector<bool>> stream_sections(std::string_view text, std::string_view file,
                                                        std::span<const SectionSpec> sections, StreamSink& sink);

}  // namespace ods::dbt::internal
