// Unit tests of the adapter's building blocks: framing, the output writer, JSON text helpers and
// typed tuple access. No processes involved.
#include "harness.hpp"

#include <sparse/protocol.hpp>
#include <sparse/tuple.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using sparse::json;
using sparse::detail::FrameDecoder;
using sparse::detail::Wire;
using sparse_test::drain;

constexpr std::size_t kDefaultLimit = std::size_t{256} << 20;

// The JSON framing tests feed arrays too, which the format detection would refuse as a host's
// first message (msgpack_test.cpp tests detection): their decoders are told the format.

// Feeds `input` to a decoder in pieces of `piece` bytes; returns every message, then the
// message finish() produces at end of input, if any.
std::vector<std::string> decode(std::string_view input, std::size_t piece = 1 << 20) {
  FrameDecoder decoder(kDefaultLimit, Wire::json);
  std::vector<std::string> messages;
  std::string_view text;
  while (!input.empty()) {
    const std::size_t n = std::min(piece, input.size());
    std::memcpy(decoder.write_area(n), input.data(), n);
    decoder.commit(n);
    input.remove_prefix(n);
    while (decoder.next(text)) messages.emplace_back(text);
  }
  if (decoder.finish(text)) messages.emplace_back(text);
  return messages;
}

std::vector<json> decode_json(std::string_view input, std::size_t piece = 1 << 20) {
  std::vector<json> parsed;
  for (const auto& text : decode(input, piece)) parsed.push_back(json::parse(text));
  return parsed;
}

TEST(FrameDecoder, SplitsOnEndLines) {
  EXPECT_EQ(decode_json("{\"a\":1}\nend\n[2]\nend\n"),
            (std::vector<json>{{{"a", 1}}, json::array({2})}));
}

TEST(FrameDecoder, AcceptsEveryLineTerminator) {
  const std::vector<json> expected{{{"a", 1}}, {{"b", 2}}, {{"c", 3}}};
  EXPECT_EQ(decode_json("{\"a\":1}\nend\n{\"b\":2}\r\nend\r\n{\"c\":3}\rend\r"), expected);
  EXPECT_EQ(decode_json("{\"a\":1}\r\nend\r\n{\"b\":2}\r\nend\r\n{\"c\":3}\r\nend\r\n"), expected);
}

TEST(FrameDecoder, JoinsMultiLineMessages) {
  EXPECT_EQ(decode_json("{\"a\":\n1,\r\n\"b\":\r[2,\n3]}\nend\n"),
            (std::vector<json>{{{"a", 1}, {"b", {2, 3}}}}));
}

TEST(FrameDecoder, OnlyAnExactEndLineTerminates) {
  // "end " (trailing space), " end", "endx" and "End" are ordinary lines.
  const auto messages = decode("[1,\nend \n,2]\n end\nendx\nEnd\nend\n");
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "[1,\nend \n,2]\n end\nendx\nEnd\n");
}

TEST(FrameDecoder, SameResultWhateverTheReadSizes) {
  const std::string input =
      "{\"a\":\"x\"}\r\nend\r\n\n{\"b\":[1,\n2]}\nend\n[3]\rend\r\n{\"c\":null}\r\nend\r\n";
  const auto whole = decode_json(input);
  ASSERT_EQ(whole.size(), 4u);
  for (std::size_t piece = 1; piece < 9; ++piece) {
    EXPECT_EQ(decode_json(input, piece), whole) << "piece size " << piece;
  }
}

TEST(FrameDecoder, CrAndLfInSeparateReadsAreOneTerminator) {
  FrameDecoder decoder(kDefaultLimit, Wire::json);
  std::string_view text;
  auto feed = [&](std::string_view bytes) {
    std::memcpy(decoder.write_area(bytes.size()), bytes.data(), bytes.size());
    decoder.commit(bytes.size());
  };
  feed("[1]\r\nend\r");
  ASSERT_TRUE(decoder.next(text));
  EXPECT_EQ(json::parse(text), json::array({1}));
  feed("\n[2]\r\nend\r");
  ASSERT_TRUE(decoder.next(text));
  EXPECT_EQ(json::parse(text), json::array({2}));  // the leading "\n" is just whitespace
  EXPECT_FALSE(decoder.next(text));
  EXPECT_FALSE(decoder.has_partial_message());
}

TEST(FrameDecoder, EndWithoutNewlineAtEndOfInput) {
  EXPECT_EQ(decode_json("[1]\nend\n[2]\nend"), (std::vector<json>{{1}, {2}}));
}

TEST(FrameDecoder, ReportsATruncatedMessage) {
  FrameDecoder decoder(kDefaultLimit, Wire::json);
  std::string_view text;
  const std::string input = "[1]\nend\n[2,\n3";
  std::memcpy(decoder.write_area(input.size()), input.data(), input.size());
  decoder.commit(input.size());
  ASSERT_TRUE(decoder.next(text));
  EXPECT_FALSE(decoder.next(text));
  EXPECT_FALSE(decoder.finish(text));
  EXPECT_TRUE(decoder.has_partial_message());
}

