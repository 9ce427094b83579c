#pragma once
// Structured logs: one JSON object per line, as log collectors (Loki, Elasticsearch, Cloud
// Logging) read them from a container's stderr:
//
//   {"ts":"2026-11-30T02:25:18.123Z","level":"info","logger":"controller.dbtrun",
//    "msg":"run succeeded","namespace":"analytics","run":"shop-7","built":3,"reused":9}
//
// ts is RFC 3339 in UTC with milliseconds; level is debug|info|warn|error; then the message and
// the fields in the order given (a field named like one of the first four is written as given,
// after them). Strings are escaped as JSON requires (ods::json); bytes that are not valid UTF-8
// are written as \u00XX escapes of each byte, so a line is always valid JSON. Non-finite
// numbers are written as strings ("nan", "inf", "-inf").
//
// Loggers are cheap values that share one LogOutput (its mutex keeps lines whole when threads
// log at once); all members are thread-safe.
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "ods/base/clock.h"

namespace ods::telemetry {

enum class LogLevel { debug = 0, info = 1, warn = 2, error = 3 };

// "debug", "info", "warn", "error".
std::string_view to_string(LogLevel level);
// Parses one of the names above (also "warning"); false for anything else.
bool parse_log_level(std::string_view text, LogLevel& level);

// Where finished lines go. write_line gets one complete line without its '\n'.
class LogOutput {
 public:
  virtual ~LogOutput() = default;
  // Writes `line` and a newline as one unit; must not throw. A logger and its children call it
  // under one lock; an output shared by several root loggers locks itself (stderr's does).
  virtual void write_line(std::string_view line) = 0;
};
// Process stderr, flushed after every line. One shared instance.
std::shared_ptr<LogOutput> stderr_log_output();

// One key/value field of a line. Integers, floating point numbers, booleans and text.
struct LogField {
  using Value = std::variant<std::string, std::int64_t, std::uint64_t, double, bool>;

  LogField(std::string k, std::string_view v) : key(std::move(k)), value(std::string(v)) {}
  LogField(std::string k, const char* v) : key(std::move(k)), value(std::string(v)) {}
  LogField(std::string k, const std::string& v) : key(std::move(k)), value(v) {}
  LogField(std::string k, bool v) : key(std::move(k)), value(v) {}
  template <typename T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) LogField(std::string k, T v) : key(std::move(k)) {
    if constexpr (std::is_signed_v<T>)
      value = static_cast<std::int64_t>(v);
    else
      value = static_cast<std::uint64_t>(v);
  }
  template <typename T>
  requires std::is_floating_point_v<T> LogField(std::string k, T v)
      : key(std::move(k)), value(static_cast<double>(v)) {}

  std::string key;
  Value value;
};
using LogFields = std::initializer_list<LogField>;

class Logger {
 public:
  // A root logger named `name` writing lines at `threshold` and above to `output` (stderr when
  // null), stamped by `clock`, which outlives the logger and its children.
  explicit Logger(std::string name, LogLevel threshold = LogLevel::info, std::shared_ptr<LogOutput> output = nullptr,
                  const Clock& clock = system_clock());

  // A logger named "<this name>.<name>" sharing this one's output, clock and threshold (a later
  // set_threshold on either changes both).
  Logger child(std::string_view name) const;
  const std::string& name() const { return name_; }

  void set_threshold(LogLevel threshold);
  LogLevel threshold() const;
  bool enabled(LogLevel level) const { return level >= threshold(); }

  // Writes one line when `level` reaches the threshold; otherwise does nothing.
  void log(LogLevel level, std::string_view msg, LogFields fields = {}) const;
  void debug(std::string_view msg, LogFields fields = {}) const { log(LogLevel::debug, msg, fields); }
  void info(std::string_view msg, LogFields fields = {}) const { log(LogLevel::info, msg, fields); }
  void warn(std::string_view msg, LogFields fields = {}) const { log(LogLevel::warn, msg, fields); }
  void error(std::string_view msg, LogFields fields = {}) const { log(LogLevel::error, msg, fields); }

  struct Shared;  // output, clock, threshold: defined in the .cc

 private:
  Logger(std::string name, std::shared_ptr<Shared> shared);
  std::string name_;
  std::shared_ptr<Shared> shared_;
};

// The line log() writes (without '\n'): exposed for tests and for callers that buffer.
std::string format_log_line(std::chrono::system_clock::time_point ts, LogLevel level, std::string_view logger,
                            std::string_view msg, LogFields fields);

}  // namespace ods::telemetry
