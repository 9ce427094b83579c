#include "ods/process/line_buffer.h"

namespace ods::process {

void LineBuffer::feed(std::string_view bytes, const Sink& sink) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    const std::size_t take = newline == std::string_view::npos ? bytes.size() : newline;
    const std::size_t room = max_line_bytes_ - pending_.size();
    if (take > room || (take == room && newline != std::string_view::npos)) {
      // A full piece: a line of exactly max_line_bytes, or a piece of a longer one.
      pending_.append(bytes.substr(0, room));
      bytes.remove_prefix(room);
      if (take == room) bytes.remove_prefix(1);  // its '\n'
      sink(pending_);
      pending_.clear();
      continue;
    }
    pending_.append(bytes.substr(0, take));
    if (newline == std::string_view::npos) return;
    bytes.remove_prefix(take + 1);
    sink(pending_);
    pending_.clear();
  }
}

void LineBuffer::finish(const Sink& sink) {
  if (pending_.empty()) return;
  sink(pending_);
  pending_.clear();
}

}  // namespace ods::process