TEST(FrameDecoder, MessagesLargerThanOneMebibyte) {
  const std::string big(3 << 20, 'x');
  const std::string input = json::array({big}).dump() + "\nend\n[1]\nend\n";
  const auto messages = decode_json(input, 64 * 1024);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0][0].get<std::string>().size(), big.size());
  EXPECT_EQ(messages[1], json::array({1}));
}

TEST(FrameDecoder, RefusesMessagesAboveItsLimit) {
  FrameDecoder decoder(1000, Wire::json);
  EXPECT_THROW(
      {
        for (int i = 0; i < 100; ++i) {
          std::memset(decoder.write_area(100), 'x', 100);
          decoder.commit(100);
        }
      },
      sparse::ProtocolError);
}

TEST(FrameReader, ReadsFromAPipeAndSeesEndOfFile) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    const std::string input = "[1]\nend\n{\"x\":\n2}\r\nend\r\n";
    for (char c : input) ASSERT_EQ(::write(fds[1], &c, 1), 1);  // the worst case: byte by byte
    ::close(fds[1]);
  });
  sparse::detail::FrameReader reader(fds[0], -1, kDefaultLimit, Wire::json);
  std::string_view text;
  ASSERT_EQ(reader.next(text), sparse::detail::FrameReader::Result::message);
  EXPECT_EQ(json::parse(text), json::array({1}));
  ASSERT_EQ(reader.next(text), sparse::detail::FrameReader::Result::message);
  EXPECT_EQ(json::parse(text), (json{{"x", 2}}));
  EXPECT_EQ(reader.next(text), sparse::detail::FrameReader::Result::eof);
  EXPECT_FALSE(reader.ended_mid_message());
  writer.join();
  ::close(fds[0]);
}

TEST(FrameReader, CancelFdInterruptsABlockedRead) {
  int data[2], cancel[2];
  ASSERT_EQ(::pipe(data), 0);
  ASSERT_EQ(::pipe(cancel), 0);
  sparse::detail::FrameReader reader(data[0], cancel[0]);
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(::write(cancel[1], "x", 1), 1);
  });
  std::string_view text;
  EXPECT_EQ(reader.next(text), sparse::detail::FrameReader::Result::cancelled);
  canceller.join();
  for (int fd : {data[0], data[1], cancel[0], cancel[1]}) ::close(fd);
}

// Reads everything currently in a pipe (non-blocking).
class OutputTest : public ::testing::Test {
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

TEST_F(OutputTest, ImmediateModeWritesEachMessage) {
  sparse::detail::Output out(fds_[1]);
  out.send([](auto& b) { sparse::detail::message::sync(b); });
  EXPECT_EQ(drain(fds_[0]), "{\"command\":\"sync\"}\nend\n");
}

TEST_F(OutputTest, DeferredModeGathersUntilFlush) {
  sparse::detail::Output out(fds_[1]);
  out.set_deferred(true);
  out.send([](auto& b) { sparse::detail::message::ack(b, "1"); });
  out.send([](auto& b) { sparse::detail::message::fail(b, 2); });
  EXPECT_EQ(drain(fds_[0]), "");
  out.flush();
  EXPECT_EQ(drain(fds_[0]),
            "{\"command\":\"ack\",\"id\":\"1\"}\nend\n{\"command\":\"fail\",\"id\":2}\nend\n");
}

TEST_F(OutputTest, DeferredModeFlushesAtTheThreshold) {
  sparse::detail::Output out(fds_[1], 100);
  out.set_deferred(true);
  for (int i = 0; i < 10; ++i) out.send([](auto& b) { sparse::detail::message::sync(b); });
  EXPECT_GE(drain(fds_[0]).size(), 100u);
}

TEST_F(OutputTest, AFailedComposeLeavesNoPartialMessage) {
  sparse::detail::Output out(fds_[1]);
  out.set_deferred(true);
  out.send([](auto& b) { sparse::detail::message::sync(b); });
  const json invalid_utf8 = std::string("\xff\xfe");
  EXPECT_THROW(out.send([&](auto& b) { sparse::detail::message::ack(b, invalid_utf8); }),
               json::type_error);
  out.flush();
  EXPECT_EQ(drain(fds_[0]), "{\"command\":\"sync\"}\nend\n");
}

TEST_F(OutputTest, ABrokenPipeIsADisconnect) {
  ::signal(SIGPIPE, SIG_IGN);
  ::close(fds_[0]);
  sparse::detail::Output out(fds_[1]);
  EXPECT_THROW(out.send([](auto& b) { sparse::detail::message::sync(b); }), sparse::Disconnected);
  ASSERT_EQ(::pipe(fds_), 0);  // for TearDown
}

TEST(JsonText, StringsAreEscapedAndBadUtf8Replaced) {
  std::string out;
  sparse::detail::append_json_string(out, "plain");
  EXPECT_EQ(out, "\"plain\"");
  out.clear();
  sparse::detail::append_json_string(out, "a\"b\\c\nd\x01 é");
  EXPECT_EQ(json::parse(out), "a\"b\\c\nd\x01 é");
  out.clear();
  sparse::detail::append_json_string(out, "bad \xff byte");
  EXPECT_EQ(json::parse(out), "bad \xef\xbf\xbd byte");  // U+FFFD
}

TEST(JsonText, IntegersArePlainDecimals) {
  std::string out;
  sparse::detail::append_int(out, std::int64_t{-9223372036854775807} - 1);
  out += ' ';
  sparse::detail::append_int(out, 0);
  out += ' ';
  sparse::detail::append_int(out, std::uint64_t{18446744073709551615u});
  EXPECT_EQ(out, "-9223372036854775808 0 18446744073709551615");
}

TEST(JsonText, ValuesRoundTrip) {
  const json values = json::array(
      {"s", "quote\" and \\ and \t", 1, -2, 3.5, true, nullptr, json::object({{"k", {1, 2}}})});
  std::string out;
  sparse::detail::append_json(out, values);
  EXPECT_EQ(json::parse(out), values);
}

sparse::Tuple make_tuple(json values) {
  return sparse::Tuple("-42", "words", "default", 3, std::move(values));
}

TEST(Tuple, Accessors) {
  const auto t = make_tuple({"cow", 2});
  EXPECT_EQ(t.id(), "-42");
  EXPECT_EQ(t.component(), "words");
  EXPECT_EQ(t.stream(), "default");
  EXPECT_EQ(t.task(), 3);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.values(), json::array({"cow", 2}));
  EXPECT_EQ(t[0], "cow");
  EXPECT_FALSE(t.is_tick());
  EXPECT_FALSE(t.is_heartbeat());
}

