// What a tuple must be to enter the runtime (ValidateTuple, json::Validate), and the walks over
// validated text. Issue 18: `[tru]` and a 100k-deep array passed SplitJsonArray and were
// forwarded, so the bolt that received them crashed and was blamed for the sender's fault.
#include "runtime/json_text.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/tuple.hpp"

namespace sparse::runtime {
namespace {

std::string Nested(std::size_t depth, std::string_view inner = "") {
  return std::string(depth, '[') + std::string(inner) + std::string(depth, ']');
}

struct Valid {
  std::string tuple;
  std::vector<std::string> values;
};

// Strings are scanned 16 and 8 bytes at a time: whatever the string's length and wherever a byte
// that needs a look of its own falls (first, last, across a block's edge), it is found, and
// found where it is.
TEST(ValidateTuple, EveryByteOfAStringIsLookedAtWhereverItFalls) {
  for (std::size_t len = 1; len <= 40; ++len) {
    for (std::size_t at = 0; at < len; ++at) {
      std::string plain(len, 'x');
      const auto with = [&](std::string_view piece) {
        return "[\"" + plain.substr(0, at) + std::string(piece) + plain.substr(at + 1) + "\"]";
      };
      const std::size_t offset = 2 + at;  // after `["`
      ValueSpans spans;
      SCOPED_TRACE("length " + std::to_string(len) + ", at " + std::to_string(at));
      EXPECT_EQ(ValidateTuple(with("x"), spans), std::nullopt);
      EXPECT_EQ(ValidateTuple(with("\\n"), spans), std::nullopt);
      EXPECT_EQ(ValidateTuple(with("\xc3\xa9"), spans), std::nullopt);  // é
      EXPECT_EQ(ValidateTuple(with("\x01"), spans),
                "control character in a string at byte " + std::to_string(offset));
      EXPECT_EQ(ValidateTuple(with("\x7f"), spans), std::nullopt) << "DEL is not a control here";
      EXPECT_EQ(ValidateTuple(with("\xff"), spans),
                "invalid UTF-8 at byte " + std::to_string(offset));
      EXPECT_EQ(ValidateTuple(with("\\q"), spans),
                "invalid escape at byte " + std::to_string(offset));
      // A quote ends the string where it is: the rest is not JSON.
      EXPECT_NE(ValidateTuple(with("\""), spans), std::nullopt);
    }
  }
}

TEST(ValidateTuple, AcceptsValidArraysAndFindsTheirValues) {
  const std::vector<Valid> cases = {
      {"[]", {}},
      {" [ ] ", {}},
      {"[1]", {"1"}},
      {R"([ "a,b" , 1, {"x":[1,2]}, [3,"]"], null, "q\"]" ])",
       {R"("a,b")", "1", R"({"x":[1,2]})", R"([3,"]"])", "null", R"("q\"]")"}},
      {"[true,false,null]", {"true", "false", "null"}},
      {"[-0, 0.5, 1e5, 1E+5, -1.5e-3, 10]", {"-0", "0.5", "1e5", "1E+5", "-1.5e-3", "10"}},
      {R"(["\u00e9\ud83d\ude00", "\"\\\/\b\f\n\r\t"])",
       {R"("\u00e9\ud83d\ude00")", R"("\"\\\/\b\f\n\r\t")"}},
      {"[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]",
       {"\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""}},
      {"[{}, [], {\"a\" : {\"b\" : [ ] } }]", {"{}", "[]", "{\"a\" : {\"b\" : [ ] } }"}},
      {"[1e-400]", {"1e-400"}},  // below a double: a zero, not an error
      {"[123456789012345678901234567890]", {"123456789012345678901234567890"}},
      {"[\"eight.bytes\\\"and more plain text\"]", {"\"eight.bytes\\\"and more plain text\""}},
      {"[\n1\r\n,\t2\n]", {"1", "2"}},
      {Nested(kMaxTupleDepth), {Nested(kMaxTupleDepth - 1)}},
  };
  for (const auto& c : cases) {
    ValueSpans spans;
    const auto err = ValidateTuple(c.tuple, spans);
    EXPECT_FALSE(err) << c.tuple << ": " << *err;
    std::vector<std::string> values;
    for (auto [at, len] : spans) values.emplace_back(c.tuple.substr(at, len));
    EXPECT_EQ(values, c.values) << c.tuple;
    ValueSpans split;
    ASSERT_TRUE(SplitJsonArray(c.tuple, split));
    EXPECT_EQ(spans, split) << c.tuple << ": the same spans SplitJsonArray finds";
  }
}

struct Invalid {
  std::string tuple;
  std::string error;
};

