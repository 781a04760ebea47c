// Records to tuple values and back, including the inputs that must be refused, not mangled.
#include "kafka/record_codec.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace sparse::kafka {
namespace {

SpoutOptions Options(nlohmann::json extra = nlohmann::json::object()) {
  extra["topics"] = {"t"};
  extra["group_id"] = "g";
  std::string error;
  auto o = ParseSpoutOptions(extra, error);
  EXPECT_TRUE(o) << error;
  return o ? *o : SpoutOptions{};
}

RecordView Record(std::optional<std::string_view> key, std::optional<std::string_view> value) {
  RecordView r;
  r.topic = "clicks";
  r.partition = 3;
  r.offset = 42;
  r.key = key;
  r.value = value;
  r.timestamp = 1700000000000;
  return r;
}

TEST(RecordEncoder, DefaultFields) {
  RecordEncoder enc(Options());
  std::string out;
  ASSERT_FALSE(enc.Encode(Record("k", "hello \"world\"\n"), out));
  EXPECT_EQ(out, R"(["clicks",3,42,"k","hello \"world\"\n"])");
}

TEST(RecordEncoder, NullKeyAndValue) {
  RecordEncoder enc(Options({{"fields", {"key", "value", "timestamp"}}}));
  std::string out;
  ASSERT_FALSE(enc.Encode(Record(std::nullopt, std::nullopt), out));
  EXPECT_EQ(out, "[null,null,1700000000000]");
}

TEST(RecordEncoder, InvalidUtf8IsADecodeErrorNotMangled) {
  RecordEncoder enc(Options());
  std::string out;
  auto err = enc.Encode(Record("k", std::string_view("\xff\xfe", 2)), out);
  ASSERT_TRUE(err);
  EXPECT_EQ(*err,
            "value is not valid UTF-8 text (value_format: string; use base64 for binary "
            "data)");
}

TEST(RecordEncoder, Base64ForBinary) {
  RecordEncoder enc(Options({{"fields", {"value"}}, {"value_format", "base64"}}));
  std::string out;
  ASSERT_FALSE(enc.Encode(Record(std::nullopt, std::string_view("\xff\x00\x01", 3)), out));
  EXPECT_EQ(out, R"(["/wAB"])");
}

TEST(RecordEncoder, JsonValuesAreEmbeddedAndChecked) {
  RecordEncoder enc(Options({{"fields", {"value"}}, {"value_format", "json"}}));
  std::string out;
  ASSERT_FALSE(enc.Encode(Record(std::nullopt, R"({"a": [1, 2]})"), out));
  EXPECT_EQ(out, R"([{"a": [1, 2]}])");
  out.clear();
  ASSERT_FALSE(enc.Encode(Record(std::nullopt, "{\n\"a\": 1\n}"), out));
  EXPECT_EQ(out, R"([{"a":1}])") << "no line breaks inside a tuple";
  out.clear();
  auto err = enc.Encode(Record(std::nullopt, "{not json"), out);
  ASSERT_TRUE(err);
  EXPECT_EQ(*err,
            "value is not a JSON document (value_format: json): expected a string key at byte 1");
  out.clear();
  err = enc.Encode(Record(std::nullopt, "[NaN]"), out);
  ASSERT_TRUE(err);
  EXPECT_EQ(
      *err,
      "value is not a JSON document (value_format: json): NaN and Infinity are not JSON at byte 1");
}

std::string Nested(std::size_t depth, std::string_view open, std::string_view inner,
                   std::string_view close) {
  std::string s;
  s.reserve(depth * (open.size() + close.size()) + inner.size());
  for (std::size_t i = 0; i < depth; ++i) s += open;
  s += inner;
  for (std::size_t i = 0; i < depth; ++i) s += close;
  return s;
}

