#pragma once
// Storing documents (snapshots, ledger plans) in the PostgreSQL state database as
// content-addressed pieces (document_pieces.h), and reading them back. Internal to
// providers/state. Every function runs inside the caller's transaction.
#include <map>
#include <string>
#include <vector>

#include "ods/base/result.h"
#include "postgres_connection.h"

namespace ods::state::internal {

// Stores `document` unless a document with its digest is stored already; stores only the
// pieces, chunks and manifest that are new. Takes ROW EXCLUSIVE locks on the content tables
// first, so a concurrent collect_garbage() cannot remove content this call found present.
// Returns the document's digest (hex).
[[nodiscard]] ods::Result<std::string> store_document(PgConnection& connection, const std::string& document);

// The documents with these digests (hex), by digest. Errors: "corrupt" when one is missing
// or cannot be put back together (names it).
[[nodiscard]] ods::Result<std::map<std::string, std::string>> load_documents(PgConnection& connection,
                                                                             const std::vector<std::string>& digests);

// Deletes the documents no snapshot or run references, then the manifests, chunks and
// pieces nothing references any more. Locks the content tables against concurrent writers
// (SHARE ROW EXCLUSIVE) until the caller's transaction ends.
[[nodiscard]] ods::Result<void> collect_garbage(PgConnection& connection);

// SQL for the 32-byte digests that hex parameter `$n` concatenates, as a one-column set.
std::string digest_set(int parameter);

}  // namespace ods::state::internal
