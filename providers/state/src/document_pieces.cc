#include "document_pieces.h"

#include <cstdint>

#include <nlohmann/json.hpp>

#include "store_support.h"

namespace ods::state::internal {
namespace {

using nlohmann::json;

// Average chunk length (entries): a boundary follows an entry whose hash is 0 modulo this.
constexpr std::uint32_t kChunkSpread = 8;

std::uint32_t fnv1a(std::string_view text) {
  std::uint32_t hash = 2166136261u;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 16777619u;
  }
  return hash;
}

bool splits(const json& value) {
  return (value.is_object() || value.is_array()) && value.size() >= kMinPiecesPerMember;
}

class ChunkBuilder {
 public:
  explicit ChunkBuilder(SplitDocument& out) : out_(out) {}

  void add(const std::string& member, const json& key, const std::string& piece, std::string_view boundary_text) {
    const std::string digest = hex_digest(piece);
    out_.pieces.emplace(digest, piece);
    entries_.push_back(json::array({member, key, digest}));
    digests_.push_back(digest);
    if (fnv1a(boundary_text) % kChunkSpread == 0) close();
  }

  void close() {
    if (entries_.empty()) return;
    DocumentChunk chunk;
    chunk.entries = entries_.dump();
    chunk.digest = hex_digest(chunk.entries);
    chunk.piece_digests = std::move(digests_);
    out_.manifest += chunk.digest;
    out_.chunks.push_back(std::move(chunk));
    entries_ = json::array();
    digests_.clear();
  }

 private:
  SplitDocument& out_;
  json entries_ = json::array();
  std::vector<std::string> digests_;
};

}  // namespace

std::string hex_digest(std::string_view data) { return content_digest(data).substr(7); }

SplitDocument split_document(const std::string& document) {
  SplitDocument out;
  out.digest = hex_digest(document);
  out.skeleton = document;
  json doc = json::parse(document, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.dump() != document) return out;
  bool any = false;
  for (const json& value : doc) any = any || splits(value);
  if (!any) return out;

  ChunkBuilder chunks(out);
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& member = it.key();
    json& value = it.value();
    if (!splits(value)) continue;
    if (value.is_object()) {
      for (const auto& [key, element] : value.items()) chunks.add(member, key, element.dump(), key);
      value = json::object();
    } else {
      for (const json& element : value) {
        const std::string piece = element.dump();
        chunks.add(member, nullptr, piece, piece);
      }
      value = json::array();
    }
    chunks.close();
  }
  out.skeleton = doc.dump();
  out.manifest_digest = hex_digest(out.manifest);
  return out;
}

ods::Result<std::string> assemble_document(const std::string& skeleton, const std::vector<std::string>& chunk_entries,
                                           const std::map<std::string, std::string>& pieces) {
  if (chunk_entries.empty()) return skeleton;
  json doc = json::parse(skeleton, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return ods::fail("corrupt", "a document skeleton is not a JSON object");
  for (const std::string& text : chunk_entries) {
    const json entries = json::parse(text, nullptr, false);
    if (!entries.is_array()) return ods::fail("corrupt", "a document chunk is not a JSON array");
    for (const json& entry : entries) {
      if (!entry.is_array() || entry.size() != 3 || !entry[0].is_string() || !entry[2].is_string()) {
        return ods::fail("corrupt", "a document chunk entry is not [member, key, digest]");
      }
      const auto piece = pieces.find(entry[2].get<std::string>());
      if (piece == pieces.end()) {
        return ods::fail("corrupt", "piece " + entry[2].get<std::string>() + " of a document is missing");
      }
      json value = json::parse(piece->second, nullptr, false);
      if (value.is_discarded()) return ods::fail("corrupt", "piece " + piece->first + " is not JSON");
      json& member = doc[entry[0].get<std::string>()];
      if (entry[1].is_string() && (member.is_object() || member.is_null())) {
        member[entry[1].get<std::string>()] = std::move(value);
      } else if (entry[1].is_null() && (member.is_array() || member.is_null())) {
        member.push_back(std::move(value));
      } else {
        return ods::fail("corrupt", "a document chunk entry does not fit member '" + entry[0].get<std::string>() + "'");
      }
    }
  }
  return doc.dump();
}

std::vector<std::string> manifest_chunks(const std::string& manifest) {
  std::vector<std::string> chunks;
  for (std::size_t at = 0; at + kDigestHexLength <= manifest.size(); at += kDigestHexLength) {
    chunks.push_back(manifest.substr(at, kDigestHexLength));
  }
  return chunks;
}

}  // namespace ods::state::internal