// Issue 18: a record nested ~100k deep overflowed the stack in the recursive JSON handling
// (SIGSEGV; the offset was never committed, so every restart died on it again). It must be a
// decode error, which the spout sends to its retries and dead-letter handling.
TEST(RecordEncoder, DeepJsonIsADecodeErrorNotACrash) {
  const std::size_t kDeep = 100'000;
  struct Case {
    const char* name;
    nlohmann::json options;
    std::string value;
    std::string expected_error;
  };
  const std::vector<Case> cases = {
      {"value_format json, one line",
       {{"fields", {"value"}}, {"value_format", "json"}},
       Nested(kDeep, "[", "1", "]"),
       "value nests deeper than 510 levels (value_format: json), the most a tuple value may"},
      {"value_format json with line breaks (was re-serialised)",
       {{"fields", {"value"}}, {"value_format", "json"}},
       Nested(kDeep, "[\n", "1", "\n]"),
       "value nests deeper than 510 levels (value_format: json), the most a tuple value may"},
      {"value_format json, objects",
       {{"fields", {"value"}}, {"value_format", "json"}},
       Nested(kDeep, "{\"a\":", "1", "}"),
       "value nests deeper than 510 levels (value_format: json), the most a tuple value may"},
      {"json_fields",
       {{"fields", nlohmann::json::array()}, {"json_fields", {"a"}}},
       "{\"a\":" + Nested(kDeep, "[", "", "]") + "}",
       "value nests deeper than 511 levels (json_fields), more than a tuple value may"},
      {"json_fields, the deep part in a member nobody asked for",
       {{"fields", nlohmann::json::array()}, {"json_fields", {"a"}}},
       "{\"a\":1,\"b\":" + Nested(kDeep, "{\"b\":", "null", "}") + "}",
       "value nests deeper than 511 levels (json_fields), more than a tuple value may"},
      {"key_format json",
       {{"fields", {"key"}}, {"key_format", "json"}},
       Nested(kDeep, "[", "", "]"),
       "key nests deeper than 510 levels (key_format: json), the most a tuple value may"},
  };
  for (const auto& c : cases) {
    RecordEncoder enc(Options(c.options));
    std::string out;
    const bool as_key = c.options["fields"] == nlohmann::json::array({"key"});
    auto err = as_key ? enc.Encode(Record(c.value, std::nullopt), out)
                      : enc.Encode(Record(std::nullopt, c.value), out);
    EXPECT_EQ(err.value_or("accepted"), c.expected_error) << c.name;
  }
}

// The limit is exact: the deepest value accepted makes a tuple the runtime accepts (a message
// carrying it nests multilang::kMaxNestingDepth levels), one level more is refused.
TEST(RecordEncoder, JsonDepthLimitIsTheTuplesLimit) {
  const std::size_t max_value = runtime::kMaxValueDepth;
  {
    RecordEncoder enc(Options({{"fields", {"value"}}, {"value_format", "json"}}));
    std::string out;
    ASSERT_FALSE(enc.Encode(Record(std::nullopt, Nested(max_value, "[\n", "1", "]")), out));
    runtime::ValueSpans spans;
    EXPECT_FALSE(runtime::ValidateTuple(out, spans));
    out.clear();
    EXPECT_TRUE(enc.Encode(Record(std::nullopt, Nested(max_value + 1, "[", "1", "]")), out));
  }
  {
    RecordEncoder enc(Options({{"fields", nlohmann::json::array()}, {"json_fields", {"a"}}}));
    std::string out;
    ASSERT_FALSE(enc.Encode(
        Record(std::nullopt, "{\"a\":" + Nested(max_value, "{\"x\":", "1", "}") + "}"), out));
    runtime::ValueSpans spans;
    EXPECT_FALSE(runtime::ValidateTuple(out, spans));
    out.clear();
    EXPECT_TRUE(enc.Encode(
        Record(std::nullopt, "{\"a\":" + Nested(max_value + 1, "{\"x\":", "1", "}") + "}"), out));
  }
}

TEST(RecordEncoder, JsonFieldsPickMembers) {
  RecordEncoder enc(Options({{"fields", {"offset"}}, {"json_fields", {"user", "n", "missing"}}}));
  std::string out;
  ASSERT_FALSE(enc.Encode(Record(std::nullopt, R"({"user":"ann","n":7,"x":0})"), out));
  EXPECT_EQ(out, R"([42,"ann",7,null])");
  out.clear();
  auto err = enc.Encode(Record(std::nullopt, "[1]"), out);
  ASSERT_TRUE(err);
  EXPECT_EQ(*err, "value is not a JSON object (json_fields)");
  // Keys are compared by their text, escapes decoded; a repeated key keeps its last value;
  // values lose their layout (a tuple is one line) but keep their spelling.
  out.clear();
  ASSERT_FALSE(enc.Encode(
      Record(std::nullopt, "{\"us\\u0065r\": {\n  \"a\": [1, \"x y\"]\n},\n\"n\": 1, \"n\": 1.50}"),
      out));
  EXPECT_EQ(out, R"([42,{"a":[1,"x y"]},1.50,null])");
}

