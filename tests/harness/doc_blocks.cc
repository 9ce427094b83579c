#include "harness/doc_blocks.h"

#include <sstream>

namespace ods::testing {

namespace {

// The number of leading '#' of a Markdown heading line; 0 for any other line.
std::size_t heading_level(const std::string& line) {
  std::size_t level = 0;
  while (level < line.size() && line[level] == '#') ++level;
  return level > 0 && level < line.size() && line[level] == ' ' ? level : 0;
}

}  // namespace

std::vector<std::string> sh_blocks_in_section(const std::string& markdown, const std::string& heading) {
  const std::size_t level = heading_level(heading);
  std::vector<std::string> blocks;
  std::istringstream lines(markdown);
  std::string line;
  bool in_section = false;
  bool in_fence = false;  // inside any fenced block
  bool in_sh = false;     // inside a ```sh block of the section
  std::string block;
  while (std::getline(lines, line)) {
    if (!in_fence && line == heading) {
      in_section = true;
      continue;
    }
    if (!in_fence && in_section) {
      const std::size_t other = heading_level(line);
      if (other > 0 && other <= level) break;
    }
    if (line.rfind("```", 0) == 0) {
      if (in_fence) {
        if (in_sh) blocks.push_back(block);
        in_fence = in_sh = false;
      } else {
        in_fence = true;
        in_sh = in_section && line == "```sh";
        block.clear();
      }
      continue;
    }
    if (in_sh) block += line + "\n";
  }
  return blocks;
}

std::string first_sh_block_in_section(const std::string& markdown, const std::string& heading) {
  auto blocks = sh_blocks_in_section(markdown, heading);
  return blocks.empty() ? "" : blocks.front();
}

bool replace_once(std::string& text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos) return false;
  text.replace(at, from.size(), to);
  return true;
}

int replace_all(std::string& text, const std::string& from, const std::string& to) {
  int count = 0;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
    ++count;
  }
  return count;
}

}  // namespace ods::testing
