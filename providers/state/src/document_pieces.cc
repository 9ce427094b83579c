#include "document_pieces.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

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

// A minimal scanner over compact JSON (no whitespace between tokens), enough to find the
// text of the top-level members and of their elements without building a DOM. Anything it
// does not expect (whitespace, a non-object) makes it give up: the document stays whole.
constexpr std::size_t kNone = std::string::npos;

// Just past the string token starting at `at` (a '"').
std::size_t skip_string(std::string_view text, std::size_t at) {
  for (std::size_t i = at + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return kNone;
}

// Just past the value starting at `at`.
std::size_t skip_value(std::string_view text, std::size_t at) {
  if (at >= text.size()) return kNone;
  if (text[at] == '"') return skip_string(text, at);
  if (text[at] == '{' || text[at] == '[') {
    int depth = 0;
    for (std::size_t i = at; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '"') {
        i = skip_string(text, i);
        if (i == kNone) return kNone;
        --i;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return kNone;
  }
  std::size_t i = at;
  while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' && text[i] != ' ' && text[i] != '\n')
    ++i;
  return i == at ? kNone : i;
}

struct Element {
  std::string_view key;  // the key token with its quotes; empty for array elements
  std::size_t value_begin = 0, value_end = 0;
};

struct Member {
  std::string_view key;  // the key token with its quotes
  std::size_t value_begin = 0, value_end = 0;
  bool object = false;
  std::vector<Element> elements;  // of an object or array value
};

// The elements of the object or array at [begin, end), or nullopt when not compact JSON.
std::optional<std::vector<Element>> elements_of(std::string_view text, std::size_t begin, std::size_t end) {
  const bool object = text[begin] == '{';
  std::vector<Element> elements;
  std::size_t at = begin + 1;
  if (at < end && text[at] == (object ? '}' : ']')) return elements;
  while (at < end) {
    Element element;
    if (object) {
      if (text[at] != '"') return std::nullopt;
      const std::size_t key_end = skip_string(text, at);
      if (key_end == kNone || key_end >= end || text[key_end] != ':') return std::nullopt;
      element.key = text.substr(at, key_end - at);
      at = key_end + 1;
    }
    element.value_begin = at;
    element.value_end = skip_value(text, at);
    if (element.value_end == kNone || element.value_end >= end) return std::nullopt;
    elements.push_back(element);
    at = element.value_end;
    if (text[at] == (object ? '}' : ']')) return at + 1 == end ? std::optional(elements) : std::nullopt;
    if (text[at] != ',') return std::nullopt;
    ++at;
  }
  return std::nullopt;
}

// The members of a compact top-level object, with the elements of object and array values.
std::optional<std::vector<Member>> top_level_members(std::string_view text) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return std::nullopt;
  std::vector<Member> members;
  std::size_t at = 1;
  if (text[at] == '}') return members;
  while (at < text.size()) {
    if (text[at] != '"') return std::nullopt;
    Member member;
    const std::size_t key_end = skip_string(text, at);
    if (key_end == kNone || key_end >= text.size() || text[key_end] != ':') return std::nullopt;
    member.key = text.substr(at, key_end - at);
    member.value_begin = key_end + 1;
    member.value_end = skip_value(text, member.value_begin);
    if (member.value_end == kNone || member.value_end >= text.size()) return std::nullopt;
    const char first = text[member.value_begin];
    if (first == '{' || first == '[') {
      member.object = first == '{';
      auto elements = elements_of(text, member.value_begin, member.value_end);
      if (!elements) return std::nullopt;
      member.elements = std::move(*elements);
    }
    members.push_back(std::move(member));
    at = members.back().value_end;
    if (text[at] == '}') return at + 1 == text.size() ? std::optional(members) : std::nullopt;
    if (text[at] != ',') return std::nullopt;
    ++at;
  }
  return std::nullopt;
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
  auto members = top_level_members(document);
  if (!members) return out;
  SplitDocument split;
  split.digest = out.digest;
  ChunkBuilder chunks(split);
  std::string skeleton = "{";
  std::size_t copied = 1;  // document[0, copied) is accounted for in `skeleton`
  for (const Member& member : *members) {
    if (member.elements.size() < kMinPiecesPerMember) continue;
    const std::string name = json::parse(member.key).get<std::string>();
    for (const Element& element : member.elements) {
      const std::string piece(document, element.value_begin, element.value_end - element.value_begin);
      if (element.key.empty()) {
        chunks.add(name, nullptr, piece, piece);
      } else {
        const std::string key = json::parse(element.key).get<std::string>();
        chunks.add(name, key, piece, key);
      }
    }
    chunks.close();
    skeleton.append(document, copied, member.value_begin - copied);
    skeleton += member.object ? "{}" : "[]";
    copied = member.value_end;
  }
  if (split.chunks.empty()) return out;
  skeleton.append(document, copied, std::string::npos);
  split.skeleton = std::move(skeleton);
  split.manifest_digest = hex_digest(split.manifest);
  // Only a document that the pieces give back byte for byte is split (the planner's
  // spelling: compact, sorted keys); any other spelling is kept whole.
  std::vector<std::string> entries;
  for (const DocumentChunk& chunk : split.chunks) entries.push_back(chunk.entries);
  auto assembled = assemble_document(split.skeleton, entries, split.pieces);
  if (!assembled || *assembled != document) return out;
  return split;
}

ods::Result<std::string> assemble_document(const std::string& skeleton, const std::vector<std::string>& chunk_entries,
                                           const std::map<std::string, std::string>& pieces) {
  if (chunk_entries.empty()) return skeleton;
  const json doc = json::parse(skeleton, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return ods::fail("corrupt", "a document skeleton is not a JSON object");
  // The pieces of each split member, in order: (key or nullopt for array elements, piece).
  std::map<std::string, std::vector<std::pair<std::optional<std::string>, const std::string*>>> members;
  for (const std::string& text : chunk_entries) {
    const json entries = json::parse(text, nullptr, false);
    if (!entries.is_array()) return ods::fail("corrupt", "a document chunk is not a JSON array");
    for (const json& entry : entries) {
      if (!entry.is_array() || entry.size() != 3 || !entry[0].is_string() || !entry[2].is_string() ||
          !(entry[1].is_string() || entry[1].is_null())) {
        return ods::fail("corrupt", "a document chunk entry is not [member, key, digest]");
      }
      const auto piece = pieces.find(entry[2].get<std::string>());
      if (piece == pieces.end()) {
        return ods::fail("corrupt", "piece " + entry[2].get<std::string>() + " of a document is missing");
      }
      std::optional<std::string> key;
      if (entry[1].is_string()) key = entry[1].get<std::string>();
      members[entry[0].get<std::string>()].emplace_back(std::move(key), &piece->second);
    }
  }
  // The compact spelling, written directly: members in the skeleton's (sorted) order, a
  // split member's elements from its pieces as they are.
  std::string out = "{";
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (out.size() > 1) out += ',';
    out += json(it.key()).dump();
    out += ':';
    const auto split = members.find(it.key());
    if (split == members.end()) {
      out += it.value().dump();
      continue;
    }
    const bool object = it.value().is_object();
    if (!(object || it.value().is_array()) || !it.value().empty()) {
      return ods::fail("corrupt", "member '" + it.key() + "' of a document skeleton does not fit its pieces");
    }
    out += object ? '{' : '[';
    bool first = true;
    for (const auto& [key, piece] : split->second) {
      if (key.has_value() != object) {
        return ods::fail("corrupt", "a document chunk entry does not fit member '" + it.key() + "'");
      }
      if (!first) out += ',';
      first = false;
      if (key) {
        out += json(*key).dump();
        out += ':';
      }
      out += *piece;
    }
    out += object ? '}' : ']';
    members.erase(split);
  }
  out += '}';
  if (!members.empty()) {
    return ods::fail("corrupt", "member '" + members.begin()->first + "' of a document is not in its skeleton");
  }
  return out;
}

std::vector<std::string> manifest_chunks(const std::string& manifest) {
  std::vector<std::string> chunks;
  for (std::size_t at = 0; at + kDigestHexLength <= manifest.size(); at += kDigestHexLength) {
    chunks.push_back(manifest.substr(at, kDigestHexLength));
  }
  return chunks;
}

}  // namespace ods::state::internal
