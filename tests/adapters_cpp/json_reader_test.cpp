// The adapter's JSON reader must accept exactly what nlohmann::json::parse accepts and produce
// equal values of the same types: a fixed corpus plus a seeded differential fuzz.
#include <sparse/detail/bolt_inbox.hpp>
#include <sparse/detail/json_reader.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using sparse::json;

std::optional<json> ours(const std::string& text) {
  try {
    return sparse::detail::parse_message(text);
  } catch (const sparse::ProtocolError&) {
    return std::nullopt;
  }
}

std::optional<json> reference(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::exception&) {  // parse_error, or out_of_range for 1e400
    return std::nullopt;
  }
}

// Same acceptance; if accepted, equal values with equal serialisations (which tells number
// types apart: 1 vs 1.0).
void expect_same(const std::string& text) {
  const auto expected = reference(text);
  const auto got = ours(text);
  ASSERT_EQ(got.has_value(), expected.has_value())
      << "input: " << json(text).dump(-1, ' ', true, json::error_handler_t::replace);
  if (!expected) return;
  EXPECT_EQ(*got, *expected) << text;
  EXPECT_EQ(got->dump(), expected->dump()) << text;
  EXPECT_EQ(got->type(), expected->type()) << text;
}

TEST(JsonReader, AcceptsWhatNlohmannAccepts) {
  const std::vector<std::string> valid = {
      "0",
      "-0",
      "1",
      "-1",
      "0.5",
      "-0.5e-3",
      "1E5",
      "1e+5",
      "2.5E-5",
      "18446744073709551615",
      "18446744073709551616",
      "9223372036854775807",
      "9223372036854775808",
      "-9223372036854775808",
      "-9223372036854775809",
      "123456789012345678901234567890",
      "1.7976931348623157e308",
      "5e-324",
      "1e-400",
      "true",
      "false",
      "null",
      "\"\"",
      "[]",
      "{}",
      " [ ] ",
      "\t{\r\n}\n",
      "\"plain\"",
      "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t\"",
      "\"\\u0000\"",
      "\"\\u00e9\\u20AC\"",
      "\"\\ud83d\\ude00\"",
      "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
      "\"\x7f\"",
      "[1,\"a\",[true,{\"k\":null}],{}]",
      "{\"a\":1,\"a\":2}",
      "{\"\":0}",
      "\xEF\xBB\xBF[1]",
      "{\"id\":\"-6955786537413359385\",\"comp\":\"split\",\"stream\":\"default\",\"task\":3,"
      "\"tuple\":[\"word\",1,2.5,null]}",
      std::string(600, '[') + std::string(600, ']'),
  };
  for (const auto& text : valid) {
    SCOPED_TRACE(text.substr(0, 80));
    if (text.size() > 1000) {
      // Nesting beyond kMaxDepth: nlohmann takes it, we refuse it on purpose (no stack overflow).
      EXPECT_TRUE(reference(text).has_value());
      EXPECT_FALSE(ours(text).has_value());
      continue;
    }
    ASSERT_TRUE(reference(text).has_value());
    expect_same(text);
  }
}

