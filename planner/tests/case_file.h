#pragma once
// Reader for the sectioned `.case` files of planner/tests/cases/sql and cases/jinja (the
// format is in their README.md). Test-only; header-only so each test file stands alone.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ods::test_cases {

// The sorted `*.case` files directly in `dir`; empty when there are none or no such dir.
inline std::vector<std::filesystem::path> case_paths(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> paths;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".case") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// A GoogleTest-safe parameter name for a case file: its stem with [^A-Za-z0-9] as '_'.
inline std::string test_name(const std::filesystem::path& path) {
  std::string name = path.stem().string();
  for (char& c : name) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) c = '_';
  }
  return name;
}

// Decodes \n \r \t \v \f \\ and \xHH; any other backslash is kept as is.
inline std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (text[i] != '\\' || next == '\0') {
      out += text[i];
      continue;
    }
    const std::string_view simple = "nrtvf\\";
    const std::string_view decoded = "\n\r\t\v\f\\";
    if (const auto at = simple.find(next); at != std::string_view::npos) {
      out += decoded[at];
      ++i;
    } else if (next == 'x' && i + 3 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 2])) &&
               std::isxdigit(static_cast<unsigned char>(text[i + 3]))) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 2, 2)), nullptr, 16));
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Section name -> body. A line "=== name" starts a section; its body is the following lines
// up to the next section line or the end, joined by '\n' (the newline before the next
// section line, and the file's final newline, are not part of it). "=== name escaped"
// stores the body unescaped under `name`. Lines before the first section are comments.
inline std::map<std::string, std::string> read_sections(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string content = buffer.str();
  if (content.ends_with('\n')) content.pop_back();

  std::map<std::string, std::string> sections;
  std::string name, body;
  bool in_section = false, escaped = false, first_line = true;
  auto flush = [&] {
    if (in_section) sections[name] = escaped ? unescape(body) : body;
  };
  std::size_t pos = 0;
  while (pos <= content.size()) {
    std::size_t end = content.find('\n', pos);
    if (end == std::string::npos) end = content.size();
    const std::string_view line = std::string_view(content).substr(pos, end - pos);
    if (line.starts_with("=== ")) {
      flush();
      name = std::string(line.substr(4));
      escaped = name.ends_with(" escaped");
      if (escaped) name.resize(name.size() - 8);
      body.clear();
      in_section = true;
      first_line = true;
    } else if (in_section) {
      if (!first_line) body += '\n';
      body += line;
      first_line = false;
    }
    pos = end + 1;
  }
  flush();
  return sections;
}

}  // namespace ods::test_cases
