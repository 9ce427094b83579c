#pragma once
// A read-only memory map of a whole file (RAII). Pages are read on demand by the kernel,
// so parsing a 300 MB artifact needs no 300 MB buffer of our own.
#include <filesystem>
#include <string_view>

#include "ods/base/result.h"

namespace ods::dbt::internal {

class MappedFile final {
 public:
  // Maps `path` read-only. Errors: "missing_artifact" naming the file and the OS reason.
  [[nodiscard]] static Result<MappedFile> open(const std::filesystem::path& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // The file's bytes; valid while *this lives. Empty for an empty file.
  std::string_view text() const { return {data_, size_}; }

  // Gives the pages wholly before byte `offset` back to the kernel (madvise MADV_DONTNEED),
  // so a long sequential read holds only what is still ahead of it: the memory of a read is
  // then its records', not the file's size on top. The bytes stay readable (read again from
  // the file when touched). In steps of at least 4 MiB; offsets at or before the last step
  // do nothing. Not thread-safe: one caller at a time.
  void release_before(std::size_t offset);

 private:
  MappedFile(const char* data, std::size_t size) : data_(data), size_(size) {}
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t released_ = 0;  // bytes from the start given back
};

}  // namespace ods::dbt::internal
