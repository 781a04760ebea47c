// MessagePack in the C++ adapter: the codec held to nlohmann's to_msgpack/from_msgpack (a corpus
// and a seeded differential fuzz), format detection, framing fed in every split, hostile input
// (truncated, oversized, over-deep, never-used bytes), the bolt's envelope parser, the encoders,
// and protocol tests with a MessagePack host for what the tests shared with JSON (bolt_test,
// spout_test, examples_test run once per format) do not cover.
#include "harness.hpp"

#include <sparse/detail/decoder.hpp>
#include <sparse/detail/msgpack.hpp>
#include <sparse/detail/wire.hpp>
#include <sparse/sparse.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using namespace sparse_test;
using sparse::detail::FrameDecoder;
namespace mp = sparse::detail::msgpack;

std::string bytes(std::initializer_list<int> list) {
  std::string out;
  for (int b : list) out += static_cast<char>(b);
  return out;
}

// nlohmann's encoding: the reference the adapter is held to.
std::string packed(const json& value) {
  const std::vector<std::uint8_t> data = json::to_msgpack(value);
  return std::string(data.begin(), data.end());
}

std::string ours_packed(const json& value) {
  std::string out;
  mp::append_value(out, value);
  return out;
}

std::optional<json> ours_msgpack(std::string_view data) {
  try {
    return sparse::detail::parse_message(Wire::msgpack, data);
  } catch (const sparse::ProtocolError&) {
    return std::nullopt;
  }
}

