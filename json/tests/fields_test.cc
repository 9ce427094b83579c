// Typed reads of a DOM's fields (ods/json/fields.h) over nlohmann's DOMs: what each read
// returns, and the path and problem of each refusal.
#include "ods/json/fields.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ods::json {
namespace {

const nlohmann::json kDoc = nlohmann::json::parse(R"({
  "id": "model.shop.orders", "depth": 2, "seconds": 1.5, "ok": true, "none": null,
  "tags": ["a", "b"], "mixed": ["a", 1], "policy": {"lag": 60}
})");

// The FieldError `read` throws, as "<path>|<problem>|<missing>|<expected words>".
template <class Read>
std::string refusal(Read read) {
  try {
    read();
  } catch (const FieldError& e) {
    EXPECT_EQ(std::string(e.what()), e.path() + ": " + e.problem());
    return e.path() + "|" + e.problem() + "|" + (e.is_missing() ? "missing" : "") + "|" +
           (e.expected() ? std::string(words(*e.expected())) : "");
  }
  return "no error";
}

TEST(Fields, TypedReadsReturnTheValues) {
  EXPECT_EQ(string_at(kDoc, "doc", "id"), "model.shop.orders");
  EXPECT_EQ(integer_at(kDoc, "doc", "depth"), 2);
  EXPECT_EQ(number_at(kDoc, "doc", "seconds"), 1.5);
  EXPECT_TRUE(bool_at(kDoc, "doc", "ok"));
  EXPECT_EQ(strings_at(kDoc, "doc", "tags"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(integer_at(object_at(kDoc, "doc", "policy"), "doc.policy", "lag"), 60);
  EXPECT_EQ(array_at(kDoc, "doc", "tags").size(), 2U);
  EXPECT_EQ(string_at(kDoc, "doc", "absent", Need::optional), "");
  EXPECT_EQ(string_at(kDoc, "doc", "none", Need::optional), "");
  EXPECT_EQ(member(kDoc, "doc", "none", Need::optional), nullptr);
  ASSERT_NE(member(kDoc, "doc", "none"), nullptr);  // required: a null is there (a typed read refuses it)
}

TEST(Fields, RefusalsNameThePathAndTheProblem) {
  EXPECT_EQ(refusal([] { string_at(kDoc, "doc", "absent"); }), "doc.absent|missing|missing|");
  EXPECT_EQ(refusal([] { string_at(kDoc, "doc", "depth"); }), "doc.depth|expected a string||a string");
  EXPECT_EQ(refusal([] { string_at(kDoc, "doc", "none"); }), "doc.none|expected a string||a string");
  EXPECT_EQ(refusal([] { integer_at(kDoc, "doc", "seconds"); }), "doc.seconds|expected an integer||an integer");
  EXPECT_EQ(refusal([] { bool_at(kDoc, "", "id"); }), "id|expected true or false||true or false");
  EXPECT_EQ(refusal([] { strings_at(kDoc, "doc", "mixed"); }), "doc.mixed[1]|expected a string||a string");
  EXPECT_EQ(refusal([] { strings_at(kDoc, "doc", "id"); }), "doc.id|expected an array of strings||an array of strings");
  EXPECT_EQ(refusal([] { string_at(kDoc["tags"], "doc.tags", "x"); }), "doc.tags|expected an object||an object");
  EXPECT_EQ(refusal([] { throw FieldError("doc.action", "unknown action 'x'"); }), "doc.action|unknown action 'x'||");
}

TEST(Fields, OrderedDomsReadAlike) {
  const auto doc = nlohmann::ordered_json::parse(R"({"b": ["x"], "a": 1})");
  EXPECT_EQ(strings_at(doc, "", "b"), (std::vector<std::string>{"x"}));
  EXPECT_TRUE(is(doc["b"], Kind::strings));
  EXPECT_FALSE(is(doc["a"], Kind::string));
  EXPECT_EQ(member_path("", "a"), "a");
  EXPECT_EQ(element_path("b", 0), "b[0]");
}

}  // namespace
}  // namespace ods::json