TEST(JsonReader, RejectsWhatNlohmannRejects) {
  const std::vector<std::string> invalid = {
      "",
      " ",
      "[",
      "]",
      "{",
      "}",
      "[1,]",
      "[,1]",
      "[1 2]",
      "{,}",
      "{\"a\"}",
      "{\"a\":}",
      "{\"a\":1,}",
      "{a:1}",
      "{'a':1}",
      "01",
      "-",
      "-a",
      "1.",
      ".5",
      "1e",
      "1e+",
      "+1",
      "0x10",
      "tru",
      "nul",
      "True",
      "NaN",
      "Infinity",
      "-Infinity",
      "\"abc",
      "\"\\x\"",
      "\"\\u12\"",
      "\"\\u12g4\"",
      "\"\\uD800\"",
      "\"\\uDC00\"",
      "\"\\uD800\\u0041\"",
      "\"\\uD800x\"",
      "\"tab\there\"",
      std::string("\"nul\0\"", 6),
      "\"\x01\"",
      "\"\xff\"",
      "\"\xc0\xaf\"",
      "\"\xc1\xbf\"",
      "\"\xe0\x80\xaf\"",
      "\"\xed\xa0\x80\"",
      "\"\xf4\x90\x80\x80\"",
      "\"\xf5\x80\x80\x80\"",
      "\"\xe2\x82\"",
      "\"\x80\"",
      "[1] [2]",
      "1e400",
      "-1e400",
      "[1]x",
      "// c\n[1]",
      "[1,2",
      "{\"a\":[}",
      "\"\\",
  };
  for (const auto& text : invalid) {
    SCOPED_TRACE(json(text).dump(-1, ' ', true, json::error_handler_t::replace));
    ASSERT_FALSE(reference(text).has_value());
    EXPECT_FALSE(ours(text).has_value());
  }
}

TEST(JsonReader, ANulByteIsAnErrorNotTheEndOfInput) {
  const std::string text("[1]\0[2]", 7);
  EXPECT_TRUE(reference(text).has_value());  // nlohmann stops at the NUL
  EXPECT_FALSE(ours(text).has_value());
}

TEST(JsonReader, ErrorsSayWhereAndShowTheText) {
  try {
    sparse::detail::parse_message("[1, tru]");
    FAIL() << "no exception";
  } catch (const sparse::ProtocolError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("at byte 4"), std::string::npos) << what;
    EXPECT_NE(what.find("[1, tru]"), std::string::npos) << what;
  }
}

// Random JSON values: every type, strings with escapes and multi-byte characters.
class Generator {
 public:
  explicit Generator(unsigned seed) : random_(seed) {}

  json value(int depth = 0) {
    switch (pick(depth < 4 ? 8 : 6)) {
      case 0:
        return nullptr;
      case 1:
        return pick(2) == 1;
      case 2:
        return static_cast<std::int64_t>(random_()) >> pick(64);
      case 3:
        return static_cast<std::uint64_t>(random_()) >> pick(64);
      case 4:
        return std::ldexp(static_cast<double>(random_()) / 1e9 - 9e9, pick(200) - 100);
      case 5:
        return string();
      case 6: {
        json array = json::array();
        for (int i = pick(5); i > 0; --i) array.push_back(value(depth + 1));
        return array;
      }
      default: {
        json object = json::object();
        for (int i = pick(5); i > 0; --i) object[string()] = value(depth + 1);
        return object;
      }
    }
  }

  // Serialises with random whitespace around structural characters.
  std::string text(const json& v) {
    std::string compact = v.dump(pick(2) == 0 ? -1 : pick(3));
    std::string out;
    bool in_string = false, escaped = false;
    auto structural = [](char c) { return std::strchr("{}[],:", c) != nullptr; };
    char previous = ',';
    for (char c : compact) {
      if (!in_string && (structural(c) || structural(previous)) && pick(4) == 0) {
        out += " \t\r\n"[pick(4)];
      }
      previous = in_string ? 'x' : c;
      out += c;
      if (in_string) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"') {
          in_string = false;
        }
      } else if (c == '"') {
        in_string = true;
      }
    }
    return out;
  }

  // Flips, deletes or inserts one byte.
  std::string mutate(std::string text) {
    if (text.empty()) return "x";
    const auto at = static_cast<std::size_t>(pick(static_cast<int>(text.size())));
    const char bytes[] = "{}[],:\"\\-+.eE0123456789tfnu \x01\x7f\x80\xc3\xa9\xed\xff";
    const char byte = bytes[pick(sizeof bytes - 1)];
    switch (pick(3)) {
      case 0:
        text[at] = byte;
        break;
      case 1:
        text.erase(at, 1);
        break;
      default:
        text.insert(at, 1, byte);
    }
    return text;
  }

  int pick(int n) { return static_cast<int>(random_() % static_cast<unsigned>(n)); }

 private:
  std::string string() {
    static const char* const pieces[] = {"a", "word", "\"", "\\",   "/", "\n",  "\t", "\x01",
                                         "é", "€",    "😀",  "\x7f", " ", "end", "{",  "]"};
    std::string s;
    for (int i = pick(6); i > 0; --i) s += pieces[pick(sizeof pieces / sizeof *pieces)];
    return s;
  }

  std::mt19937_64 random_;
};

