#include "ods/duckdb/storage_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <system_error>

#include "ods/base/sha256.h"

namespace ods::duckdb {

namespace {

constexpr std::uint64_t kFileHeaderSize = 4096;
constexpr std::uint64_t kBlocksStart = 3 * kFileHeaderSize;
constexpr std::uint64_t kChecksumSize = 8;
constexpr std::size_t kMagicOffset = 8;
// The main header's version number from storage 2.0.0 on ("deprecated": the database header holds
// the storage version), and that storage version: the only ones measured here.
constexpr std::uint64_t kMainVersionFromV2 = 999;
constexpr std::uint64_t kStorageVersion2dot0 = 69;
constexpr std::uint64_t kEncryptedFlag = 1;
constexpr std::uint64_t kMinBlockAllocSize = 16384;
constexpr std::uint64_t kMaxBlockAllocSize = 262144;
constexpr std::uint64_t kChecksumSeed = 5381;
constexpr std::uint64_t kChecksumMultiplier = 0xbf58476d1ce4e5b9ULL;

// Closes the descriptor it holds.
class OpenFile {
 public:
  explicit OpenFile(const std::filesystem::path& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~OpenFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  bool ok() const { return fd_ >= 0; }
  // Reads exactly `size` bytes at `offset`; false on an error or a short read.
  bool read(std::uint64_t offset, std::size_t size, std::string& out) const {
    out.resize(size);
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::pread(fd_, out.data() + done, size - done, static_cast<off_t>(offset + done));
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  int fd_;
};

std::uint64_t word_at(const std::string& bytes, std::size_t offset) {
  std::uint64_t word = 0;
  std::memcpy(&word, bytes.data() + offset, sizeof word);  // little-endian, as DuckDB writes it here
  return word;
}

// DuckDB's block checksum of `bytes` after its first 8 (whose length is a multiple of 8 here).
bool checksum_holds(const std::string& bytes) {
  std::uint64_t sum = kChecksumSeed;
  for (std::size_t at = kChecksumSize; at + 8 <= bytes.size(); at += 8) sum ^= word_at(bytes, at) * kChecksumMultiplier;
  return (bytes.size() - kChecksumSize) % 8 == 0 && sum == word_at(bytes, 0);
}

std::expected<void, std::string> check_main_header(const OpenFile& file) {
  std::string header;
  if (!file.read(0, kFileHeaderSize, header)) return std::unexpected(std::string("its main header can't be read"));
  if (header.compare(kMagicOffset, 4, "DUCK") != 0) return std::unexpected(std::string("it is no DuckDB database"));
  if (!checksum_holds(header)) return std::unexpected(std::string("its main header's checksum does not hold"));
  const std::uint64_t version = word_at(header, kMagicOffset + 4);
  if (version != kMainVersionFromV2)
    return std::unexpected("its storage version number " + std::to_string(version) + " is not one ODS knows");
  if (word_at(header, kMagicOffset + 12) & kEncryptedFlag) return std::unexpected(std::string("it is encrypted"));
  return {};
}

// The database header at `offset`, or why not usable.
std::expected<DatabaseLayout, std::string> database_header(const OpenFile& file, std::uint64_t offset) {
  std::string header;
  if (!file.read(offset, kFileHeaderSize, header))
    return std::unexpected(std::string("a database header can't be read"));
  if (!checksum_holds(header)) return std::unexpected(std::string("a database header's checksum does not hold"));
  DatabaseLayout layout{word_at(header, 8), word_at(header, 32), word_at(header, 40)};
  const std::uint64_t storage_version = word_at(header, 56);
  if (storage_version != kStorageVersion2dot0)
    return std::unexpected("its storage version " + std::to_string(storage_version) + " is not one ODS knows");
  const std::uint64_t size = layout.block_alloc_size;
  if (size < kMinBlockAllocSize || size > kMaxBlockAllocSize || (size & (size - 1)) != 0)
    return std::unexpected("its block size " + std::to_string(size) + " is not one ODS knows");
  return layout;
}

std::expected<DatabaseLayout, std::string> read_layout(const OpenFile& file, const std::filesystem::path& path) {
  if (!file.ok()) return std::unexpected(std::string("it can't be opened"));
  if (auto main = check_main_header(file); !main) return std::unexpected(main.error());
  auto first = database_header(file, kFileHeaderSize);
  auto second = database_header(file, 2 * kFileHeaderSize);
  if (!first && !second) return std::unexpected(first.error());
  // The current header is the one with the higher iteration; an unusable one never is.
  // (DuckDB may cut free blocks off the file's end: the blocks listed are checked as they are read.)
  DatabaseLayout current = !second || (first && first->iteration > second->iteration) ? *first : *second;
  std::error_code error;
  if (std::filesystem::file_size(path, error) < kBlocksStart || error)
    return std::unexpected(std::string("it is shorter than its headers"));
  return current;
}

}  // namespace

std::expected<DatabaseLayout, std::string> read_database_layout(const std::filesystem::path& file) {
  OpenFile open(file);
  auto layout = read_layout(open, file);
  if (!layout) return std::unexpected(file.string() + ": " + layout.error());
  return layout;
}

std::expected<std::string, std::string> digest_blocks(const std::filesystem::path& file,
                                                      const std::vector<std::int64_t>& block_ids) {
  // A write-ahead log beside the file is no reason to refuse: dbt-duckdb leaves one after each
  // call (measured), and the statement that listed the blocks saw its changes replayed (a table
  // they touch has segments not on disk, in-memory updates or deleted rows: no block list taken).
  OpenFile open(file);
  auto layout = read_layout(open, file);
  if (!layout) return std::unexpected(file.string() + ": " + layout.error());
  std::string block;
  std::string digests;
  digests.reserve(block_ids.size() * 80);
  for (const std::int64_t id : block_ids) {
    const std::string name = file.string() + ": block " + std::to_string(id);
    if (id < 0 || static_cast<std::uint64_t>(id) >= layout->block_count)
      return std::unexpected(name + " is outside the file's " + std::to_string(layout->block_count) + " blocks");
    if (!open.read(kBlocksStart + static_cast<std::uint64_t>(id) * layout->block_alloc_size, layout->block_alloc_size,
                   block))
      return std::unexpected(name + " can't be read (the file ends before it)");
    if (!checksum_holds(block)) return std::unexpected(name + "'s checksum does not match its bytes");
    digests += std::to_string(id) + ":" + sha256_hex(block) + "\n";
  }
  auto after = read_layout(open, file);
  if (!after || after->iteration != layout->iteration)
    return std::unexpected(file.string() + " was checkpointed while its blocks were read");
  return sha256_hex(digests);
}

}  // namespace ods::duckdb
