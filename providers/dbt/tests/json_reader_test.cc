// The streaming tokenizer and canonical JSON (internal; src/json_reader.h).
#include "json_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "json_access.h"
#include "json_stream.h"

namespace ods::dbt::internal {
namespace {

using ::testing::HasSubstr;

std::string canonical_from_dom(const std::string& text) { return canonical_json(Json::parse(text)).value(); }

TEST(CanonicalJson, SortsKeysAtEveryLevelAndKeepsArrayOrder) {
  const std::string text = R"({"b": 1, "a": {"z": [3, 1, {"y": null, "x": true}], "c": "s"}, "_": -2.5e3})";
  EXPECT_EQ(canonical_from_dom(text), R"({"_":-2500.0,"a":{"c":"s","z":[3,1,{"x":true,"y":null}]},"b":1})");
}

TEST(CanonicalJson, TextAndDomAgree) {
  const std::vector<std::string> texts = {
      R"({"b": 1, "a": 2})",
      R"({"s": "tab\tquote\"slash\/uni\u00e9\ud83d\ude00 ctrl\u0001", "k\"ey": "plain é"})",
      R"({"n": [0, -0, 12345678901234567890, 123456789012345678901234, 1.5, 1e2, -1E-2]})",
      R"({"deep": {"deeper": {"deepest": [[], {}, [{}], ""]}}, "e": {}, "f": []})",
      R"([{"b": 2, "a": 1}, "x", null, false])",
      R"("just a string")",
  };
  for (const auto& text : texts) {
    const auto from_text = canonical_json_text(text, "t.json", "");
    ASSERT_TRUE(from_text.has_value()) << text << ": " << from_text.error().message;
    EXPECT_EQ(*from_text, canonical_from_dom(text)) << text;
  }
}

TEST(CanonicalJson, DropsTopLevelMembersOnly) {
  const std::array<std::string_view, 2> drop = {"tags", "meta"};
  const std::string text = R"({"tags": [1], "keep": {"tags": 2}, "meta": {}})";
  EXPECT_EQ(*canonical_json_text(text, "t", "", drop), R"({"keep":{"tags":2}})");
  EXPECT_EQ(canonical_json(Json::parse(text), drop).value(), R"({"keep":{"tags":2}})");
}

TEST(JsonReader, RejectsMalformedInput) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"a": "unterminated})", "unterminated string"},
      {R"({"a": "bad \q escape"})", "invalid escape"},
      {R"({"a": "\ud800 lone"})", "high surrogate without its low surrogate"},
      {"{\"a\": \"raw\ncontrol\"}", "control character"},
      {"{\"a\": \"ab\xC3t\"}", "invalid UTF-8"},            // a lead byte, then ASCII (found by fuzz_manifest)
      {"{\"a\": \"\xC0\xAF overlong\"}", "invalid UTF-8"},  // an overlong '/'
      {"{\"a\": \"\xED\xA0\x80 surrogate\"}", "invalid UTF-8"},
      {"{\"a\": \"0123456789abcdef\xFF\"}", "invalid UTF-8"},  // past the 16-byte scan
      {"{\"a\": \"\xE2\x82", "invalid UTF-8"},                 // truncated at the end
      {R"({"a": 01})", "expected ',' or '}'"},
      {R"({"a": -})", "expected a number"},
      {R"({"a": tru})", "invalid literal"},
      {R"({"a" 1})", "expected ':'"},
      {R"({"a": 1,})", "expected a member name"},
      {R"({"a": 1} x)", "unexpected data after the JSON value"},
  };
  for (const auto& [text, what] : cases) {
    const auto result =
        parse_json_text(text, "t.json", "ctx", [](const EntrySoFar&, std::string_view) { return Keep::build; });
    ASSERT_FALSE(result.has_value()) << text;
    EXPECT_EQ(result.error().code, "invalid_artifact");
    EXPECT_THAT(result.error().message, HasSubstr("t.json: not valid JSON at byte ")) << text;
    EXPECT_THAT(result.error().message, HasSubstr("(reading ctx")) << text;  // then the member path, e.g. "ctx.a"
    EXPECT_THAT(result.error().message, HasSubstr(what)) << text;
  }
}