TEST(ValidateTuple, RefusesInvalidJsonSayingWhereAndWhy) {
  const std::vector<Invalid> cases = {
      {"[tru]", "invalid literal at byte 1"},
      {"[nul]", "invalid literal at byte 1"},
      {"[True]", "a value is missing at byte 1"},
      {"[1,]", "a value is missing at byte 3"},
      {"[,1]", "a value is missing at byte 1"},
      {"[1 2]", "expected ',' or ']' at byte 3"},
      {"[1}", "expected ',' or ']' at byte 2"},
      {"[01]", "expected ',' or ']' at byte 2"},
      {"[1.]", "invalid number at byte 1"},
      {"[1e]", "invalid number at byte 1"},
      {"[-]", "invalid number at byte 1"},
      {"[.5]", "a value is missing at byte 1"},
      {"[+1]", "a value is missing at byte 1"},
      {"[NaN]", "NaN and Infinity are not JSON at byte 1"},
      {"[Infinity]", "NaN and Infinity are not JSON at byte 1"},
      {"[-Infinity]", "NaN and Infinity are not JSON at byte 1"},
      {"[1e400]", "number out of the range of a double at byte 1"},
      {"[-1e309]", "number out of the range of a double at byte 1"},
      {"[" + std::string(309, '9') + "]", "number out of the range of a double at byte 1"},
      {"[\"a\x01\"]", "control character in a string at byte 3"},
      {"[\"tab\there\"]", "control character in a string at byte 5"},
      {R"(["\q"])", "invalid escape at byte 2"},
      {R"(["\ud800"])", "invalid \\u escape (bad hex digits, or a lone surrogate) at byte 2"},
      {R"(["\ud800\u0041"])", "invalid \\u escape (bad hex digits, or a lone surrogate) at byte 2"},
      {R"(["\udc00"])", "invalid \\u escape (bad hex digits, or a lone surrogate) at byte 2"},
      {R"(["\u12"])", "invalid \\u escape (bad hex digits, or a lone surrogate) at byte 2"},
      {R"(["\u12g4"])", "invalid \\u escape (bad hex digits, or a lone surrogate) at byte 2"},
      {"[\"\xff\"]", "invalid UTF-8 at byte 2"},
      {"[\"caf\xc3\"]", "invalid UTF-8 at byte 5"},
      {"[\"\xed\xa0\x80\"]", "invalid UTF-8 at byte 2"},  // a surrogate, UTF-8 encoded
      {"[\"\xc0\xaf\"]", "invalid UTF-8 at byte 2"},      // overlong
      {"[\"abc", "unterminated string at byte 1"},
      {"[\"abc\\", "unterminated string at byte 1"},
      {"[1", "unterminated array at byte 2"},
      {"[{\"a\":1", "unterminated object at byte 7"},
      {"[{\"a\" 1}]", "expected ':' at byte 6"},
      {"[{1:2}]", "expected a string key at byte 2"},
      {"[{\"a\":1,}]", "expected a string key at byte 8"},
      {"[{\"a\":1]", "expected ',' or '}' at byte 7"},
      {"[1] x", "unexpected text after the value at byte 4"},
      {"[1]]", "unexpected text after the value at byte 3"},
      {"{\"a\":1}", "not a JSON array at byte 0"},
      {"\"a\"", "not a JSON array at byte 0"},
      {"", "not a JSON array at byte 0"},
      {"[\x80]", "a value is missing at byte 1"},
      {Nested(kMaxTupleDepth + 1),
       "nested deeper than 511 levels (byte 511; messages nest at most 512)"},
      {Nested(100'000, "1"), "nested deeper than 511 levels (byte 511; messages nest at most 512)"},
      {"[" + std::string(100'000, '{'), "expected a string key at byte 2"},
  };
  for (const auto& c : cases) {
    ValueSpans spans;
    const auto err = ValidateTuple(c.tuple, spans);
    ASSERT_TRUE(err) << c.tuple;
    EXPECT_EQ(*err, c.error) << c.tuple.substr(0, 80);
  }
}

TEST(ValidateTuple, DeepObjectsCountLikeArrays) {
  std::string ok = "[";
  std::string too_deep = "[";
  for (std::size_t i = 1; i < kMaxTupleDepth; ++i) ok += "{\"k\":";
  for (std::size_t i = 1; i <= kMaxTupleDepth; ++i) too_deep += "{\"k\":";
  ok += "1" + std::string(kMaxTupleDepth - 1, '}') + "]";
  too_deep += "1" + std::string(kMaxTupleDepth, '}') + "]";
  ValueSpans spans;
  EXPECT_FALSE(ValidateTuple(ok, spans));
  EXPECT_TRUE(ValidateTuple(too_deep, spans));
}

// Mutations of valid documents, against nlohmann's strict parser (a different implementation of
// the same RFC): both must accept and refuse the same texts. Deliberate differences, skipped:
// numbers past a double (nlohmann reads them as infinity).
TEST(JsonValidate, AgreesWithAReferenceParserOnMutations) {
  const std::vector<std::string> seeds = {
      R"([1,"a",{"b":[true,false,null]},-2.5e-3,"\u00e9\"x"])",
      R"({"k":[{},[],"",0,"caf\u00e9"],"z":{"y":1E+2}})",
      "[\"caf\xc3\xa9\",\"\\ud83d\\ude00\",\"\\/\"]",
  };
  const std::string alphabet = "[]{}\",:.-+0123456789eEtrufalsn \\u\x01\xc3\xa9\xff";
  std::uint32_t state = 2024;  // fixed: the same cases on every run
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  int accepted = 0;
  for (int round = 0; round < 30000; ++round) {
    std::string s = seeds[next() % seeds.size()];
    const int edits = 1 + static_cast<int>(next() % 3);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      const std::size_t at = next() % s.size();
      const char c = alphabet[next() % alphabet.size()];
      switch (next() % 3) {
        case 0:
          s[at] = c;
          break;
        case 1:
          s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          s.erase(at, 1);
      }
    }
    const bool ours = !json::Validate(s, 64);
    const bool reference = nlohmann::json::accept(s);
    if (ours != reference) {
      const auto err = json::Validate(s, 64);
      if (err && err->what == std::string_view("number out of the range of a double")) continue;
      ADD_FAILURE() << "disagree on "
                    << nlohmann::json(s).dump(-1, ' ', true,
                                              nlohmann::json::error_handler_t::replace)
                    << ": ours " << (ours ? "accepts" : json::Describe(*err)) << ", reference "
                    << (reference ? "accepts" : "refuses");
    }
    accepted += ours;
  }
  EXPECT_GT(accepted, 1000) << "the mutations should leave some documents valid";
}

TEST(JsonValidate, ScalarsAndDepthZero) {
  EXPECT_FALSE(json::Validate("1", 0));
  EXPECT_FALSE(json::Validate(" \"x\" ", 0));
  EXPECT_TRUE(json::Validate("[]", 0));
  EXPECT_FALSE(json::Validate("[]", 1));
  EXPECT_TRUE(json::Validate("[[]]", 1));
  EXPECT_TRUE(json::Validate(" ", 5));
  EXPECT_TRUE(json::Validate("1 2", 5));
}

TEST(JsonText, Unescape) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plain", "plain"},
      {R"(caf\u00e9)", "caf\xc3\xa9"},
      {R"(caf\u00E9)", "caf\xc3\xa9"},
      {R"(a\/b)", "a/b"},
      {R"(\"\\\b\f\n\r\t)", "\"\\\b\f\n\r\t"},
      {R"(\ud83d\ude00)", "\xf0\x9f\x98\x80"},
      {R"(\u0000)", std::string(1, '\0')},
      {R"(\u20ac)", "\xe2\x82\xac"},
  };
  for (const auto& [in, want] : cases) {
    std::string out;
    EXPECT_TRUE(json::AppendUnescaped(out, in)) << in;
    EXPECT_EQ(out, want) << in;
  }
  for (std::string bad : {R"(\q)", R"(\u12)", R"(\ud800)", R"(\udc00x)", "end\\"}) {
    std::string out;
    EXPECT_FALSE(json::AppendUnescaped(out, bad)) << bad;
  }
}

