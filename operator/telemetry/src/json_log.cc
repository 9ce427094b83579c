#include "ods/telemetry/json_log.h"

#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "ods/json/writer.h"

namespace ods::telemetry {

namespace {

class StderrOutput final : public LogOutput {
 public:
  void write_line(std::string_view line) override {
    std::lock_guard lock(mutex_);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }

 private:
  std::mutex mutex_;  // root loggers with their own locks may share this output
};

// Appends `s` as a JSON string. Valid UTF-8 goes through ods::json; otherwise each byte >= 0x80
// becomes \u00XX (the line stays valid JSON and the bytes stay recoverable).
void append_json_string(std::string_view s, std::string& out) {
  std::string escaped;
  try {
    json::append_string(s, escaped);
    out += escaped;
    return;
  } catch (const json::InvalidUtf8&) {
  }
  out += '"';
  std::size_t start = 0;
  auto flush_ascii = [&](std::size_t end) {
    if (end == start) return;
    escaped.clear();
    json::append_string(s.substr(start, end - start), escaped);
    out.append(escaped, 1, escaped.size() - 2);  // without its quotes
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto byte = static_cast<unsigned char>(s[i]);
    if (byte < 0x80) continue;
    flush_ascii(i);
    std::array<char, 7> hex{};
    std::snprintf(hex.data(), hex.size(), "\\u%04x", byte);
    out += hex.data();
    start = i + 1;
  }
  flush_ascii(s.size());
  out += '"';
}

template <typename T>
void append_number(T value, std::string& out) {
  std::array<char, 32> buffer{};
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), ec == std::errc() ? end : buffer.data());
}

void append_value(const LogField::Value& value, std::string& out) {
  if (const auto* text = std::get_if<std::string>(&value)) {
    append_json_string(*text, out);
  } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
    append_number(*i, out);
  } else if (const auto* u = std::get_if<std::uint64_t>(&value)) {
    append_number(*u, out);
  } else if (const auto* d = std::get_if<double>(&value)) {
    if (std::isnan(*d))
      out += "\"nan\"";
    else if (std::isinf(*d))
      out += *d > 0 ? "\"inf\"" : "\"-inf\"";
    else
      append_number(*d, out);
  } else {
    out += std::get<bool>(value) ? "true" : "false";
  }
}

void append_member(std::string_view key, std::string& out) {
  if (out.size() > 1) out += ',';
  append_json_string(key, out);
  out += ':';
}

// 2026-11-30T02:25:18.123Z
std::string rfc3339_utc_millis(std::chrono::system_clock::time_point ts) {
  const auto millis = std::chrono::floor<std::chrono::milliseconds>(ts);
  const auto seconds = std::chrono::floor<std::chrono::seconds>(millis);
  const std::time_t t = std::chrono::system_clock::to_time_t(seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>((millis - seconds).count()));
  return text.data();
}

}  // namespace

std::string_view to_string(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warn:
      return "warn";
    case LogLevel::error:
      return "error";
  }
  return "info";
}

bool parse_log_level(std::string_view text, LogLevel& level) {
  for (LogLevel candidate : {LogLevel::debug, LogLevel::info, LogLevel::warn, LogLevel::error})
    if (text == to_string(candidate)) {
      level = candidate;
      return true;
    }
  if (text == "warning") {
    level = LogLevel::warn;
    return true;
  }
  return false;
}

std::shared_ptr<LogOutput> stderr_log_output() {
  static const std::shared_ptr<LogOutput> kOutput = std::make_shared<StderrOutput>();
  return kOutput;
}

std::string format_log_line(std::chrono::system_clock::time_point ts, LogLevel level, std::string_view logger,
                            std::string_view msg, LogFields fields) {
  std::string line = "{";
  append_member("ts", line);
  append_json_string(rfc3339_utc_millis(ts), line);
  append_member("level", line);
  append_json_string(to_string(level), line);
  append_member("logger", line);
  append_json_string(logger, line);
  append_member("msg", line);
  append_json_string(msg, line);
  for (const LogField& field : fields) {
    append_member(field.key, line);
    append_value(field.value, line);
  }
  line += '}';
  return line;
}

struct Logger::Shared {
  std::shared_ptr<LogOutput> output;
  const Clock* clock = nullptr;
  std::atomic<LogLevel> threshold;
  std::mutex write_mutex;
};

Logger::Logger(std::string name, LogLevel threshold, std::shared_ptr<LogOutput> output, const Clock& clock)
    : name_(std::move(name)), shared_(std::make_shared<Shared>()) {
  shared_->output = output ? std::move(output) : stderr_log_output();
  shared_->clock = &clock;
  shared_->threshold = threshold;
}

Logger::Logger(std::string name, std::shared_ptr<Shared> shared) : name_(std::move(name)), shared_(std::move(shared)) {}

Logger Logger::child(std::string_view name) const {
  return Logger(name_.empty() ? std::string(name) : name_ + "." + std::string(name), shared_);
}

void Logger::set_threshold(LogLevel threshold) { shared_->threshold = threshold; }

LogLevel Logger::threshold() const { return shared_->threshold.load(); }

void Logger::log(LogLevel level, std::string_view msg, LogFields fields) const {
  if (!enabled(level)) return;
  const std::string line = format_log_line(shared_->clock->now(), level, name_, msg, fields);
  std::lock_guard lock(shared_->write_mutex);
  shared_->output->write_line(line);
}

}  // namespace ods::telemetry
