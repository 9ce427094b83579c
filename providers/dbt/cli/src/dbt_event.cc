#include "ods/dbt/cli/dbt_event.h"

namespace ods::dbt {
namespace {

std::string string_field(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

DbtEvent parse_dbt_line(process::Stream stream, std::string_view line) {
  DbtEvent event;
  event.stream = stream;
  event.line = std::string(line);
  const auto first = line.find_first_not_of(" \t");
  if (first != std::string_view::npos && line[first] == '{') {
    auto doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (doc.is_object()) {
      auto info = doc.find("info");
      if (info != doc.end() && info->is_object()) {
        std::string name = string_field(*info, "name");
        if (!name.empty()) {
          event.name = std::move(name);
          event.level = string_field(*info, "level");
          event.msg = string_field(*info, "msg");
          event.invocation_id = string_field(*info, "invocation_id");
          auto data = doc.find("data");
          event.data = data != doc.end() && data->is_object() ? std::move(*data) : nlohmann::json::object();
          return event;
        }
      }
    }
  }
  event.msg = event.line;
  return event;
}

std::string strip_ansi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x1b') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '[') {
      // CSI: ESC [ parameters... final byte in 0x40..0x7E.
      std::size_t j = i + 2;
      while (j < text.size() && !(text[j] >= 0x40 && text[j] <= 0x7e)) ++j;
      i = j;
    } else {
      ++i;  // a two-byte escape
    }
  }
  return out;
}

}  // namespace ods::dbt
