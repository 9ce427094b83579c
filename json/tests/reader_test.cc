// The pull reader: reads what nlohmann reads, refuses what it refuses, and says where.
#include "ods/json/reader.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "ods/json/writer.h"

namespace {

using nlohmann::json;
using ods::json::Reader;
using ods::json::SyntaxError;
using ods::json::Type;

// Reads any value into a DOM through Reader (numbers as integers when they fit, else as text).
json read_dom(Reader& r) {
  switch (r.peek()) {
    case Type::object: {
      json out = json::object();
      r.begin_object();
      std::string_view key;
      while (r.next_member(key)) {
        std::string name(key);
        out[name] = read_dom(r);
      }
      return out;
    }
    case Type::array: {
      json out = json::array();
      r.begin_array();
      while (r.next_element()) out.push_back(read_dom(r));
      return out;
    }
    case Type::string:
      return r.string();
    case Type::boolean:
      return r.boolean();
    case Type::null:
      r.null();
      return nullptr;
    case Type::number:
      return json::parse(r.number_text());
  }
  return nullptr;
}

json read_text(std::string_view text) {
  Reader r(text);
  json out = read_dom(r);
  r.finish();
  return out;
}

TEST(JsonReader, ReadsWhatNlohmannReads) {
  for (const char* text : {
           R"({"a": [1, -2, 3.5, 1e3, -0.25E-2, 0], "b": {"c": null, "d": true, "e": false}, "f": ""})",
           R"("esc \" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u20ac \ud834\udd1e")",
           R"(["ünïcödé € 𝄞", {}, [], [[{}]]])",
           " \t\r\n 42 \n",
           R"({"dup": 1, "dup": 2})",
           "\xEF\xBB\xBF[1]",
       }) {
    EXPECT_EQ(read_text(text), json::parse(text)) << text;
  }
}

TEST(JsonReader, RoundTripsThroughTheWriter) {
  const json doc = json::parse(R"({"nodes": {"model.a": {"fingerprint": {"sql": "ab\ncd", "x": "\u0001"},
    "parents": ["model.b", "source.c"], "n": 3}}, "text": "€ \"q\" \\"})");
  std::string written;
  {
    ods::json::Writer w(written, 2);
    w.begin_object();
    w.key("nodes").begin_object().key("model.a").begin_object();
    w.key("fingerprint").begin_object().key("sql").string("ab\ncd").key("x").string("\x01").end_object();
    w.key("n").integer(3);
    w.key("parents").begin_array().string("model.b").string("source.c").end_array();
    w.end_object().end_object();
    w.key("text").string("€ \"q\" \\");
    w.end_object();
  }
  EXPECT_EQ(read_text(written), doc);
  EXPECT_EQ(written, doc.dump(2));
}

TEST(JsonReader, StringsWithoutEscapesAreViewsIntoTheText) {
  const std::string text = R"({"key": "value"})";
  Reader r(text);
  r.begin_object();
  std::string_view key;
  ASSERT_TRUE(r.next_member(key));
  EXPECT_EQ(key, "key");
  EXPECT_GE(key.data(), text.data());
  EXPECT_LT(key.data(), text.data() + text.size());
  std::string_view value = r.string_view();
  EXPECT_EQ(value, "value");
  EXPECT_GE(value.data(), text.data());
  EXPECT_FALSE(r.next_member(key));
  r.finish();
}

TEST(JsonReader, EscapedKeysStayValidWhileTheirValueIsRead) {
  Reader r(R"({"k\u00e9y": "v\u00e0lue", "n\"ext": {"in\u006eer": "x"}})");
  r.begin_object();
  std::string_view key;
  ASSERT_TRUE(r.next_member(key));
  EXPECT_EQ(r.string(), "vàlue");
  EXPECT_EQ(key, "kéy");
  ASSERT_TRUE(r.next_member(key));
  EXPECT_EQ(key, "n\"ext");
  r.begin_object();
  std::string_view inner;
  ASSERT_TRUE(r.next_member(inner));
  EXPECT_EQ(r.path(), "n\"ext.inner");
  EXPECT_EQ(r.string(), "x");
  EXPECT_FALSE(r.next_member(inner));
  EXPECT_EQ(key, "n\"ext");
  EXPECT_FALSE(r.next_member(key));
}

TEST(JsonReader, IntegersAndTheirLimits) {
  Reader r("[9223372036854775807, -9223372036854775808, 1.5, 9223372036854775808]");
  r.begin_array();
  ASSERT_TRUE(r.next_element());
  EXPECT_EQ(r.integer(), INT64_MAX);
  ASSERT_TRUE(r.next_element());
  EXPECT_EQ(r.integer(), INT64_MIN);
  ASSERT_TRUE(r.next_element());
  EXPECT_THROW(r.integer(), SyntaxError);
}

