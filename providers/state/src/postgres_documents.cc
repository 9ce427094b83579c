#include "postgres_documents.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "document_pieces.h"

namespace ods::state::internal {
namespace {

using nlohmann::json;

std::string concatenated(const std::set<std::string>& digests) {
  std::string out;
  out.reserve(digests.size() * kDigestHexLength);
  for (const std::string& digest : digests) out += digest;
  return out;
}

// Which of `digests` `table` already holds.
ods::Result<std::set<std::string>> present(PgConnection& connection, const std::string& table,
                                           const std::set<std::string>& digests, std::string_view what) {
  auto rows = connection.exec("SELECT encode(digest, 'hex') FROM " + table + " WHERE digest IN " + digest_set(1),
                              Params{concatenated(digests)}, what);
  if (!rows) return std::unexpected(rows.error());
  std::set<std::string> found;
  for (int row = 0; row < rows->rows(); ++row) found.insert(rows->text(row, 0));
  return found;
}

// `text` escaped for COPY's text format.
void append_copy_field(std::string& out, const std::string& text) {
  for (const char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
}

// Inserts (digest hex, text) pairs into `table` (digest, `column`), skipping stored ones:
// COPY into a session temp table, then one INSERT … ON CONFLICT DO NOTHING in digest
// order (so concurrent writers take row locks in one order).
ods::Result<void> insert_all(PgConnection& connection, const std::string& table, const std::string& column,
                             const std::map<std::string, std::string>& rows, std::string_view what) {
  if (rows.empty()) return {};
  std::string data;
  std::size_t size = 0;
  for (const auto& [digest, text] : rows) size += digest.size() + text.size() + 2;
  data.reserve(size + size / 16);
  for (const auto& [digest, text] : rows) {
    data += digest;
    data += '\t';
    append_copy_field(data, text);
    data += '\n';
  }
  for (const char* sql : {"CREATE TEMP TABLE IF NOT EXISTS ods_incoming (digest text NOT NULL, body text NOT NULL)",
                          "TRUNCATE ods_incoming"}) {
    auto done = connection.exec(sql, what);
    if (!done) return std::unexpected(done.error());
  }
  if (auto copied = connection.copy_in("COPY ods_incoming (digest, body) FROM STDIN", data, what); !copied) {
    return copied;
  }
  auto done = connection.exec("INSERT INTO " + table + " (digest, " + column +
                                  ") SELECT decode(digest, 'hex'), body FROM ods_incoming ORDER BY digest"
                                  " ON CONFLICT (digest) DO NOTHING",
                              what);
  if (!done) return std::unexpected(done.error());
  return {};
}

ods::Result<void> store_pieces(PgConnection& connection, const SplitDocument& split) {
  constexpr std::string_view kWhat = "storing a document's pieces";
  auto manifest = present(connection, "manifests", {split.manifest_digest}, kWhat);
  if (!manifest) return std::unexpected(manifest.error());
  if (!manifest->empty()) return {};
  std::set<std::string> chunk_digests;
  for (const DocumentChunk& chunk : split.chunks) chunk_digests.insert(chunk.digest);
  auto stored_chunks = present(connection, "chunks", chunk_digests, kWhat);
  if (!stored_chunks) return std::unexpected(stored_chunks.error());
  std::map<std::string, std::string> new_chunks;
  std::map<std::string, std::string> new_pieces;
  for (const DocumentChunk& chunk : split.chunks) {
    if (stored_chunks->contains(chunk.digest)) continue;
    new_chunks.emplace(chunk.digest, chunk.entries);
    for (const std::string& piece : chunk.piece_digests) new_pieces.emplace(piece, split.pieces.at(piece));
  }
  if (auto done = insert_all(connection, "pieces", "body", new_pieces, kWhat); !done) return done;
  if (auto done = insert_all(connection, "chunks", "entries", new_chunks, kWhat); !done) return done;
  auto inserted = connection.exec(
      "INSERT INTO manifests (digest, chunks) VALUES (decode($1, 'hex'), decode($2, 'hex'))"
      " ON CONFLICT (digest) DO NOTHING",
      Params{split.manifest_digest, split.manifest}, kWhat);
  if (!inserted) return std::unexpected(inserted.error());
  return {};
}

}  // namespace

std::string digest_set(int parameter) {
  const std::string p = "decode($" + std::to_string(parameter) + ", 'hex')";
  return "(SELECT substring(" + p + " FROM i FOR 32) FROM generate_series(1, length(" + p + "), 32) AS i)";
}

ods::Result<std::string> store_document(PgConnection& connection, const std::string& document) {
  constexpr std::string_view kWhat = "storing a document";
  auto locked = connection.exec("LOCK TABLE pieces, chunks, manifests, documents IN ROW EXCLUSIVE MODE", kWhat);
  if (!locked) return std::unexpected(locked.error());
  const SplitDocument split = split_document(document);
  auto stored = present(connection, "documents", {split.digest}, kWhat);
  if (!stored) return std::unexpected(stored.error());
  if (!stored->empty()) return split.digest;
  if (!split.chunks.empty()) {
    if (auto done = store_pieces(connection, split); !done) return std::unexpected(done.error());
  }
  std::optional<std::string> manifest;
  if (!split.chunks.empty()) manifest = split.manifest_digest;
  auto inserted = connection.exec(
      "INSERT INTO documents (digest, skeleton, manifest) VALUES (decode($1, 'hex'), $2, decode($3, 'hex'))"
      " ON CONFLICT (digest) DO NOTHING",
      Params{split.digest, split.skeleton, manifest}, kWhat);
  if (!inserted) return std::unexpected(inserted.error());
  return split.digest;
}

ods::Result<std::map<std::string, std::string>> load_documents(PgConnection& connection,
                                                               const std::vector<std::string>& digests) {
  constexpr std::string_view kWhat = "reading documents";
  std::map<std::string, std::string> out;
  if (digests.empty()) return out;
  const std::set<std::string> wanted(digests.begin(), digests.end());
  auto documents = connection.exec(
      "SELECT encode(d.digest, 'hex'), d.skeleton, d.manifest IS NOT NULL, encode(m.chunks, 'hex')"
      " FROM documents d LEFT JOIN manifests m ON m.digest = d.manifest WHERE d.digest IN " +
          digest_set(1),
      Params{concatenated(wanted)}, kWhat);
  if (!documents) return std::unexpected(documents.error());
  struct Parts {
    std::string skeleton;
    std::vector<std::string> chunks;
  };
  std::map<std::string, Parts> parts;
  std::set<std::string> chunk_digests;
  for (int row = 0; row < documents->rows(); ++row) {
    const std::string digest = documents->text(row, 0);
    if (documents->text(row, 2) == "t" && documents->is_null(row, 3)) {
      return ods::fail("corrupt", "PostgreSQL state database " + connection.server() + ": the manifest of document " +
                                      digest + " is missing. Run `ods state doctor`.");
    }
    Parts& p = parts[digest];
    p.skeleton = documents->text(row, 1);
    p.chunks = manifest_chunks(documents->optional_text(row, 3).value_or(""));
    chunk_digests.insert(p.chunks.begin(), p.chunks.end());
  }
  for (const std::string& digest : wanted) {
    if (!parts.contains(digest)) {
      return ods::fail("corrupt", "PostgreSQL state database " + connection.server() + ": document " + digest +
                                      " is missing. Run `ods state doctor`.");
    }
  }
  std::map<std::string, std::string> chunks;
  std::set<std::string> piece_digests;
  if (!chunk_digests.empty()) {
    auto rows = connection.exec("SELECT encode(digest, 'hex'), entries FROM chunks WHERE digest IN " + digest_set(1),
                                Params{concatenated(chunk_digests)}, kWhat);
    if (!rows) return std::unexpected(rows.error());
    for (int row = 0; row < rows->rows(); ++row) {
      const std::string entries = rows->text(row, 1);
      const json parsed = json::parse(entries, nullptr, false);
      if (parsed.is_array()) {
        for (const json& entry : parsed)
          if (entry.is_array() && entry.size() == 3 && entry[2].is_string())
            piece_digests.insert(entry[2].get<std::string>());
      }
      chunks.emplace(rows->text(row, 0), entries);
    }
  }
  std::map<std::string, std::string> pieces;
  if (!piece_digests.empty()) {
    auto rows = connection.exec("SELECT encode(digest, 'hex'), body FROM pieces WHERE digest IN " + digest_set(1),
                                Params{concatenated(piece_digests)}, kWhat);
    if (!rows) return std::unexpected(rows.error());
    for (int row = 0; row < rows->rows(); ++row) pieces.emplace(rows->text(row, 0), rows->text(row, 1));
  }
  for (const auto& [digest, p] : parts) {
    std::vector<std::string> entries;
    for (const std::string& chunk : p.chunks) {
      const auto found = chunks.find(chunk);
      if (found == chunks.end()) {
        return ods::fail("corrupt", "PostgreSQL state database " + connection.server() + ": chunk " + chunk +
                                        " of document " + digest + " is missing. Run `ods state doctor`.");
      }
      entries.push_back(found->second);
    }
    auto assembled = assemble_document(p.skeleton, entries, pieces);
    if (!assembled) {
      return ods::fail("corrupt", "PostgreSQL state database " + connection.server() + ": document " + digest +
                                      " cannot be read back: " + assembled.error().message +
                                      ". Run `ods state doctor`.");
    }
    if (hex_digest(*assembled) != digest) {
      return ods::fail("corrupt", "PostgreSQL state database " + connection.server() + ": document " + digest +
                                      " does not match its digest: its pieces were changed. Run `ods state doctor`.");
    }
    out.emplace(digest, std::move(*assembled));
  }
  return out;
}

ods::Result<void> collect_garbage(PgConnection& connection) {
  constexpr std::string_view kWhat = "removing unused documents";
  for (const char* sql : {
           "LOCK TABLE pieces, chunks, manifests, documents IN SHARE ROW EXCLUSIVE MODE",
           "DELETE FROM documents d WHERE NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.document = d.digest)"
           " AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.plan = d.digest)",
           "DELETE FROM manifests m WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.manifest = m.digest)",
           "DELETE FROM chunks WHERE digest NOT IN (SELECT DISTINCT substring(m.chunks FROM i FOR 32)"
           " FROM manifests m, generate_series(1, length(m.chunks), 32) AS i)",
           "DELETE FROM pieces WHERE digest NOT IN (SELECT DISTINCT decode(e->>2, 'hex')"
           " FROM chunks c, json_array_elements(c.entries::json) AS e)",
       }) {
    auto done = connection.exec(sql, kWhat);
    if (!done) return std::unexpected(done.error());
  }
  return {};
}

}  // namespace ods::state::internal
