// The digest key: $ODS_DIGEST_KEY or the key file (see digest_key.h).
#include "digest_key.h"

#include <fcntl.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ods::cli {

namespace fs = std::filesystem;

namespace {

std::string octal_mode(mode_t mode) {
  std::ostringstream out;
  out << '0' << std::oct << (mode & 0777);
  return out.str();
}

std::string trim_line_end(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

std::string digest_key_hint() {
  return "set $ODS_DIGEST_KEY or run `ods state key --create` to fingerprint what it reads with a keyed digest";
}

fs::path digest_key_path(const Environment& env) {
  const std::string xdg = env.getenv("XDG_CONFIG_HOME");
  if (!xdg.empty()) return fs::path(xdg) / "ods" / "digest.key";
  const std::string home = env.getenv("HOME");
  if (!home.empty()) return fs::path(home) / ".config" / "ods" / "digest.key";
  return {};
}

Result<std::optional<DigestKey>> load_digest_key(const Environment& env) {
  if (std::string key = env.getenv("ODS_DIGEST_KEY"); !key.empty()) {
    if (key.size() < kMinDigestKeyBytes) {
      return fail("digest_key", "$ODS_DIGEST_KEY is shorter than " + std::to_string(kMinDigestKeyBytes) +
                                    " bytes; use a random key (e.g. `openssl rand -hex 32`)");
    }
    return DigestKey{std::move(key), "$ODS_DIGEST_KEY"};
  }
  const fs::path path = digest_key_path(env);
  if (path.empty()) return std::optional<DigestKey>{};
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return std::optional<DigestKey>{};
    return fail("digest_key", path.string() + ": " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) return fail("digest_key", path.string() + ": not a regular file");
  if ((info.st_mode & 077) != 0) {
    return fail("digest_key", path.string() + ": group or others can read or write it (mode " +
                                  octal_mode(info.st_mode) + "); run `chmod 600 " + path.string() + "`");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) return fail("digest_key", path.string() + ": can't be read");
  std::string key = trim_line_end(text.str());
  if (key.size() < kMinDigestKeyBytes) {
    return fail("digest_key", path.string() + ": the key is shorter than " + std::to_string(kMinDigestKeyBytes) +
                                  " bytes; remove the file and run `ods state key --create`");
  }
  return DigestKey{std::move(key), path.string()};
}

Result<fs::path> create_digest_key(const Environment& env) {
  const fs::path path = digest_key_path(env);
  if (path.empty()) return fail("digest_key", "neither $XDG_CONFIG_HOME nor $HOME is set: no place for the key file");
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return fail("digest_key", path.parent_path().string() + ": " + ec.message());
  ::chmod(path.parent_path().c_str(), 0700);  // best effort: the file's own mode is what is checked
  std::array<unsigned char, 32> random{};
  if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1) {
    return fail("digest_key", "the system's random source failed; no key written");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (const unsigned char b : random) {
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
  }
  hex += '\n';
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return fail("digest_key", path.string() + ": already exists; nothing changed");
    return fail("digest_key", path.string() + ": " + std::strerror(errno));
  }
  const bool written = ::write(fd, hex.data(), hex.size()) == static_cast<ssize_t>(hex.size());
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    ::unlink(path.c_str());
    return fail("digest_key", path.string() + ": could not be written; nothing kept");
  }
  return path;
}

}  // namespace ods::cli