TEST(JsonReader, DifferentialFuzzAgainstNlohmann) {
  Generator generate(20240601);
  for (int i = 0; i < 4000; ++i) {
    const json value = generate.value();
    const std::string text = generate.text(value);
    ASSERT_NO_FATAL_FAILURE(expect_same(text));
    const auto parsed = ours(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    EXPECT_EQ(*parsed, value);
    for (int m = 0; m < 5; ++m) ASSERT_NO_FATAL_FAILURE(expect_same(generate.mutate(text)));
  }
}

TEST(JsonWriter, WritesTheSameTextAsDump) {
  Generator generate(7);
  for (int i = 0; i < 4000; ++i) {
    const json value = generate.value();
    std::string out = "prefix:";
    sparse::detail::append_json(out, value);
    ASSERT_EQ(out, "prefix:" + value.dump());
  }
}

TEST(JsonWriter, InvalidUtf8AnywhereThrows) {
  const std::string bad = "\xff";
  for (const json& value : {json(bad), json::array({1, json::array({bad})}),
                            json::object({{"k", bad}}), json::object({{bad, 1}})}) {
    std::string out;
    EXPECT_THROW(sparse::detail::append_json(out, value), json::type_error);
  }
}

// The bolt's one-pass envelope parser.
TEST(BoltMessage, TupleFieldsInAnyOrderWithExtras) {
  sparse::Tuple tuple;
  json reply;
  ASSERT_TRUE(sparse::detail::parse_bolt_message(
      R"({"tuple":["cow",2],"extra":{"x":[1]},"task":3,"stream":"words","comp":"split","id":"-1"})",
      tuple, reply));
  EXPECT_EQ(tuple.id(), "-1");
  EXPECT_EQ(tuple.component(), "split");
  EXPECT_EQ(tuple.stream(), "words");
  EXPECT_EQ(tuple.task(), 3);
  EXPECT_EQ(tuple.values(), json::array({"cow", 2}));
}

TEST(BoltMessage, HeartbeatsAndTicks) {
  sparse::Tuple tuple;
  json reply;
  ASSERT_TRUE(sparse::detail::parse_bolt_message(
      R"({"id":"-5","comp":null,"stream":"__heartbeat","task":-1,"tuple":[]})", tuple, reply));
  EXPECT_TRUE(tuple.is_heartbeat());
  EXPECT_EQ(tuple.component(), "");
  ASSERT_TRUE(sparse::detail::parse_bolt_message(
      R"({"id":"7","comp":"__system","stream":"__tick","task":-1,"tuple":[5]})", tuple, reply));
  EXPECT_TRUE(tuple.is_tick());
  EXPECT_EQ(tuple.get<int>(0), 5);
}

TEST(BoltMessage, TaskIdReplies) {
  sparse::Tuple tuple;
  json reply;
  EXPECT_FALSE(sparse::detail::parse_bolt_message(" [4, 5]\n", tuple, reply));
  EXPECT_EQ(reply, json::array({4, 5}));
}

TEST(BoltMessage, RefusesOtherShapes) {
  sparse::Tuple tuple;
  json reply;
  for (const char* text : {R"({"id":"1","comp":"s"})", R"({"id":"1","tuple":"x"})", "42",
                           "\"text\"", R"({"id":"1","tuple":[1]} x)", R"({"id":"1","tuple":[1})"}) {
    EXPECT_THROW(sparse::detail::parse_bolt_message(text, tuple, reply), sparse::ProtocolError)
        << text;
  }
}

}  // namespace