std::optional<json> reference_msgpack(std::string_view data) {
  try {
    return json::from_msgpack(data.begin(), data.end());
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

// Feeds `input` to a decoder in pieces of `piece` bytes; returns every message.
std::vector<std::string> frame(std::string_view input, std::size_t piece, FrameDecoder& decoder) {
  std::vector<std::string> messages;
  std::string_view text;
  while (!input.empty()) {
    const std::size_t n = std::min(piece, input.size());
    std::memcpy(decoder.write_area(n), input.data(), n);
    decoder.commit(n);
    input.remove_prefix(n);
    while (decoder.next(text)) messages.emplace_back(text);
  }
  return messages;
}

// Framing of MessagePack input whatever its first message is (no detection).
std::vector<std::string> frame(std::string_view input, std::size_t piece = 1 << 20) {
  FrameDecoder decoder(std::size_t{256} << 20, Wire::msgpack);
  return frame(input, piece, decoder);
}

std::string nested_arrays(int depth, std::string_view innermost = "\x01") {
  return std::string(static_cast<std::size_t>(depth), '\x91') + std::string(innermost);
}

json tuple_json(const std::string& id, json values) {
  return tuple_message(id, std::move(values));
}

// --- detection -------------------------------------------------------------------------------

TEST(WireDetection, JsonIsAnObjectPossiblyAfterWhitespace) {
  FrameDecoder decoder;
  const auto messages = frame(" \r\n\t{\"a\":1}\nend\n", 1 << 20, decoder);
  EXPECT_EQ(decoder.wire(), Wire::json);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(json::parse(messages[0]), (json{{"a", 1}}));
}

TEST(WireDetection, MessagePackIsAMapOfAnySize) {
  json big = json::object();
  for (int i = 0; i < 20; ++i) big["k" + std::to_string(i)] = i;  // map 16
  const std::string map32 = bytes({0xdf, 0, 0, 0, 1, 0xa1, 'a', 0x01});
  for (const std::string& input : {packed({{"pidDir", "/tmp"}}), packed(big), map32}) {
    FrameDecoder decoder;
    const auto messages = frame(input, 1 << 20, decoder);
    EXPECT_EQ(decoder.wire(), Wire::msgpack) << mp::hex_excerpt(input.data(), input.size());
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_EQ(messages[0], input);
  }
}

TEST(WireDetection, WaitsWhileOnlyWhitespaceArrived) {
  FrameDecoder decoder;
  EXPECT_TRUE(frame(" \n\r\t ", 1, decoder).empty());
  EXPECT_EQ(decoder.wire(), Wire::unknown);
  EXPECT_FALSE(decoder.has_partial_message());
  EXPECT_EQ(frame("{}\nend\n", 1, decoder).size(), 1u);
  EXPECT_EQ(decoder.wire(), Wire::json);
}

TEST(WireDetection, AnythingElseIsAnErrorNamingWhatArrived) {
  struct Case {
    std::string input;
    std::string named;
  };
  const std::vector<Case> cases = {
      {"[1]\nend\n", "byte 0x5b '['"},
      {"hello\nend\n", "byte 0x68 'h'"},
      {bytes({0x00}), "byte 0x00"},
      {bytes({0x92, 0x01, 0x02}), "byte 0x92"},     // a MessagePack array
      {bytes({0xa3, 'a', 'b', 'c'}), "byte 0xa3"},  // a MessagePack string
      {" " + packed({{"a", 1}}), "byte 0x81 after whitespace"},
      {"\xef\xbb\xbf{}\nend\n", "byte 0xef"},  // a UTF-8 byte order mark
  };
  for (const auto& c : cases) {
    for (std::size_t piece : {std::size_t{1}, std::size_t{1} << 20}) {
      try {
        FrameDecoder decoder;  // detects
        frame(c.input, piece, decoder);
        ADD_FAILURE() << "no error for " << c.input;
      } catch (const sparse::ProtocolError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(c.named), std::string::npos) << what;
        EXPECT_NE(what.find("neither a JSON object"), std::string::npos) << what;
      }
    }
  }
}

// --- framing ---------------------------------------------------------------------------------

std::vector<json> host_messages() {
  return {handshake("/tmp/x", {{"topology.name", "t"}, {"ratio", 0.25}}),
          tuple_json("-6955786537413359385", {"cow", 1, -2, 3.5, nullptr, true}),
          json::array({4, 5}),
          heartbeat("7"),
          tick("8", 10),
          json::array(),
          command("ack", {{"partition", 3}, {"offset", 1234567890123}}),
          tuple_json("9", {std::string(300, 'x'), json::array({json::object({{"deep", {1}}})})})};
}

TEST(MsgpackFraming, BackToBackMessagesInEveryPieceSize) {
  std::string stream;
  for (const json& message : host_messages()) stream += packed(message);
  for (std::size_t piece = 1; piece <= 17; ++piece) {
    FrameDecoder decoder;
    const auto messages = frame(stream, piece, decoder);
    ASSERT_EQ(messages.size(), host_messages().size()) << "piece size " << piece;
    for (std::size_t i = 0; i < messages.size(); ++i) {
      EXPECT_EQ(json::from_msgpack(messages[i]), host_messages()[i]) << "piece size " << piece;
    }
    EXPECT_FALSE(decoder.has_partial_message());
  }
}

TEST(MsgpackFraming, MessagesLargerThanOneMebibyte) {
  const std::string big(3 << 20, 'x');
  const std::string stream = packed({{"tuple", {big}}}) + packed(json::array({1}));
  const auto messages = frame(stream, 64 * 1024);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(json::from_msgpack(messages[0])["tuple"][0].get<std::string>().size(), big.size());
  EXPECT_EQ(json::from_msgpack(messages[1]), json::array({1}));
}

TEST(MsgpackFraming, ATruncatedMessageWaitsAndIsReported) {
  const std::string first = packed(handshake("/tmp"));
  const std::string second = packed(tuple_json("1", {"a"}));
  FrameDecoder decoder;
  const auto messages = frame(first + second.substr(0, second.size() - 1), 3, decoder);
  EXPECT_EQ(messages.size(), 1u);
  std::string_view text;
  EXPECT_FALSE(decoder.finish(text));  // no `end` line rescues a MessagePack message
  EXPECT_TRUE(decoder.has_partial_message());
  EXPECT_EQ(frame(second.substr(second.size() - 1), 1, decoder).size(), 1u);
  EXPECT_FALSE(decoder.has_partial_message());
}

// A declared size above the limit is refused as soon as its head arrives: nothing waits for (or
// buffers) bytes that could never make an acceptable message.
TEST(MsgpackFraming, OversizedDeclarationsAreRefusedAtOnce) {
  const std::string start = bytes({0x81, 0xa1, 't'});
  const std::vector<std::string> heads = {
      bytes({0xdb, 0x00, 0x0f, 0x42, 0x40}),        // str 32 of 1e6 bytes
      bytes({0xc6, 0x00, 0x0f, 0x42, 0x40}),        // bin 32
      bytes({0xc9, 0x00, 0x0f, 0x42, 0x40, 0x01}),  // ext 32
      bytes({0xdd, 0xff, 0xff, 0xff, 0xff}),        // array 32 of 2^32-1 elements
      bytes({0xdf, 0xff, 0xff, 0xff, 0xff}),        // map 32 of 2^32-1 entries
      bytes({0xdc, 0x04, 0x00}),                    // array 16 of 1024 elements
  };
  for (const auto& head : heads) {
    FrameDecoder decoder(1000, Wire::msgpack);
    try {
      frame(start + head, 1, decoder);
      ADD_FAILURE() << "accepted " << mp::hex_excerpt(head.data(), head.size());
    } catch (const sparse::ProtocolError& e) {
      EXPECT_NE(std::string(e.what()).find("larger than the limit of 1000 bytes"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(MsgpackFraming, ElementsStillExpectedCountAgainstTheLimit) {
  // Two strings of 600 bytes in a 1000-byte limit: the second head is refused.
  const std::string input =
      bytes({0x92, 0xda, 0x02, 0x58}) + std::string(600, 'a') + bytes({0xda, 0x02, 0x58});
  FrameDecoder decoder(1000, Wire::msgpack);
  EXPECT_THROW(frame(input, 7, decoder), sparse::ProtocolError);
  // An array of 600 elements whose first ones take 3 bytes each: refused once the elements read
  // so far plus one byte for each still expected pass the limit, not at the end.
  std::string slow = bytes({0xdc, 0x02, 0x58});
  for (int i = 0; i < 600; ++i) slow += bytes({0xcd, 0x01, 0x00});
  FrameDecoder decoder2(1000, Wire::msgpack);
  std::size_t fed = 0;
  std::string_view text;
  EXPECT_THROW(
      {
        for (; fed < slow.size(); ++fed) {
          *decoder2.write_area(1) = slow[fed];
          decoder2.commit(1);
          decoder2.next(text);
        }
      },
      sparse::ProtocolError);
  EXPECT_LT(fed, 1000u);
}

TEST(MsgpackFraming, NestingDeeperThanTheLimitIsRefused) {
  const std::string ok = nested_arrays(mp::kMaxDepth);
  ASSERT_EQ(frame(ok).size(), 1u);
  EXPECT_TRUE(ours_msgpack(ok).has_value());  // the reader has the same limit
  for (int depth : {mp::kMaxDepth + 1, 100000}) {
    try {
      frame(nested_arrays(depth));
      ADD_FAILURE() << "accepted depth " << depth;
    } catch (const sparse::ProtocolError& e) {
      EXPECT_NE(std::string(e.what()).find("nesting deeper than 512"), std::string::npos)
          << e.what();
    }
  }
  // Empty containers count too, and maps as much as arrays.
  EXPECT_THROW(frame(std::string(mp::kMaxDepth, '\x91') + "\x90"), sparse::ProtocolError);
  std::string maps;
  for (int i = 0; i <= mp::kMaxDepth; ++i) maps += bytes({0x81, 0xa1, 'k'});
  EXPECT_THROW(frame(maps + "\x01"), sparse::ProtocolError);
}

TEST(MsgpackFraming, TheNeverUsedByteIsRefused) {
  const std::string input = packed(handshake("/tmp")) + bytes({0x92, 0x01, 0xc1});
  FrameDecoder decoder;
  try {
    frame(input, 1, decoder);
    ADD_FAILURE() << "accepted 0xc1";
  } catch (const sparse::ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("0xc1"), std::string::npos) << e.what();
  }
}

TEST(MsgpackFraming, FrameReaderReadsAPipeByteByByte) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string stream;
  for (const json& message : host_messages()) stream += packed(message);
  std::thread writer([&] {
    for (char c : stream) ASSERT_EQ(::write(fds[1], &c, 1), 1);
    ::close(fds[1]);
  });
  sparse::detail::FrameReader reader(fds[0]);
  std::string_view text;
  for (const json& expected : host_messages()) {
    ASSERT_EQ(reader.next(text), sparse::detail::FrameReader::Result::message);
    EXPECT_EQ(reader.wire(), Wire::msgpack);
    EXPECT_EQ(sparse::detail::parse_message(reader.wire(), text), expected);
  }
  EXPECT_EQ(reader.next(text), sparse::detail::FrameReader::Result::eof);
  EXPECT_FALSE(reader.ended_mid_message());
  writer.join();
  ::close(fds[0]);
}

// --- reading ---------------------------------------------------------------------------------

std::vector<json> corpus(bool with_floats) {
  std::vector<json> values = {
      nullptr,
      true,
      false,
      0,
      1,
      127,
      128,
      255,
      256,
      65535,
      65536,
      std::uint64_t{4294967295u},
      std::uint64_t{4294967296u},
      std::numeric_limits<std::uint64_t>::max(),
      -1,
      -32,
      -33,
      -128,
      -129,
      -32768,
      -32769,
      std::int64_t{-2147483648LL},
      std::int64_t{-2147483649LL},
      std::numeric_limits<std::int64_t>::min(),
      "",
      "plain",
      std::string(31, 'a'),
      std::string(32, 'b'),
      std::string(255, 'c'),
      std::string(256, 'd'),
      std::string(65535, 'e'),
      std::string(65536, 'f'),
      "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \"quoted\" \\ \n\t\x01",
      json::array(),
      json::array({1, "two", nullptr}),
      json::object(),
      json::object({{"k", {1, 2}}, {"", "empty key"}, {"\xc3\xa9", "unicode key"}}),
      json::binary({}),
      json::binary({0x00, 0xff, 0x10}),
      json::binary(std::vector<std::uint8_t>(300, 7)),
      json::binary(std::vector<std::uint8_t>(70000, 9)),
      handshake("/tmp/pids"),
      tuple_json("-6955786537413359385", {"cow", 1}),
  };
  json array15 = json::array(), array16 = json::array(), array70k = json::array();
  json object15 = json::object(), object16 = json::object(), object70k = json::object();
  for (int i = 0; i < 70000; ++i) {
    if (i < 15) {
      array15.push_back(i);
      object15[std::to_string(i)] = i;
    }
    if (i < 16) {
      array16.push_back(i);
      object16[std::to_string(i)] = i;
    }
    array70k.push_back(i);
    object70k[std::to_string(i)] = i;
  }
  for (json* v : {&array15, &array16, &array70k, &object15, &object16, &object70k}) {
    values.push_back(*v);
  }
  if (with_floats) {
    for (double d : {0.0, -0.0, 0.5, 3.5, -1.25, 0.1, 1e300, -2.5e-308, 123456789.125}) {
      values.push_back(d);  // nlohmann writes float 32 when exact, else float 64
    }
  }
  return values;
}

// The type the adapter gives a value read back: non-negative integers are unsigned, as from the
// JSON reader.
json::value_t read_back_type(const json& value) {
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
    return json::value_t::number_unsigned;
  }
  return value.type();
}

TEST(MsgpackReader, DecodesWhatNlohmannEncodes) {
  for (const json& value : corpus(true)) {
    const std::string data = packed(value);
    const auto got = ours_msgpack(data);
    ASSERT_TRUE(got.has_value()) << value.dump().substr(0, 100);
    EXPECT_EQ(*got, value) << value.dump().substr(0, 100);
    EXPECT_EQ(got->type(), read_back_type(value)) << value.dump().substr(0, 100);
  }
}

// Integers come out as the JSON reader makes them: non-negative ones unsigned, whatever their
// encoding.
TEST(MsgpackReader, IntegerTypesFollowTheJsonReader) {
  struct Case {
    std::string data;
    json expected;
  };
  const std::vector<Case> cases = {
      {bytes({0x05}), json(std::uint64_t{5})},
      {bytes({0xd0, 0x05}), json(std::uint64_t{5})},
      {bytes({0xd3, 0, 0, 0, 0, 0, 0, 0, 0x07}), json(std::uint64_t{7})},
      {bytes({0xd0, 0x80}), json(std::int64_t{-128})},
      {bytes({0xd1, 0xff, 0x7f}), json(std::int64_t{-129})},
      {bytes({0xd2, 0x80, 0, 0, 0}), json(std::int64_t{-2147483648LL})},
      {bytes({0xff}), json(std::int64_t{-1})},
      {bytes({0xe0}), json(std::int64_t{-32})},
      {bytes({0xcf, 0, 0, 0, 0, 0, 0, 0, 0x01}), json(std::uint64_t{1})},
      {bytes({0xcc, 0xff}), json(std::uint64_t{255})},
      {bytes({0xca, 0x40, 0x60, 0, 0}), json(3.5)},
      {bytes({0xd9, 0x01, 'x'}), json("x")},                      // str 8, not minimal
      {bytes({0xdc, 0x00, 0x01, 0xc0}), json::array({nullptr})},  // array 16, not minimal
      {bytes({0xde, 0x00, 0x01, 0xa1, 'k', 0xc3}), json{{"k", true}}},
      {bytes({0x82, 0xa1, 'k', 0x01, 0xa1, 'k', 0x02}), json{{"k", 2}}},  // last key wins
  };
  for (const auto& c : cases) {
    const auto got = ours_msgpack(c.data);
    ASSERT_TRUE(got.has_value()) << mp::hex_excerpt(c.data.data(), c.data.size());
    EXPECT_EQ(*got, c.expected);
    EXPECT_EQ(got->type(), c.expected.type()) << mp::hex_excerpt(c.data.data(), c.data.size());
  }
}

TEST(MsgpackReader, RefusesInvalidInputWithAProtocolError) {
  const std::vector<std::string> invalid = {
      "",
      bytes({0xc1}),
      bytes({0xa2, 'a'}),                           // truncated str
      bytes({0xa1, 0xff}),                          // invalid UTF-8
      bytes({0xa3, 0xed, 0xa0, 0x80}),              // a UTF-16 surrogate
      bytes({0xa2, 0xc0, 0x80}),                    // overlong
      bytes({0x81, 0xa1, 0xff, 0x01}),              // invalid UTF-8 key
      bytes({0x81, 0x01, 0x01}),                    // an integer key
      bytes({0x81, 0xc0, 0x01}),                    // a nil key
      bytes({0xd4, 0x01, 0x00}),                    // fixext 1
      bytes({0xc7, 0x01, 0xff, 0x00}),              // ext 8
      bytes({0xd6, 0xff, 0, 0, 0, 0}),              // the timestamp extension
      bytes({0x01, 0x02}),                          // bytes after the value
      bytes({0xdd, 0xff, 0xff, 0xff, 0xff, 0x01}),  // 2^32-1 elements declared, 1 byte left
      bytes({0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1}),  // 2^32-1 entries declared
      bytes({0xdb, 0xff, 0xff, 0xff, 0xff, 'a'}),   // a 4 GiB string declared
      bytes({0xc6, 0xff, 0xff, 0xff, 0xff, 'a'}),   // a 4 GiB binary declared
      bytes({0xcb, 0x00}),                          // truncated float 64
      nested_arrays(mp::kMaxDepth + 1),
      nested_arrays(200000),  // deeper than any stack: refused, not a crash
  };
  for (const auto& data : invalid) {
    EXPECT_THROW(sparse::detail::parse_message(Wire::msgpack, data), sparse::ProtocolError)
        << mp::hex_excerpt(data.data(), data.size());
  }
}

TEST(MsgpackReader, EveryProperPrefixOfAMessageIsTruncated) {
  for (const json& message : host_messages()) {
    const std::string data = packed(message);
    for (std::size_t n = 0; n < data.size(); ++n) {
      EXPECT_THROW(sparse::detail::parse_message(Wire::msgpack, data.substr(0, n)),
                   sparse::ProtocolError)
          << message.dump() << " cut at " << n;
    }
  }
}

// Random values: what nlohmann encodes the adapter decodes to the same value, and what the
// adapter encodes nlohmann decodes to the same value.
class ValueGenerator {
 public:
  explicit ValueGenerator(unsigned seed) : rng_(seed) {}

  json value(int depth = 0) {
    switch (pick(depth < 4 ? 10 : 7)) {
      case 0:
        return nullptr;
      case 1:
        return pick(2) == 1;
      case 2:
        return static_cast<std::int64_t>(rng_()) >> pick(64);
      case 3:
        return static_cast<std::uint64_t>(rng_()) >> pick(64);
      case 4:
        return std::ldexp(static_cast<double>(static_cast<std::int32_t>(rng_())), pick(80) - 40);
      case 5:
        return text();
      case 6: {
        std::vector<std::uint8_t> data(pick(40));
        for (auto& b : data) b = static_cast<std::uint8_t>(rng_());
        return json::binary(std::move(data));
      }
      case 7:
      case 8: {
        json array = json::array();
        for (int n = pick(pick(2) ? 5 : 40); n > 0; --n) array.push_back(value(depth + 1));
        return array;
      }
      default: {
        json object = json::object();
        for (int n = pick(pick(2) ? 5 : 40); n > 0; --n) object[text()] = value(depth + 1);
        return object;
      }
    }
  }

  std::string text() {
    static const char* const pieces[] = {
        "a",    "Z", " ", "\"", "\\", "\n", "\x01", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
        "word", "0"};
    std::string s;
    for (int n = pick(pick(4) ? 8 : 300); n > 0; --n) s += pieces[pick(12)];
    return s;
  }

  int pick(int n) { return static_cast<int>(rng_() % static_cast<unsigned>(n)); }
  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

TEST(MsgpackReader, DifferentialFuzz) {
  ValueGenerator generate(20240611);
  for (int i = 0; i < 3000; ++i) {
    const json value = generate.value();
    const std::string data = packed(value);
    const auto got = ours_msgpack(data);
    ASSERT_TRUE(got.has_value()) << value.dump(-1, ' ', false, json::error_handler_t::replace);
    ASSERT_EQ(*got, value);
    ASSERT_EQ(frame(data).size(), 1u);
  }
}

// Corrupted messages: the adapter either refuses them with a ProtocolError or reads what
// nlohmann reads; the framer never loses its way and nothing crashes.
TEST(MsgpackReader, MutationFuzz) {
  ValueGenerator generate(7);
  std::size_t accepted = 0;
  for (int i = 0; i < 8000; ++i) {
    std::string data = packed(generate.value());
    for (int n = 1 + generate.pick(3); n > 0; --n) {
      const auto at = static_cast<std::size_t>(generate.pick(static_cast<int>(data.size())));
      switch (generate.pick(3)) {
        case 0:
          data[at] = static_cast<char>(generate.rng()());
          break;
        case 1:
          data.erase(at, 1 + static_cast<std::size_t>(generate.pick(4)));
          break;
        default:
          data.insert(at, 1, static_cast<char>(generate.rng()()));
      }
      if (data.empty()) data = "\xc1";
    }
    const auto got = ours_msgpack(data);
    if (got) {
      ++accepted;
      const auto expected = reference_msgpack(data);
      ASSERT_TRUE(expected.has_value()) << mp::hex_excerpt(data.data(), data.size());
      ASSERT_EQ(*got, *expected) << mp::hex_excerpt(data.data(), data.size());
    }
    // Framing the same bytes: one message equal to the whole input, an error, or a wait.
    FrameDecoder decoder(1 << 20, Wire::msgpack);
    try {
      const auto messages = frame(data, 1 << 20, decoder);
      if (got) {
        ASSERT_EQ(messages.size(), 1u);
        EXPECT_EQ(messages[0], data);
      }
    } catch (const sparse::ProtocolError&) {
      ASSERT_FALSE(got.has_value()) << mp::hex_excerpt(data.data(), data.size());
    }
  }
  EXPECT_GT(accepted, 500u);  // the mutations leave many valid values: a real differential
}

// --- writing ---------------------------------------------------------------------------------

TEST(MsgpackWriter, SameBytesAsNlohmannForAllButFloats) {
  for (const json& value : corpus(false)) {
    EXPECT_EQ(ours_packed(value), packed(value)) << value.dump().substr(0, 100);
  }
}

TEST(MsgpackWriter, FloatsAreFloat64AndNonFiniteOnesNil) {
  EXPECT_EQ(ours_packed(3.5), bytes({0xcb, 0x40, 0x0c, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(ours_packed(std::nan("")), bytes({0xc0}));  // JSON writes null
  EXPECT_EQ(ours_packed(std::numeric_limits<double>::infinity()), bytes({0xc0}));
  for (double d : {0.1, -0.0, 1e300, 5e-324}) {
    EXPECT_EQ(json::from_msgpack(ours_packed(d)).get<double>(), d);
  }
}

TEST(MsgpackWriter, DifferentialFuzz) {
  ValueGenerator generate(99);
  for (int i = 0; i < 3000; ++i) {
    const json value = generate.value();
    const std::string data = ours_packed(value);
    ASSERT_EQ(json::from_msgpack(data), value);
    ASSERT_EQ(ours_msgpack(data), value);
  }
}

TEST(MsgpackWriter, InvalidUtf8AnywhereThrows) {
  const std::string bad = "\xff";
  for (const json& value : {json(bad), json::array({1, json::array({bad})}),
                            json::object({{"k", bad}}), json::object({{bad, 1}})}) {
    std::string out;
    EXPECT_THROW(mp::append_value(out, value), json::type_error);
  }
}

TEST(MsgpackWriter, TextReplacesInvalidUtf8) {
  std::string out;
  mp::append_text(out, "bad \xff byte \xe2\x82 and \xc3\xa9");
  EXPECT_EQ(json::from_msgpack(out), "bad \xef\xbf\xbd byte \xef\xbf\xbd\xef\xbf\xbd and \xc3\xa9");
  out.clear();
  mp::append_text(out, "fine");
  EXPECT_EQ(out, bytes({0xa4, 'f', 'i', 'n', 'e'}));
}

// The UTF-8 check agrees with nlohmann's on random byte strings.
TEST(MsgpackWriter, Utf8CheckAgreesWithNlohmann) {
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    std::string s(static_cast<std::size_t>(rng() % 12), '\0');
    for (char& c : s) {
      const unsigned r = rng();
      c = static_cast<char>(r % 3 == 0 ? 0x80 + r % 0x80 : (r % 3 == 1 ? 0xc0 + r % 0x40 : r));
    }
    bool nlohmann_valid = true;
    try {
      (void)json(s).dump();
    } catch (const json::type_error&) {
      nlohmann_valid = false;
    }
    ASSERT_EQ(mp::is_valid_utf8(s), nlohmann_valid) << mp::hex_excerpt(s.data(), s.size());
  }
}

// --- the bolt's envelope ---------------------------------------------------------------------

TEST(MsgpackBoltMessage, TupleFieldsInAnyOrderWithExtras) {
  const json message = {{"tuple", {"cow", 2}}, {"extra", {{"x", {1}}}}, {"task", 3},
                        {"stream", "words"},   {"comp", "split"},       {"id", "-1"}};
  sparse::Tuple tuple;
  json reply;
  ASSERT_TRUE(sparse::detail::parse_bolt_message(Wire::msgpack, packed(message), tuple, reply));
  EXPECT_EQ(tuple.id(), "-1");
  EXPECT_EQ(tuple.component(), "split");
  EXPECT_EQ(tuple.stream(), "words");
  EXPECT_EQ(tuple.task(), 3);
  EXPECT_EQ(tuple.values(), json::array({"cow", 2}));
}

TEST(MsgpackBoltMessage, SameTuplesAsFromJson) {
  for (const json& message :
       {tuple_json("-6955786537413359385", {"a", 1.5, nullptr, json::object({{"k", {1}}})}),
        heartbeat("5"), tick("6", 30), json{{"id", "7"}, {"tuple", json::array()}},
        json{{"id", 8}, {"comp", 1}, {"stream", nullptr}, {"task", "x"}, {"tuple", {1}}}}) {
    sparse::Tuple from_json, from_msgpack;
    json reply;
    ASSERT_TRUE(sparse::detail::parse_bolt_message(message.dump(), from_json, reply));
    ASSERT_TRUE(
        sparse::detail::parse_bolt_message(Wire::msgpack, packed(message), from_msgpack, reply));
    EXPECT_EQ(from_msgpack.id(), from_json.id()) << message;
    EXPECT_EQ(from_msgpack.component(), from_json.component()) << message;
    EXPECT_EQ(from_msgpack.stream(), from_json.stream()) << message;
    EXPECT_EQ(from_msgpack.task(), from_json.task()) << message;
    EXPECT_EQ(from_msgpack.values(), from_json.values()) << message;
    EXPECT_EQ(from_msgpack.is_heartbeat(), from_json.is_heartbeat()) << message;
    EXPECT_EQ(from_msgpack.is_tick(), from_json.is_tick()) << message;
  }
}

TEST(MsgpackBoltMessage, TaskIdRepliesAreArrays) {
  sparse::Tuple tuple;
  json reply;
  EXPECT_FALSE(
      sparse::detail::parse_bolt_message(Wire::msgpack, packed(json::array({4, 5})), tuple, reply));
  EXPECT_EQ(reply, json::array({4, 5}));
  EXPECT_FALSE(sparse::detail::parse_bolt_message(Wire::msgpack, bytes({0x90}), tuple, reply));
  EXPECT_EQ(reply, json::array());
}

TEST(MsgpackBoltMessage, RefusesOtherShapes) {
  sparse::Tuple tuple;
  json reply;
  const std::vector<std::string> refused = {
      packed({{"id", "1"}, {"comp", "s"}}),
      packed({{"id", "1"}, {"tuple", "x"}}),
      packed(42),
      packed("text"),
      packed({{"id", "1"}, {"tuple", {1}}}) + bytes({0x01}),
      packed({{"id", "1"}, {"tuple", {1}}}).substr(0, 10),
      bytes({0x82, 0xa5, 't', 'u', 'p', 'l', 'e', 0x90, 0xa2, 'i', 'd', 0xd4, 0x01, 0x00}),
      bytes({0x81, 0xa5, 'x', 't', 'r', 'a', 'x', 0xc1}),  // never-used in a skipped value
      bytes({0x81, 0xa5, 'x', 't', 'r', 'a', 'x', 0xd4, 0x01, 0x00}),  // ext in a skipped value
      bytes({0x81, 0xa4, 'c', 'o', 'm', 'p', 0xa1, 0xff}),             // invalid UTF-8 in comp
      bytes({0x81, 0xa4, 'c', 'o', 'm', 'p', 0xdd, 0xff, 0xff, 0xff, 0xff}),
      bytes({0x81, 0xa3, 'x', 'y', 'z', 0xdd, 0xff, 0xff, 0xff, 0xff}),
      bytes({0x81, 0xa3, 'x', 'y', 'z'}) + nested_arrays(mp::kMaxDepth),  // too deep under a key
  };
  for (const std::string& data : refused) {
    EXPECT_THROW(sparse::detail::parse_bolt_message(Wire::msgpack, data, tuple, reply),
                 sparse::ProtocolError)
        << mp::hex_excerpt(data.data(), data.size());
  }
}

// --- writing messages ------------------------------------------------------------------------

class MsgpackOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::pipe(fds_), 0);
    ::fcntl(fds_[0], F_SETFL, O_NONBLOCK);
  }
  void TearDown() override {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  int fds_[2];
};

TEST_F(MsgpackOutput, MessagesAreMapsWithoutEndLines) {
  sparse::detail::Output out(fds_[1], 64 * 1024, Wire::msgpack);
  out.send([](auto& e) { sparse::detail::message::sync(e); });
  EXPECT_EQ(drain(fds_[0]),
            bytes({0x81, 0xa7, 'c', 'o', 'm', 'm', 'a', 'n', 'd', 0xa4, 's', 'y', 'n', 'c'}));
}

TEST_F(MsgpackOutput, SetWireSwitchesTheFormat) {
  sparse::detail::Output out(fds_[1]);
  out.send([](auto& e) { sparse::detail::message::pid(e, 42); });
  EXPECT_EQ(drain(fds_[0]), "{\"pid\":42}\nend\n");
  out.set_wire(Wire::msgpack);
  out.send([](auto& e) { sparse::detail::message::pid(e, 42); });
  EXPECT_EQ(drain(fds_[0]), bytes({0x81, 0xa3, 'p', 'i', 'd', 42}));
}

// Every composer gives the same message in both formats, and the JSON text is exactly what the
// adapter wrote before MessagePack existed.
TEST_F(MsgpackOutput, EveryMessageIsTheSameInBothFormats) {
  namespace message = sparse::detail::message;
  const json id = "-42";
  const json params = {{"count", 3}};
  struct Case {
    std::function<void(sparse::detail::JsonEncoder&)> json_compose;
    std::function<void(sparse::detail::MsgpackEncoder&)> msgpack_compose;
    std::string json_text;
  };
  auto both = [](auto compose, std::string text) {
    return Case{compose, compose, std::move(text)};
  };
  const std::string long_name(300, 'k');  // longer than what the JSON encoder gathers
  const std::vector<Case> cases = {
      both([](auto& e) { message::sync(e); }, R"({"command":"sync"})"),
      both([](auto& e) { message::pid(e, 1234); }, R"({"pid":1234})"),
      both([&](auto& e) { message::ack(e, id); }, R"({"command":"ack","id":"-42"})"),
      both([&](auto& e) { message::fail(e, 7); }, R"({"command":"fail","id":7})"),
      both([](auto& e) { message::log(e, "careful \xff", 3); },
           "{\"command\":\"log\",\"msg\":\"careful \xef\xbf\xbd\",\"level\":3}"),
      both([](auto& e) { message::error(e, "it \"broke\""); },
           R"({"command":"error","msg":"it \"broke\""})"),
      both([&](auto& e) { message::metrics(e, "m", params); },
           R"({"command":"metrics","name":"m","params":{"count":3}})"),
      both(
          [](auto& e) {
            e.begin_map(2 + sparse::detail::emit_tail_entries("s", 4, false));
            e.key("command");
            e.literal("emit");
            e.key("anchors");
            e.begin_array(2);
            e.value("a");
            e.value(json::array({1, json::object()}));
            e.end_array();
            sparse::detail::append_emit_tail(e, "s", 4, false, json::array({"x", 1.5}));
          },
          R"({"command":"emit","anchors":["a",[1,{}]],"stream":"s","task":4,)"
          R"("need_task_ids":false,"tuple":["x",1.5]})"),
      both(
          [&](auto& e) {
            e.begin_map(3);
            e.key(long_name);
            e.literal(long_name);
            e.key("n");
            e.begin_array(3);
            e.integer(-9223372036854775807 - 1);
            e.boolean(true);
            e.begin_map(0);
            e.end_map();
            e.end_array();
            e.key("t");
            e.text("");
            e.end_map();
          },
          "{\"" + long_name + "\":\"" + long_name +
              "\",\"n\":[-9223372036854775808,true,{}],\"t\":\"\"}"),
  };
  for (const auto& c : cases) {
    auto compose = [&](auto& e) {
      if constexpr (std::is_same<std::decay_t<decltype(e)>, sparse::detail::JsonEncoder>::value) {
        c.json_compose(e);
      } else {
        c.msgpack_compose(e);
      }
    };
    std::string text = "before", data = "before";
    sparse::detail::encode_message(Wire::json, text, compose);
    EXPECT_EQ(text, "before" + c.json_text + "\nend\n");
    sparse::detail::encode_message(Wire::msgpack, data, compose);
    EXPECT_EQ(json::from_msgpack(data.substr(6)), json::parse(c.json_text)) << c.json_text;
  }
}

TEST_F(MsgpackOutput, AFailedComposeLeavesNoPartialMessage) {
  sparse::detail::Output out(fds_[1], 64 * 1024, Wire::msgpack);
  out.set_deferred(true);
  out.send([](auto& e) { sparse::detail::message::sync(e); });
  const json invalid_utf8 = std::string("\xff\xfe");
  EXPECT_THROW(out.send([&](auto& e) { sparse::detail::message::ack(e, invalid_utf8); }),
               json::type_error);
  out.flush();
  EXPECT_EQ(drain(fds_[0]), packed(kSync));
}

// --- protocol with a MessagePack host --------------------------------------------------------

class EchoBolt : public sparse::Bolt {
 public:
  void process(const sparse::Tuple& t) override {
    if (t.size() > 0 && t[0] == "ids") {
      const auto ids = emit({"asked"});
      emit({json(ids)}, sparse::BoltEmit().without_task_ids());
      return;
    }
    emit(t.values(), sparse::BoltEmit().without_task_ids());
  }
};

int run_echo() {
  return sparse::run<EchoBolt>();
}

int run_echo_limited() {
  sparse::RunOptions options;
  options.max_message_bytes = 4096;
  return sparse::run<EchoBolt>(options);
}

class TickingSpout : public sparse::Spout {
 public:
  void next_tuple() override {
    const long long n = n_++;
    emit({n}, sparse::SpoutEmit().with_id(n).without_task_ids());
  }
  void ack(const json& id) override { emit({"acked", id}, sparse::SpoutEmit().without_task_ids()); }

 private:
  long long n_ = 0;
};

int run_ticking() {
  return sparse::run<TickingSpout>();
}

int run_ticking_limited() {
  sparse::RunOptions options;
  options.max_message_bytes = 4096;
  return sparse::run<TickingSpout>(options);
}

json echoed(json values, const std::string& anchor) {
  return {{"command", "emit"},
          {"anchors", {anchor}},
          {"need_task_ids", false},
          {"tuple", std::move(values)}};
}

TEST(MsgpackHost, EveryMessageSplitByteByByte) {
  TempDir dir;
  auto bolt = ComponentProcess::fork(run_echo, Wire::msgpack);
  bolt->send_byte_by_byte(packed(handshake(dir.path())));
  bolt->expect_eq({{"pid", bolt->pid()}});
  // (The reader thread answers a heartbeat at once, maybe before earlier tuples' output.)
  bolt->send_byte_by_byte(packed(heartbeat("h")));
  bolt->expect_eq(kSync);
  bolt->send_byte_by_byte(packed(tuple_json("-6955786537413359385", {"cow", 1, -2})) +
                          packed(tuple_json("2", {"ids"})));
  bolt->expect_eq(echoed({"cow", 1, -2}, "-6955786537413359385"));
  bolt->expect_eq(ack("-6955786537413359385"));
  bolt->expect_eq({{"command", "emit"}, {"anchors", {"2"}}, {"tuple", {"asked"}}});
  bolt->send_byte_by_byte(packed(json::array({11, 12})));
  bolt->expect_eq(echoed(json::array({json::array({11, 12})}), "2"));
  bolt->expect_eq(ack("2"));
  bolt->close_input();
  EXPECT_EQ(bolt->wait_exit(), 0);
}

TEST(MsgpackHost, SpoutCommandsSplitByteByByte) {
  TempDir dir;
  auto spout = ComponentProcess::fork(run_ticking, Wire::msgpack);
  spout->send_byte_by_byte(packed(handshake(dir.path())));
  spout->expect_eq({{"pid", spout->pid()}});
  spout->send_byte_by_byte(packed(command("next")) + packed(command("ack", 0)));
  spout->expect_eq({{"command", "emit"}, {"id", 0}, {"need_task_ids", false}, {"tuple", {0}}});
  spout->expect_eq(kSync);
  spout->expect_eq({{"command", "emit"}, {"need_task_ids", false}, {"tuple", {"acked", 0}}});
  spout->expect_eq(kSync);
}

TEST(MsgpackHost, ValuesWithoutAJsonTextFormRoundTrip) {
  TempDir dir;
  auto bolt = start_component(run_echo, dir, json::object(), Wire::msgpack);
  // Binary, float 32 (3.5 is exact), integers at the edges of every width.
  const json values = {json::binary({0, 1, 255}),
                       3.5,
                       -129,
                       std::numeric_limits<std::uint64_t>::max(),
                       std::numeric_limits<std::int64_t>::min(),
                       "\xf0\x9f\x98\x80"};
  bolt->send(tuple_json("1", values));
  bolt->expect_eq(echoed(values, "1"));
  bolt->expect_eq(ack("1"));
}

TEST(MsgpackHost, AGarbageFirstByteIsAClearError) {
  struct Case {
    std::string input;
    std::string named;
  };
  for (const Case& c :
       {Case{"hello\nend\n", "byte 0x68 'h'"}, Case{"[1]\nend\n", "byte 0x5b '['"},
        Case{packed(json::array({1, 2})), "byte 0x92"}, Case{bytes({0xc1}), "byte 0xc1"}}) {
    auto bolt = ComponentProcess::fork(run_echo, Wire::msgpack);
    bolt->send_raw(c.input);
    EXPECT_EQ(bolt->wait_exit(), 1);
    const std::string err = bolt->stderr_text();
    EXPECT_NE(err.find("handshake failed"), std::string::npos) << err;
    EXPECT_NE(err.find(c.named), std::string::npos) << err;
    EXPECT_FALSE(bolt->read(100ms)) << "the component answered garbage";
  }
}

TEST(MsgpackHost, AMalformedMessageIsReportedAndSkipped) {
  TempDir dir;
  auto bolt = start_component(run_echo, dir, json::object(), Wire::msgpack);
  for (const std::string& bad :
       {packed("not a map"), packed({{"id", "1"}, {"comp", "s"}}),
        bytes({0x82, 0xa2, 'i', 'd', 0xa1, '1', 0xa5, 't', 'u', 'p', 'l', 'e', 0x91, 0xa1, 0xff}),
        bytes({0x81, 0xa5, 't', 'u', 'p', 'l', 'e', 0x91, 0xd4, 0x01, 0x00})}) {
    bolt->send_raw(bad);
    const json error = bolt->expect();
    EXPECT_EQ(error.value("command", ""), "error") << error;
  }
  bolt->send(tuple_json("2", {"fine"}));
  bolt->expect_eq(echoed({"fine"}, "2"));
  bolt->expect_eq(ack("2"));
}

TEST(MsgpackHost, BytesThatCannotBeFramedEndTheBolt) {
  TempDir dir;
  auto bolt = start_component(run_echo, dir, json::object(), Wire::msgpack);
  bolt->send_raw(bytes({0x81, 0xa2, 'i', 'd', 0xc1}));
  EXPECT_EQ(bolt->wait_exit(), 1);
  EXPECT_NE(bolt->stderr_text().find("0xc1"), std::string::npos) << bolt->stderr_text();
}

TEST(MsgpackHost, OverDeepInputEndsTheBolt) {
  TempDir dir;
  auto bolt = start_component(run_echo, dir, json::object(), Wire::msgpack);
  // (Less than a pipe holds: the bolt may exit before reading everything that is written.)
  bolt->send_raw(bytes({0x81, 0xa5, 't', 'u', 'p', 'l', 'e'}) + nested_arrays(1000));
  EXPECT_EQ(bolt->wait_exit(), 1);
  EXPECT_NE(bolt->stderr_text().find("nesting deeper than 512"), std::string::npos)
      << bolt->stderr_text();
}

TEST(MsgpackHost, AnOversizedMessageEndsTheBolt) {
  TempDir dir;
  auto bolt = start_component(run_echo_limited, dir, json::object(), Wire::msgpack);
  bolt->send(tuple_json("1", {std::string(1000, 'x')}));  // below the limit
  bolt->expect_eq(echoed({std::string(1000, 'x')}, "1"));
  bolt->expect_eq(ack("1"));
  bolt->send_raw(packed(tuple_json("2", {std::string(10000, 'x')})).substr(0, 100));
  EXPECT_EQ(bolt->wait_exit(), 1);
  EXPECT_NE(bolt->stderr_text().find("larger than the limit of 4096 bytes"), std::string::npos)
      << bolt->stderr_text();
}

TEST(MsgpackHost, InputEndingMidMessageIsNoticed) {
  TempDir dir;
  auto bolt = start_component(run_echo, dir, json::object(), Wire::msgpack);
  bolt->send_raw(packed(tuple_json("1", {"a"})).substr(0, 12));
  bolt->close_input();
  EXPECT_EQ(bolt->wait_exit(), 0);
  EXPECT_NE(bolt->stderr_text().find("ended in the middle of a message"), std::string::npos)
      << bolt->stderr_text();
}

TEST(MsgpackHost, SpoutAnswersAGarbledCommand) {
  TempDir dir;
  auto spout = start_component(run_ticking, dir, json::object(), Wire::msgpack);
  spout->send_raw(bytes({0x81, 0xa7, 'c', 'o', 'm', 'm', 'a', 'n', 'd', 0xa2, 0xff, 0xfe}));
  EXPECT_EQ(spout->expect().value("command", ""), "error");
  spout->expect_eq(kSync);
  spout->send(command("next"));
  spout->expect_eq({{"command", "emit"}, {"id", 0}, {"need_task_ids", false}, {"tuple", {0}}});
  spout->expect_eq(kSync);
}

// Input that cannot be framed ends a spout: it used to be answered with an error and a sync
// forever, since the same bytes failed again on every read.
TEST(MsgpackHost, BytesThatCannotBeFramedEndTheSpout) {
  TempDir dir;
  auto spout = start_component(run_ticking, dir, json::object(), Wire::msgpack);
  spout->send_raw(bytes({0xc1}));
  EXPECT_EQ(spout->wait_exit(), 1);
  EXPECT_NE(spout->stderr_text().find("0xc1"), std::string::npos) << spout->stderr_text();
}

class SpoutLimits : public WireTest {};
SPARSE_TEST_BOTH_WIRES(SpoutLimits);

TEST_P(SpoutLimits, AnOversizedMessageEndsTheSpout) {
  TempDir dir;
  auto spout = start(run_ticking_limited, dir);
  if (wire() == Wire::msgpack) {
    spout->send(command("ack", std::string(10000, 'x')));  // refused when its head arrives
  } else {
    spout->send_raw(R"({"command":"ack","id":")" + std::string(5000, 'x'));  // no `end` yet
  }
  EXPECT_EQ(spout->wait_exit(), 1);
  EXPECT_NE(spout->stderr_text().find("larger than"), std::string::npos) << spout->stderr_text();
  // Not answered with endless error + sync pairs.
  int messages = 0;
  while (spout->read(50ms)) ++messages;
  EXPECT_LE(messages, 2);
}

}  // namespace
