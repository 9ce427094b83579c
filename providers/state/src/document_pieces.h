#pragma once
// Splitting snapshot and plan documents into content-addressed pieces, and putting them
// back together byte for byte. Internal to providers/state; pure (no database).
//
// A document that is a JSON object in nlohmann's compact form (what the planner writes:
// sorted keys, no spaces) has each large member (an object or array of at least
// kMinPiecesPerMember elements: the snapshot's "nodes" and "sources", the plan's
// "entries") cut into pieces, one per element, each named by the SHA-256 of its text. The
// rest (the "skeleton") keeps those members empty. The ordered list of
// [member, key (null for array elements), piece digest] entries is cut into chunks at
// content-defined boundaries (a hash of the key, or of the digest for array elements), so
// that changing, adding or removing one element changes one chunk; the manifest lists the
// chunks' digests. Unchanged elements, chunks and manifests are stored once however many
// documents use them. Any other document (not an object, another spelling, no large
// member) is kept whole as its skeleton, with no chunks.
#include <map>
#include <string>
#include <vector>

#include "ods/base/result.h"

namespace ods::state::internal {

inline constexpr std::size_t kMinPiecesPerMember = 8;
inline constexpr std::size_t kDigestHexLength = 64;

struct DocumentChunk {
  std::string digest;                      // hex SHA-256 of entries
  std::string entries;                     // JSON array of [member, key or null, piece digest]
  std::vector<std::string> piece_digests;  // the entries' piece digests, in order
};

struct SplitDocument {
  std::string digest;                         // hex SHA-256 of the whole document
  std::string skeleton;                       // the document without its pieces; the whole document when unsplit
  std::vector<DocumentChunk> chunks;          // empty when unsplit
  std::map<std::string, std::string> pieces;  // hex digest -> piece text
  std::string manifest;                       // the chunks' digests concatenated (hex); empty when unsplit
  std::string manifest_digest;                // hex SHA-256 of manifest; empty when unsplit
};

// Hex SHA-256 of `data` (no "sha256:" prefix).
std::string hex_digest(std::string_view data);

SplitDocument split_document(const std::string& document);

// The document that `skeleton`, the chunks' entries (in manifest order) and `pieces` make.
// Errors: "corrupt" when a piece is missing or a part is not the JSON expected.
[[nodiscard]] ods::Result<std::string> assemble_document(const std::string& skeleton,
                                                         const std::vector<std::string>& chunk_entries,
                                                         const std::map<std::string, std::string>& pieces);

// The chunk digests a manifest lists (64 hex digits each).
std::vector<std::string> manifest_chunks(const std::string& manifest);

}  // namespace ods::state::internal
