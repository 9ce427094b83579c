// The writer's text is nlohmann's dump() / dump(indent) of the same values, byte for byte.
#include "ods/json/writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

using nlohmann::json;
using ods::json::Writer;

// Writes `doc` (a nlohmann DOM) through Writer, in the DOM's member order.
void write_dom(Writer& w, const json& doc) {
  switch (doc.type()) {
    case json::value_t::object:
      w.begin_object();
      for (const auto& [k, v] : doc.items()) write_dom(w.key(k), v);
      w.end_object();
      return;
    case json::value_t::array:
      w.begin_array();
      for (const auto& v : doc) write_dom(w, v);
      w.end_array();
      return;
    case json::value_t::string:
      w.string(doc.get_ref<const std::string&>());
      return;
    case json::value_t::boolean:
      w.boolean(doc.get<bool>());
      return;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      w.integer(doc.get<std::int64_t>());
      return;
    default:
      w.null();
      return;
  }
}

std::string written(const json& doc, int indent) {
  std::string out;
  Writer w(out, indent);
  write_dom(w, doc);
  return out;
}

const json& tricky_document() {
  static const json kDoc = json::parse(R"({
    "entries": [
      {"action": "build", "depth": 0, "evidence": [], "id": "model.shop.a", "reasons": [{"code": "never_built",
       "message": "no recorded build"}]},
      {"action": "reuse", "depth": -12, "evidence": [{"kind": "k", "value": ""}], "id": "x", "reasons": []}
    ],
    "empty_object": {},
    "nested_empty": [[], {}, [[]]],
    "escapes": "quote \" backslash \\ slash / nl \n cr \r tab \t bs \b ff \f nul \u0000 us \u001f del \u007f",
    "unicode": "ünïcödé € 𝄞 \u2028",
    "flags": [true, false, null],
    "big": 9223372036854775807,
    "small": -9223372036854775807,
    "summary": {"build": 30185, "reuse": 14815},
    "warnings": []
  })");
  return kDoc;
}

TEST(JsonWriter, CompactIsNlohmannDump) { EXPECT_EQ(written(tricky_document(), -1), tricky_document().dump()); }

TEST(JsonWriter, PrettyIsNlohmannDumpWithIndent) {
  EXPECT_EQ(written(tricky_document(), 2), tricky_document().dump(2));
  EXPECT_EQ(written(tricky_document(), 4), tricky_document().dump(4));
  EXPECT_EQ(written(tricky_document(), 0), tricky_document().dump(0));
}

TEST(JsonWriter, ScalarsAtTheTopLevel) {
  for (const char* text : {R"("x")", "17", "true", "null", "[]", "{}"}) {
    EXPECT_EQ(written(json::parse(text), 2), json::parse(text).dump(2)) << text;
  }
}

TEST(JsonWriter, EveryControlCharacterIsEscapedAsNlohmannDoes) {
  std::string all;
  for (int c = 0; c < 0x80; ++c) all.push_back(static_cast<char>(c));
  std::string out;
  ods::json::append_string(all, out);
  EXPECT_EQ(out, json(all).dump());
}

TEST(JsonWriter, StreamTargetGetsTheSameTextInChunks) {
  json big = json::array();
  for (int i = 0; i < 20000; ++i) big.push_back({{"id", "model.shop.m" + std::to_string(i)}, {"n", i}});
  std::ostringstream stream;
  {
    Writer w(stream, 2);
    write_dom(w, big);
    w.flush();
  }
  EXPECT_EQ(stream.str(), big.dump(2));
}

TEST(JsonWriter, InvalidUtf8IsRefused) {
  for (const std::string bad : {"\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    std::string out;
    EXPECT_THROW(ods::json::append_string(bad, out), ods::json::InvalidUtf8) << bad;
    EXPECT_THROW((void)json(bad).dump(), json::type_error) << "nlohmann agrees: " << bad;
  }
}

TEST(JsonWriter, MisuseIsALogicError) {
  std::string out;
  Writer w(out);
  w.begin_object();
  EXPECT_THROW(w.string("no key"), std::logic_error);
  EXPECT_THROW(w.end_array(), std::logic_error);
  w.key("k");
  EXPECT_THROW(w.key("again"), std::logic_error);
  w.integer(1);
  w.end_object();
  EXPECT_EQ(out, R"({"k":1})");
}

}  // namespace
