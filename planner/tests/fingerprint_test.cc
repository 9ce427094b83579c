// Fingerprints (ADR-0013 #13): SHA-256 components, a canonical digest, and diffs that name components.
#include "ods/planner/fingerprint.h"

#include <gtest/gtest.h>

#include <string>

#include "ods/base/sha256.h"

using namespace ods::planner;
using ods::sha256_hex;

namespace {

Fingerprint fp(std::initializer_list<std::pair<const std::string, std::string>> components) {
  Fingerprint f;
  f.components = components;
  return f;
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, HashesEmbeddedNulBytes) {
  using namespace std::string_literals;
  EXPECT_NE(sha256_hex("a\0b"s), sha256_hex("a"));
  EXPECT_EQ(sha256_hex("a\0b"s).size(), 64u);
}

TEST(Fingerprint, AddStoresTheDigestOfTheContent) {
  Fingerprint f;
  f.add("sql", "abc");
  EXPECT_EQ(f.components.at("sql"), sha256_hex("abc"));
}

TEST(Fingerprint, DigestIsOverSortedNameNulDigestLines) {
  // The documented canonical form: "name\0digest\n" for each component in name order.
  EXPECT_EQ(fp({{"b", "y"}, {"a", "x"}}).digest(), "1daaa098f3889f74c5c9d7bac7c9d40d6bd577004676b876137ed1dc54ae80b0");
  EXPECT_EQ(Fingerprint{}.digest(), sha256_hex(""));
}

TEST(Fingerprint, DigestIsStableAndOrderIndependent) {
  Fingerprint a, b;
  a.add("sql", "select 1");
  a.add("config", "{}");
  a.add("macros", "m");
  b.add("macros", "m");
  b.add("sql", "select 1");
  b.add("config", "{}");
  EXPECT_EQ(a.digest(), b.digest());
  EXPECT_EQ(a.digest(), a.digest());
  EXPECT_EQ(a, b);
}

TEST(Fingerprint, DigestChangesWithAnyComponent) {
  Fingerprint a = fp({{"sql", "1"}, {"config", "2"}});
  EXPECT_NE(a.digest(), fp({{"sql", "1"}, {"config", "3"}}).digest());
  EXPECT_NE(a.digest(), fp({{"sql", "1"}}).digest());
  EXPECT_NE(a.digest(), fp({{"sql", "1"}, {"config", "2"}, {"file", "4"}}).digest());
  // The separators keep names and digests from running into each other.
  EXPECT_NE(fp({{"ab", "c"}}).digest(), fp({{"a", "bc"}}).digest());
}

TEST(FingerprintDiff, EqualFingerprintsHaveAnEmptyDiff) {
  Fingerprint a = fp({{"sql", "1"}, {"config", "2"}});
  FingerprintDiff d = diff(a, a);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.describe(), "");
}

TEST(FingerprintDiff, ListsChangedAddedAndRemovedSorted) {
  Fingerprint before = fp({{"sql", "1"}, {"config", "2"}, {"file", "3"}, {"engine", "e"}});
  Fingerprint after = fp({{"sql", "9"}, {"config", "8"}, {"macros", "4"}, {"contract", "5"}, {"engine", "e"}});
  FingerprintDiff d = diff(before, after);
  EXPECT_FALSE(d.empty());
  EXPECT_EQ(d.changed, (std::vector<std::string>{"config", "sql"}));
  EXPECT_EQ(d.added, (std::vector<std::string>{"contract", "macros"}));
  EXPECT_EQ(d.removed, (std::vector<std::string>{"file"}));
  EXPECT_EQ(d.describe(), "config, sql changed; contract, macros added; file removed");
}

TEST(FingerprintDiff, DescribesEachKindAlone) {
  EXPECT_EQ(diff(fp({{"sql", "1"}}), fp({{"sql", "2"}})).describe(), "sql changed");
  EXPECT_EQ(diff(fp({}), fp({{"macros", "2"}})).describe(), "macros added");
  EXPECT_EQ(diff(fp({{"file", "1"}}), fp({})).describe(), "file removed");
  EXPECT_EQ(diff(fp({{"sql", "1"}}), fp({{"file", "1"}})).describe(), "file added; sql removed");
}

}  // namespace
