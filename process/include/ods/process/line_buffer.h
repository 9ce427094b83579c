#pragma once
// Splits a byte stream arriving in arbitrary chunks into lines.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ods::process {

class LineBuffer {
 public:
  using Sink = std::function<void(std::string_view line)>;

  // Lines longer than `max_line_bytes` (> 0) are delivered in pieces of that size.
  explicit LineBuffer(std::size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

  // Appends `bytes`; calls `sink` for every line completed by them, without the '\n'.
  void feed(std::string_view bytes, const Sink& sink);
  // End of stream: delivers a pending last line that had no '\n' (nothing when none).
  void finish(const Sink& sink);

 private:
  std::size_t max_line_bytes_;
  std::string pending_;
};

}  // namespace ods::process