TEST(RecordEncoder, EncodedValuesAreTuplesTheRuntimeAccepts) {
  // The runtime validates what a built-in emits (runtime::ValidateTuple); a record the encoder
  // accepts must pass, with one value per field: strings with escapes, numbers, null, base64,
  // embedded JSON (blanks around a document are not part of the value), json_fields.
  const std::vector<std::pair<nlohmann::json, RecordView>> cases = {
      {nlohmann::json::object(), Record("k", "a \"quoted\", [bracketed] value")},
      {{{"fields", {"key", "value", "timestamp", "offset", "partition", "topic"}}},
       Record(std::nullopt, std::nullopt)},
      {{{"fields", {"value"}}, {"value_format", "base64"}}, Record("k", "\x01\x02")},
      {{{"fields", {"key", "value"}}, {"value_format", "json"}},
       Record("k", "  {\"a\": [1, \"]\"]}\t")},
      {{{"fields", {"key", "value"}}, {"value_format", "json"}},
       Record("k", "\r\n {\"a\":\r\n [1, \"]\"]}\n")},
      {{{"fields", {"offset"}}, {"json_fields", {"user", "n", "missing"}}},
       Record(std::nullopt, R"({"user":{"name":"ann"},"n":[7,8]})")},
      {{{"fields", nlohmann::json::array()}, {"json_fields", {"n"}}},
       Record(std::nullopt, R"({"n":1})")},
  };
  // The spans the encoder reports are the ones ValidateTuple finds (the runtime trusts them:
  // BuiltinCollector::PrepareEncoded).
  for (const auto& [extra, record] : cases) {
    RecordEncoder enc(Options(extra));
    std::string out;
    runtime::ValueSpans encoded = {{99, 99}};  // replaced, not appended to
    ASSERT_FALSE(enc.Encode(record, out, &encoded)) << extra.dump();
    runtime::ValueSpans spans;
    EXPECT_FALSE(runtime::ValidateTuple(out, spans)) << out;
    EXPECT_EQ(spans.size(), nlohmann::json::parse(out).size()) << out;
    EXPECT_EQ(encoded, spans) << out;
  }
}

TEST(Utf8, AcceptsValidRejectsInvalid) {
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));          // truncated
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
}

TEST(ValueBytes, StringsAreTheirTextOtherJsonIsItself) {
  bool ok = false;
  EXPECT_EQ(ValueBytes(R"("plain")", ok), "plain");
  EXPECT_TRUE(ok);
  EXPECT_EQ(ValueBytes(R"("a\"b\u00e9")", ok), "a\"b\xc3\xa9");
  EXPECT_EQ(ValueBytes("12", ok), "12");
  EXPECT_EQ(ValueBytes(R"({"a":1})", ok), R"({"a":1})");
  EXPECT_FALSE(ValueBytes("null", ok));
  EXPECT_TRUE(ok);
  EXPECT_FALSE(ValueBytes(R"("bad\q")", ok));
  EXPECT_FALSE(ok);
}

TEST(TupleAsJsonObject, NamesEachValue) {
  EXPECT_EQ(TupleAsJsonObject({"word", "count"}, {R"("cat")", "3"}), R"({"word":"cat","count":3})");
}

}  // namespace
}  // namespace sparse::kafka

namespace sparse::kafka {
namespace {

// The fast escaper against nlohmann's, on strings that put every kind of byte (plain, quote,
// backslash, control, multi-byte UTF-8) at every position of the 8-byte blocks it skips over.
TEST(AppendJsonStringUtf8, MatchesAReferenceEncoder) {
  const std::vector<std::string> pieces = {
      "a",    "Z",    " ", "\"",       "\\",           "\n",
      "\x01", "\x1f", "/", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
      "~"};
  std::uint32_t state = 12345;  // a fixed sequence: the test is the same on every run
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (int round = 0; round < 2000; ++round) {
    std::string s;
    const auto len = next() % 40;
    for (std::uint32_t i = 0; i < len; ++i) s += pieces[next() % pieces.size()];
    std::string out;
    ASSERT_TRUE(AppendJsonStringUtf8(out, s));
    EXPECT_EQ(out, nlohmann::json(s).dump()) << "input: " << nlohmann::json(s).dump();
  }
  // Long plain runs with one special byte at every position, so that each is found inside and
  // at either end of a 16- and an 8-byte block, and after them.
  for (const std::string special :
       {"\"", "\\", "\n", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xf0\x9f\x98\x80"}) {
    for (std::size_t len = 0; len <= 48; ++len) {
      for (std::size_t at = 0; at <= len; ++at) {
        const std::string s = std::string(at, 'a') + special + std::string(len - at, '~');
        std::string out = "[";
        ASSERT_TRUE(AppendJsonStringUtf8(out, s));
        EXPECT_EQ(out, "[" + nlohmann::json(s).dump()) << "input: " << nlohmann::json(s).dump();
      }
    }
  }
  std::string out;
  EXPECT_FALSE(AppendJsonStringUtf8(out, std::string("abcdefgh\xff", 9)));
  EXPECT_FALSE(AppendJsonStringUtf8(out, std::string(37, 'a') + "\xff"));
  EXPECT_FALSE(AppendJsonStringUtf8(out, std::string(20, 'a') + "\xc3"));
  EXPECT_FALSE(AppendJsonStringUtf8(out, std::string("\x80", 1)));
}

}  // namespace
}  // namespace sparse::kafka
