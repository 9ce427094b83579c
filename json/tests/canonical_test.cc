// The one canonicaliser (ods/json/canonical.h): its bytes are what fingerprints hash.
#include "ods/json/canonical.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace ods::json {
namespace {

TEST(Canonical, SortsMembersAtEveryLevelAndDropsWhitespace) {
  EXPECT_EQ(canonical(R"( {"b": 1, "_": -2500.0, "a": {"z": [3, 1, {"y": null, "x": true}], "c": "s"}} )"),
            R"({"_":-2500.0,"a":{"c":"s","z":[3,1,{"x":true,"y":null}]},"b":1})");
  EXPECT_EQ(canonical("[]"), "[]");
  EXPECT_EQ(canonical("{}"), "{}");
  EXPECT_EQ(canonical(" \"x\" "), "\"x\"");
}

TEST(Canonical, EqualsNlohmannsSortedDump) {
  for (const char* text :
       {R"({"b":[1,2,{"d":0.1,"c":1e-7}],"a":"\u00e9\n","e":{}})", R"([1.5,-0.0,1E2,12345678901234567890])",
        R"({"k":"tab\tquote\"back\\slash\/","z":false,"m":-9223372036854775808})"}) {
    EXPECT_EQ(canonical(text), nlohmann::json::parse(text).dump()) << text;
  }
}

TEST(Canonical, Numbers) {
  EXPECT_EQ(canonical("1.50"), "1.5");
  EXPECT_EQ(canonical("1E2"), "100.0");
  EXPECT_EQ(canonical("-0"), "0");
  EXPECT_EQ(canonical("0.073067"), nlohmann::json(0.073067).dump());       // nlohmann's Grisu2 form
  EXPECT_EQ(canonical("123456789012345678"), "123456789012345678");        // as written
  EXPECT_EQ(canonical("18446744073709551615"), "18446744073709551615");    // uint64 max
  EXPECT_EQ(canonical("-9223372036854775809"), "-9.223372036854776e+18");  // beyond int64: a double
  EXPECT_EQ(canonical("18446744073709551616"), "1.8446744073709552e+19");
}

TEST(Canonical, RandomDoublesAsNlohmannWritesThem) {
  std::mt19937_64 random(7);
  for (int i = 0; i < 20000; ++i) {
    const double value = static_cast<double>(random() % 10'000'000) / 1000.0 * ((i % 3) - 1.0);
    const std::string text = nlohmann::json(value).dump();
    EXPECT_EQ(canonical(text), text);
  }
}

TEST(Canonical, StringsAreDecodedThenEscapedAsTheWriterDoes) {
  EXPECT_EQ(canonical(R"("\u00e9\/\u0041")"), "\"\xC3\xA9/A\"");
  EXPECT_EQ(canonical(R"("\u001f\b")"), R"("\u001f\b")");
  EXPECT_EQ(canonical(R"({"\u0062":1,"a":2})"), R"({"a":2,"b":1})");  // sorted by the decoded key
}

TEST(Canonical, DuplicateMembersAreAllKeptInOrder) {
  EXPECT_EQ(canonical(R"({"b":1,"a":2,"b":3})"), R"({"a":2,"b":1,"b":3})");
}

TEST(Canonical, DropsTopLevelMembersOnlyAndListsThem) {
  const std::vector<std::string_view> drop = {"tags", "meta"};
  std::vector<std::pair<std::string, std::string_view>> members;
  const std::string text = R"({"tags": ["x"], "keep": {"tags": 2}, "meta" : {"a": 1}})";
  EXPECT_EQ(canonical(text, {.drop = drop, .top_level = &members}), R"({"keep":{"tags":2}})");
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0].first, "tags");
  EXPECT_EQ(members[0].second, R"(["x"])");
  EXPECT_EQ(members[1].second, R"({"tags": 2})");
  EXPECT_EQ(members[2].first, "meta");
  EXPECT_EQ(members[2].second, R"({"a": 1})");
}

TEST(Canonical, MalformedTextIsASyntaxErrorWithWhere) {
  for (const char* bad : {"", "{", R"({"a":})", R"({"a":1,})", "[1 2]", R"("\x")", "01", "{} x", "\"\xFF\"", "1e999"}) {
    EXPECT_THROW(canonical(bad), SyntaxError) << bad;
  }
  try {
    canonical(R"({"a":{"b":tru}})");
    FAIL() << "no error";
  } catch (const SyntaxError& e) {
    EXPECT_EQ(e.path(), "a.b");
  }
}

TEST(Canonical, AppendsFromAReaderMidText) {
  Reader reader(R"({"x": {"b": 1, "a": 2}, "y": 3})");
  reader.begin_object();
  std::string_view key;
  ASSERT_TRUE(reader.next_member(key));
  std::string out = "pre:";
  append_canonical(reader, out);
  EXPECT_EQ(out, R"(pre:{"a":2,"b":1})");
  ASSERT_TRUE(reader.next_member(key));
  EXPECT_EQ(key, "y");
  EXPECT_EQ(reader.integer(), 3);
}

TEST(Reader, ResetReadsAnotherText) {
  Reader reader(R"({"a": [1, 2)");
  reader.begin_object();
  std::string_view key;
  ASSERT_TRUE(reader.next_member(key));
  reader.begin_array();
  reader.reset("[true]");
  reader.begin_array();
  ASSERT_TRUE(reader.next_element());
  EXPECT_TRUE(reader.boolean());
  EXPECT_FALSE(reader.next_element());
  reader.finish();
}

}  // namespace
}  // namespace ods::json
