#pragma once
// A DuckDB database file read as bytes, for a table's storage identity (docs/warehouses.md
// "DuckDB", "Storage identity"): what the file's headers say about where blocks are, and a digest
// of the whole bytes of given blocks. Read with pread, never through DuckDB, never written.
//
// The layout, as DuckDB 2.0.1 writes it (storage version 2.0.0, the one dbt-duckdb runs here;
// measured and read in DuckDB's storage sources): a main header of 4096 bytes (a checksum, then
// the magic "DUCK", the storage version number, four flag words, the first of which says whether
// the file is encrypted), two database headers at 4096 and 8192 (each a checksum, then the
// checkpoint iteration, the meta block, the free list, the block count, the block allocation size,
// the vector size and the storage version; the one with the higher iteration is current), then
// the blocks: block i at 12288 + i * allocation size, each beginning with its checksum (8 bytes).
// A checksum is 5381 xor, over the 8-byte words after it, of each word times a constant: a check
// against torn and misplaced reads, NOT a proof of content (the words' order does not count, two
// equal words cancel: two values swapped in an uncompressed segment leave it as it was). Hence the
// digest below hashes the blocks' whole bytes. Thread-safe; each call opens the file itself.
#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

namespace ods::duckdb {

// The current database header of a file whose format ODS knows.
struct DatabaseLayout {
  std::uint64_t iteration = 0;         // the checkpoint that wrote it
  std::uint64_t block_count = 0;       // blocks 0 .. block_count - 1 exist
  std::uint64_t block_alloc_size = 0;  // bytes per block, its checksum included
};

// The layout of `file`, or why ODS can't read it (unreadable, not a DuckDB file, encrypted, a
// storage version or block size ODS does not know, a header whose checksum does not hold, the
// file shorter than its headers).
std::expected<DatabaseLayout, std::string> read_database_layout(const std::filesystem::path& file);

// sha256 over the whole bytes of each of `block_ids`, in the order given (a block named twice is
// read twice), as 64 hex digits; or why not: the layout unreadable, a block id outside the file or
// past its end, a block whose stored checksum does not match its bytes (being written, or not
// where expected), or the current header's iteration moved while reading (a checkpoint ran
// meanwhile). A write-ahead log beside the file (`<file>.wal`) does not matter here: the caller's
// block list comes from a DuckDB that replayed it, and says whether it touched the table
// (storage_identity.h).
std::expected<std::string, std::string> digest_blocks(const std::filesystem::path& file,
                                                      const std::vector<std::int64_t>& block_ids);

}  // namespace ods::duckdb