TEST(Tuple, DefaultConstructedHasNoValues) {
  const sparse::Tuple t;
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.values(), json::array());
  EXPECT_THROW(t[0], sparse::TupleValueError);
}

TEST(Tuple, ValuesMustBeAnArray) {
  EXPECT_THROW(sparse::Tuple("1", "c", "s", 1, json("x")), std::invalid_argument);
}

TEST(Tuple, TypedAccess) {
  const auto t = make_tuple({"cow", 2, 2.5, true, -1, 300, json::array({1, 2})});
  EXPECT_EQ(t.get<std::string>(0), "cow");
  EXPECT_EQ(t.get<int>(1), 2);
  EXPECT_EQ(t.get<std::int64_t>(1), 2);
  EXPECT_EQ(t.get<double>(1), 2.0);  // any number converts to floating point
  EXPECT_EQ(t.get<double>(2), 2.5);
  EXPECT_TRUE(t.get<bool>(3));
  EXPECT_EQ(t.get<int>(4), -1);
  EXPECT_EQ(t.get<std::vector<int>>(6), (std::vector<int>{1, 2}));
}

// The error names the index, the expected type and the actual type.
void expect_type_error(const std::function<void()>& access, std::size_t index,
                       const std::string& expected, const std::string& actual) {
  try {
    access();
    ADD_FAILURE() << "no exception";
  } catch (const sparse::TupleValueError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.index(), index);
    EXPECT_NE(what.find("tuple value " + std::to_string(index)), std::string::npos) << what;
    EXPECT_NE(what.find("expected " + expected), std::string::npos) << what;
    EXPECT_NE(what.find("got " + actual), std::string::npos) << what;
  }
}

TEST(Tuple, TypeErrorsNameIndexExpectedAndActual) {
  const auto t = make_tuple({"cow", 2, 2.5, true, -1, 300, json::array({1, 2})});
  expect_type_error([&] { t.get<int>(0); }, 0, "integer", "string");
  expect_type_error([&] { t.get<std::string>(1); }, 1, "string", "number");
  expect_type_error([&] { t.get<int>(2); }, 2, "integer", "number");  // no silent truncation
  expect_type_error([&] { t.get<bool>(1); }, 1, "boolean", "number");
  expect_type_error([&] { t.get<unsigned>(4); }, 4, "unsigned integer", "number");  // no wrap
  expect_type_error([&] { t.get<std::uint8_t>(5); }, 5, "unsigned integer", "number");
  expect_type_error([&] { t.get<std::vector<int>>(0); }, 0, "a value convertible", "string");
}

TEST(Tuple, MissingValuesAreReported) {
  const auto t = make_tuple({"cow"});
  try {
    t.get<std::string>(3);
    ADD_FAILURE() << "no exception";
  } catch (const sparse::TupleValueError& e) {
    EXPECT_EQ(e.index(), 3u);
    EXPECT_NE(std::string(e.what()).find("has 1 value"), std::string::npos) << e.what();
  }
  EXPECT_THROW(t[1], sparse::TupleValueError);
}

}  // namespace
