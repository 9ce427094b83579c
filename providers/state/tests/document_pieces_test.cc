// Splitting documents into content-addressed pieces and putting them back byte for byte.
#include "document_pieces.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

namespace ods::state::internal {
namespace {

std::string nodes_document(int count, const std::string& run_id, int changed = -1) {
  nlohmann::json nodes = nlohmann::json::object();
  for (int i = 0; i < count; ++i) {
    nodes["model.p.node_" + std::to_string(i)] = {{"run_id", i == changed ? run_id : "first"}, {"n", i}};
  }
  nlohmann::json entries = nlohmann::json::array();
  for (int i = 0; i < count; ++i) entries.push_back({{"id", i % 5}, {"action", "reuse"}});
  return nlohmann::json{{"run_id", run_id}, {"nodes", nodes}, {"entries", entries}, {"small", {1, 2}}}.dump();
}

std::string reassembled(const SplitDocument& split) {
  std::map<std::string, DocumentChunk> by_digest;
  for (const DocumentChunk& chunk : split.chunks) by_digest.emplace(chunk.digest, chunk);
  std::vector<std::string> entries;
  for (const std::string& digest : manifest_chunks(split.manifest)) entries.push_back(by_digest.at(digest).entries);
  auto document = assemble_document(split.skeleton, entries, split.pieces);
  EXPECT_TRUE(document.has_value()) << document.error().message;
  return document.value_or("");
}

TEST(DocumentPieces, SplitsLargeMembersAndReassemblesByteForByte) {
  const std::string document = nodes_document(200, "run-1");
  const SplitDocument split = split_document(document);
  ASSERT_FALSE(split.chunks.empty());
  EXPECT_EQ(split.pieces.size(), 200u + 5u) << "200 nodes and 5 distinct plan entries";
  EXPECT_GT(split.chunks.size(), 10u);
  EXPECT_EQ(split.digest, hex_digest(document));
  EXPECT_EQ(split.skeleton.find("node_1"), std::string::npos);
  EXPECT_EQ(reassembled(split), document);
}

TEST(DocumentPieces, OneChangedNodeChangesOneChunkAndOnePiece) {
  const SplitDocument before = split_document(nodes_document(200, "run-1"));
  const SplitDocument after = split_document(nodes_document(200, "run-2", 77));
  std::set<std::string> old_chunks;
  for (const auto& chunk : before.chunks) old_chunks.insert(chunk.digest);
  int new_chunks = 0;
  for (const auto& chunk : after.chunks) new_chunks += old_chunks.contains(chunk.digest) ? 0 : 1;
  EXPECT_EQ(new_chunks, 1);
  int new_pieces = 0;
  for (const auto& [digest, piece] : after.pieces) new_pieces += before.pieces.contains(digest) ? 0 : 1;
  EXPECT_EQ(new_pieces, 1);
  EXPECT_NE(before.manifest_digest, after.manifest_digest);
  const SplitDocument same = split_document(nodes_document(200, "run-3"));
  EXPECT_EQ(same.manifest_digest, before.manifest_digest) << "an unchanged run reuses the manifest";
  EXPECT_NE(same.digest, before.digest);
}

TEST(DocumentPieces, OtherSpellingsAndSmallDocumentsStayWhole) {
  for (const std::string& document :
       {std::string(R"({"b":1,"a":2})"), std::string("{ \"nodes\": {} }"), std::string(R"({"nodes":{"a":1}})"),
        std::string("[1,2,3,4,5,6,7,8,9]"), std::string("")}) {
    const SplitDocument split = split_document(document);
    EXPECT_TRUE(split.chunks.empty()) << document;
    EXPECT_EQ(split.skeleton, document);
    EXPECT_EQ(reassembled(split), document);
  }
}

TEST(DocumentPieces, AMissingPieceIsCorrupt) {
  SplitDocument split = split_document(nodes_document(20, "run-1"));
  split.pieces.erase(split.pieces.begin());
  std::vector<std::string> entries;
  for (const auto& chunk : split.chunks) entries.push_back(chunk.entries);
  auto document = assemble_document(split.skeleton, entries, split.pieces);
  ASSERT_FALSE(document.has_value());
  EXPECT_EQ(document.error().code, "corrupt");
}

}  // namespace
}  // namespace ods::state::internal
