#pragma once
// One line of dbt's output, read as a structured log event when it is one.
// With `--log-format json` every stdout line dbt writes is an object
//   {"info": {"name", "level", "msg", "invocation_id", "ts", ...}, "data": {...}}
// (dbt-core 1.10, log_version 3); tracebacks and click's usage errors stay plain text.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "ods/process/child_process.h"

namespace ods::dbt {

struct DbtEvent {  // NOLINT(bugprone-exception-escape): clang-tidy 16 blames nlohmann's noexcept moves
  process::Stream stream = process::Stream::standard_output;
  std::string name;           // info.name, e.g. "LogStartLine"; empty for a plain-text line
  std::string level;          // info.level: "debug", "info", "warn" or "error"; empty for plain text
  std::string msg;            // info.msg (may carry ANSI colour codes), or the plain line as printed
  std::string invocation_id;  // info.invocation_id; empty for plain text
  nlohmann::json data;        // the event's `data` object; null for plain text
  std::string line;           // the line as dbt printed it (without its '\n')

  [[nodiscard]] bool is_plain() const { return name.empty(); }
};

// Reads one output line. A JSON object whose info.name is a string is an event (on either
// stream); anything else is kept as plain text with `msg` = the line. Never fails.
[[nodiscard]] DbtEvent parse_dbt_line(process::Stream stream, std::string_view line);

// `text` without ANSI escape sequences (dbt colours the status inside `msg`).
[[nodiscard]] std::string strip_ansi(std::string_view text);

}  // namespace ods::dbt
