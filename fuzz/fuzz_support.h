#pragma once
// Shared by the fuzz targets (fuzz/*.cc): what a target does when an invariant breaks, and a
// scratch file for readers that take a path. Fuzz targets only; not product code.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <string_view>

namespace ods::fuzz {

// Reports a broken invariant on stderr and aborts, which libFuzzer records as a crash (with the
// input that caused it saved as crash-<sha1>).
[[noreturn]] inline void invariant_failed(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz invariant broken: %.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

inline void require(bool holds, std::string_view what, std::string_view detail = {}) {
  if (!holds) invariant_failed(what, detail);
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A refusal must say what went wrong (a code from the documented set) and where (a message that
// names `where`, e.g. the file name), never an empty sentence.
template <class E>
void require_documented_error(const E& error, std::initializer_list<std::string_view> codes, std::string_view where) {
  bool known = false;
  for (const std::string_view code : codes) known = known || error.code == code;
  require(known, "error code outside the documented set", error.code + ": " + error.message);
  require(!error.message.empty(), "an error without a message", error.code);
  require(error.message.find(where) != std::string::npos, "an error that does not say where",
          error.code + ": " + error.message);
}

// A file of this process (under $TMPDIR, or /tmp) rewritten with each input, for readers that
// take a path (the dbt artifacts, kubeconfig). `name` is its file name, e.g. "manifest.json".
class ScratchFile {
 public:
  explicit ScratchFile(std::string_view name) {
    const char* tmp = std::getenv("TMPDIR");
    dir_ = std::filesystem::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") /
           ("ods-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = dir_ / std::string(name);
  }
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
    std::filesystem::remove(dir_, ignored);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  // Replaces the file's content with `text` and returns its path.
  const std::filesystem::path& write(std::string_view text) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return path_;
  }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
};

}  // namespace ods::fuzz