TEST(JsonText, MinifyKeepsStringsAsWritten) {
  std::string out;
  json::AppendMinified(out, "\r\n{ \"a b\" :\n [1,\t\"x\\\" y\" ] }\n");
  EXPECT_EQ(out, R"({"a b":[1,"x\" y"]})");
}

TEST(JsonText, MembersInOrderWithRawValues) {
  json::MemberReader r(R"( { "a" : [1, {"b":2}] , "c\"d":"x,y" ,"e":-1.5e3, "f" : {} } )");
  std::vector<std::pair<std::string, std::string>> got;
  std::string_view k;
  std::string_view v;
  while (r.Next(k, v)) got.emplace_back(k, v);
  EXPECT_EQ(got,
            (std::vector<std::pair<std::string, std::string>>{
                {"a", R"([1, {"b":2}])"}, {R"(c\"d)", R"("x,y")"}, {"e", "-1.5e3"}, {"f", "{}"}}));
  json::MemberReader empty("{}");
  EXPECT_FALSE(empty.Next(k, v));
}

TEST(JsonText, NumberValue) {
  EXPECT_EQ(json::NumberValue("1e0"), 1.0);
  EXPECT_EQ(json::NumberValue("-2.5"), -2.5);
  EXPECT_EQ(json::NumberValue("1e400"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(json::NumberValue("-1e400"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(json::NumberValue("0.0001e-400"), 0.0);
  EXPECT_EQ(json::NumberValue("-1e-400"), -0.0);
  EXPECT_EQ(json::NumberValue("1000e-401"), 0.0);
  EXPECT_EQ(json::NumberValue("0.001e312"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(json::NumberValue("0.001e311"), 1e308);
  EXPECT_EQ(json::NumberValue("x"), std::nullopt);
}

}  // namespace
}  // namespace sparse::runtime
