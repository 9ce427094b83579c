#include "file_bytes.h"

#include <fstream>
#include <sstream>
#include <system_error>

namespace ods::cli {

namespace fs = std::filesystem;

std::optional<std::string> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(text).str();
}

Result<void> write_bytes(const fs::path& path, const std::string& bytes, fs::perms mode) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) return fail("io", "cannot write " + path.string());
  }
  std::error_code ec;
  fs::permissions(path, mode, ec);
  if (ec) return fail("io", "cannot set the mode of " + path.string() + ": " + ec.message());
  return {};
}

}  // namespace ods::cli