// The error for `text`, which must be malformed.
SyntaxError error_of(std::string_view text) {
  try {
    read_text(text);
  } catch (const SyntaxError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << text;
  return SyntaxError(0, "", "");
}

TEST(JsonReader, RefusesWhatNlohmannRefuses) {
  for (const std::string text : {"",
                                 "   ",
                                 "{",
                                 "[1,]",
                                 "{\"a\":1,}",
                                 "{\"a\" 1}",
                                 "{a: 1}",
                                 "[01]",
                                 "[1.]",
                                 "[.5]",
                                 "[1e]",
                                 "[-]",
                                 "[+1]",
                                 "tru",
                                 "nul",
                                 "[true false]",
                                 "\"a",
                                 "\"\\x\"",
                                 "\"\\u12\"",
                                 "\"\\ud834\"",
                                 "\"\\udd1e\"",
                                 "\"\x01\"",
                                 "\"\xff\"",
                                 "\"\xc0\xaf\"",
                                 "\"\xed\xa0\x80\"",
                                 "\"\xe2\x82\"",
                                 "1 2",
                                 "{} x",
                                 "[1]]",
                                 "'a'",
                                 "[1e400]",
                                 "[-2.5e372]"}) {
    EXPECT_TRUE(json::parse(text, nullptr, false).is_discarded()) << "nlohmann accepts: " << text;
    (void)error_of(text);
  }
}

// Random edits of a document that uses every kind of value: the reader accepts exactly the
// texts nlohmann accepts (deterministic: fixed seed).
TEST(JsonReader, AcceptsExactlyWhatNlohmannAcceptsUnderRandomEdits) {
  const std::string base =
      R"({"a": [1, -2.5e3, true, false, null, "x\u00e9\n", {"b": {}}, []], "c": "é€𝄞", "d": 0.5, "e": "\ud834\udd1e"})";
  const std::string alphabet = "{}[],:\"\\ -+.eE0123456789tfnul\xc3\xa9\xff\x01u";
  std::mt19937 rng(42);
  int mismatches = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = base;
    for (unsigned edits = 1 + rng() % 3; edits > 0; --edits) {
      const std::size_t pos = rng() % (text.size() + 1);
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0:
          if (pos < text.size()) text.erase(pos, 1);
          break;
        case 1:
          text.insert(pos, 1, c);
          break;
        default:
          if (pos < text.size()) text[pos] = c;
      }
    }
    bool ours = true;
    try {
      read_text(text);
    } catch (const SyntaxError&) {
      ours = false;
    }
    if (ours != json::accept(text) && ++mismatches <= 5)
      ADD_FAILURE() << "reader " << (ours ? "accepts" : "refuses") << ": " << text;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(JsonReader, ErrorsSayWhere) {
  SyntaxError e = error_of(R"({"nodes": {"model.a": {"fingerprint": {"sql": "x" "code": 1}}}})");
  EXPECT_EQ(e.path(), "nodes.model.a.fingerprint.sql");
  EXPECT_EQ(e.offset(), 50u);  // the "code" that should have been preceded by a comma
  EXPECT_EQ(e.problem(), "expected ',' or '}'");
  EXPECT_EQ(std::string(e.what()), "at byte 50 (in nodes.model.a.fingerprint.sql): expected ',' or '}'");

  e = error_of(R"({"list": [1, 2, {"x": tru}]})");
  EXPECT_EQ(e.path(), "list[2].x");
  EXPECT_EQ(e.problem(), "invalid literal (expected true)");

  e = error_of(R"({"a": "unterminated)");
  EXPECT_EQ(e.path(), "a");
  EXPECT_EQ(e.problem(), "unterminated string");

  e = error_of("{}\n{}");
  EXPECT_EQ(e.path(), "");
  EXPECT_EQ(e.offset(), 3u);
  EXPECT_EQ(std::string(e.what()), "at byte 3: unexpected data after the JSON value");
}

TEST(JsonReader, NestingIsLimited) {
  std::string deep(ods::json::kMaxDepth, '[');
  deep += std::string(ods::json::kMaxDepth, ']');
  EXPECT_NO_THROW(read_text(deep));
  std::string deeper(ods::json::kMaxDepth + 1, '[');
  deeper += std::string(ods::json::kMaxDepth + 1, ']');
  EXPECT_NE(error_of(deeper).problem().find("nesting deeper than"), std::string::npos);
}

TEST(JsonReader, SkipValidatesWhatItSkips) {
  Reader ok(R"({"skip": {"a": [1, {"b": "\u00e9"}], "c": null}, "keep": 7})");
  ok.begin_object();
  std::string_view key;
  ASSERT_TRUE(ok.next_member(key));
  ok.skip();
  ASSERT_TRUE(ok.next_member(key));
  EXPECT_EQ(key, "keep");
  EXPECT_EQ(ok.integer(), 7);
  EXPECT_FALSE(ok.next_member(key));
  ok.finish();

  Reader bad(R"({"skip": {"a": [1, {"b": "\q"}]}})");
  bad.begin_object();
  ASSERT_TRUE(bad.next_member(key));
  try {
    bad.skip();
    FAIL() << "skipped a bad escape";
  } catch (const SyntaxError& e) {
    EXPECT_EQ(e.path(), "skip.a[1].b");
  }
}

// The string scan goes 16 bytes at a time (ods/json/string_scan.h): a byte it must stop at is
// found at every position of a long string, before and after an escape, and in the tail.
TEST(JsonReader, TheStringScanStopsAtEveryPositionOfALongString) {
  const auto read = [](const std::string& inside) {
    const std::string text = "\"" + inside + "\"";
    Reader r(text);
    return r.string();
  };
  for (std::size_t at = 0; at < 40; ++at) {
    for (const bool after_escape : {false, true}) {
      const std::string prefix = after_escape ? "\\n" : "";
      const std::string decoded_prefix = after_escape ? "\n" : "";
      const std::string plain(40, 'a');
      EXPECT_EQ(read(prefix + plain), decoded_prefix + plain);
      for (const std::string& bad : {std::string("\x01"), std::string("\xff"), std::string("\xc3")}) {
        std::string text = plain;
        text.replace(at, 1, bad);
        EXPECT_THROW(read(prefix + text), SyntaxError) << at << " " << after_escape;
      }
      std::string quoted = plain;
      quoted[at] = '"';
      EXPECT_EQ(read(prefix + quoted), decoded_prefix + plain.substr(0, at)) << at;
      std::string accented = plain;
      accented.replace(at, 1, "\xc3\xa9");
      EXPECT_EQ(read(prefix + accented), decoded_prefix + accented) << at;
    }
  }
}

}  // namespace