TEST(JsonReader, KeepsValidUtf8AsIs) {
  const std::string text = "{\"a\": \"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8D\xB0 and a long ASCII tail\"}";
  const auto result =
      parse_json_text(text, "t.json", "ctx", [](const EntrySoFar&, std::string_view) { return Keep::build; });
  ASSERT_TRUE(result.has_value()) << result.error().message;
  EXPECT_EQ(result->at("a").get<std::string>(), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8D\xB0 and a long ASCII tail");
}

TEST(JsonReader, KeepsOnlyWhatIsAskedFor) {
  const auto result =
      parse_json_text(R"({"a": {"x": 1}, "b": [1, 2], "c": "s"})", "t", "",
                      [](const EntrySoFar&, std::string_view key) { return key == "b" ? Keep::build : Keep::skip; });
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->dump(), R"({"b":[1,2]})");
}

// Records what the stream delivers.
class RecordingSink final : public StreamSink {
 public:
  Keep keep_key(std::size_t, const EntrySoFar& partial, std::string_view key) const override {
    if (key == "raw") return Keep::raw;
    if (key == "late") return partial.find("early") != nullptr ? Keep::build : Keep::skip;
    return key == "skip" ? Keep::skip : Keep::build;
  }
  bool on_value(std::size_t section, Json&& value) override {
    log.push_back(std::to_string(section) + "=" + value.dump());
    return true;
  }
  bool on_entry(std::size_t section, std::string&& key, Json&& entry, const RawMembers& raw) override {
    std::string line = std::to_string(section) + ":" + key + "=" + entry.dump();
    for (const auto& [name, text] : raw) line += " raw " + name + "=" + std::string(text);
    log.push_back(line);
    return key != "stop";
  }
  std::vector<std::string> log;
};

constexpr std::array<SectionSpec, 3> kTestSections = {
    {{"meta", SectionMode::whole}, {"map", SectionMode::entry_map}, {"list", SectionMode::entry_list}}};

TEST(StreamSections, DeliversSectionsEntriesAndRawMembers) {
  RecordingSink sink;
  const std::string text =
      R"({"ignored": {"big": [1, 2, {"x": "y"}]}, "meta": 5,)"
      R"( "map": {"k1": {"early": 1, "late": 2, "skip": 3, "raw": {"b": 1,  "a": 2}}, "k2": {"late": 2}},)"
      R"( "list": [{"v": 1}]})";
  const auto seen = stream_sections(text, "t.json", kTestSections, sink);
  ASSERT_TRUE(seen.has_value()) << seen.error().message;
  EXPECT_EQ(*seen, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(sink.log, (std::vector<std::string>{"0=5", R"(1:k1={"early":1,"late":2} raw raw={"b": 1,  "a": 2})",
                                                "1:k2={}", R"(2:0={"v":1})"}));
}

TEST(StreamSections, TypeErrorsAndStops) {
  RecordingSink sink;
  auto result = stream_sections(R"({"map": [1]})", "t.json", kTestSections, sink);
  EXPECT_EQ(result.error().message, "t.json: map: expected an object");
  result = stream_sections(R"({"map": {"k": 1}})", "t.json", kTestSections, sink);
  EXPECT_EQ(result.error().message, "t.json: map.k: expected an object");
  result = stream_sections(R"({"list": [{}, 2]})", "t.json", kTestSections, sink);
  EXPECT_EQ(result.error().message, "t.json: list[1]: expected an object");
  result = stream_sections(R"({"map": {"stop": {}, "after": {}}})", "t.json", kTestSections, sink);
  EXPECT_EQ(result.error().code, kStoppedBySink);
  result = stream_sections(R"({"map": {"k": {"a": [}}})", "t.json", kTestSections, sink);
  EXPECT_THAT(result.error().message, HasSubstr("at byte 21 (reading map.k.a[0]): expected a value"));
}

}  // namespace
}  // namespace ods::dbt::internal
