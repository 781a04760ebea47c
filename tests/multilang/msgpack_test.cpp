// MessagePack at the pipe: decoding what a child writes (bytes made by msgpack-c itself, and
// hostile ones made by hand), encoding what the runtime writes (checked with nlohmann's
// independent MessagePack decoder against the JSON encoding of the same message).
#include <gtest/gtest.h>

#include <cmath>

#include <msgpack.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "multilang/host_encoder.hpp"
#include "multilang/inbound_reader.hpp"
#include "multilang/msgpack_codec.hpp"
#include "multilang/serializer.hpp"

namespace sparse::multilang {
namespace {

using nlohmann::json;

std::string Packed(const json& j) {
  auto bytes = json::to_msgpack(j);
  return std::string(bytes.begin(), bytes.end());
}

std::vector<std::string> DecodeAll(const std::string& bytes, std::size_t chunk = 1 << 20,
                                   std::optional<std::string>* error = nullptr) {
  MsgpackReader r(1 << 20);
  std::vector<std::string> out;
  std::string msg;
  for (std::size_t i = 0; i < bytes.size(); i += chunk) {
    r.Append(std::string_view(bytes).substr(i, chunk));
    while (r.NextInto(msg)) out.push_back(msg);
  }
  if (error) *error = r.error();
  return out;
}

TEST(MsgpackReader, MapsBackToBackBecomeJsonText) {
  const json a = {{"command", "emit"}, {"tuple", {"café", 1, -2, 2.5, true, nullptr}}};
  const json b = {{"command", "sync"}};
  auto out = DecodeAll(Packed(a) + Packed(b));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(json::parse(out[0]), a);
  EXPECT_EQ(json::parse(out[1]), b);
}

TEST(MsgpackReader, ValuesSplitAcrossReadsByteByByte) {
  const json a = {{"command", "emit"}, {"id", 7}, {"tuple", {std::string(300, 'x'), {1, 2}}}};
  const json b = {{"command", "log"}, {"msg", "a\nb\"c"}};
  auto out = DecodeAll(Packed(a) + Packed(b) + Packed(a), 1);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(json::parse(out[0]), a);
  EXPECT_EQ(json::parse(out[1]), b);
  EXPECT_EQ(json::parse(out[2]), a);
}

TEST(MsgpackReader, BytesMadeByMsgpackCThemselves) {
  // What pystorm's msgpack.packb writes: str keys, bin for bytes, ints of every width, float64.
  std::stringstream buf;
  msgpack::packer<std::stringstream> pk(buf);
  pk.pack_map(4);
  pk.pack(std::string("command"));
  pk.pack(std::string("emit"));
  pk.pack(std::string("tuple"));
  pk.pack_array(5);
  pk.pack(std::int64_t{-9223372036854775807LL - 1});
  pk.pack(std::uint64_t{18446744073709551615ULL});
  pk.pack(0.1);
  pk.pack_bin(3);
  pk.pack_bin_body("abc", 3);
  pk.pack(1.5);
  pk.pack(std::string("need_task_ids"));
  pk.pack(false);
  pk.pack(5);  // an integer map key: JSON keys are strings
  pk.pack(std::string("five"));
  auto out = DecodeAll(buf.str());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(
      out[0],
      R"({"command":"emit","tuple":[-9223372036854775808,18446744073709551615,0.1,"abc",1.5],)"
      R"("need_task_ids":false,"5":"five"})");
}

TEST(MsgpackReader, WholeFloatsStayFloats) {
  // Python's msgpack writes 1.0 as a float64 (msgpack-c would write an integer).
  const std::string one("\x91\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00", 10);
  auto out = DecodeAll(one);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], "[1.0]");
}

// Found by fuzz/msgpack_fuzz.cpp: a map whose key is a map whose key is a map... was quoted level
// by level, each level escaping the quotes of the one inside: 100 bytes took minutes and
// gigabytes. Keys must be scalars.
TEST(MsgpackReader, ContainerMapKeysAreErrors) {
  std::string nested = "\x81\x81\x81\xa1k\x01\x02\x03";  // {{{"k": 1}: 2}: 3}
  std::optional<std::string> error;
  EXPECT_TRUE(DecodeAll(nested, 1 << 20, &error).empty());
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("map key that is an array or a map"), std::string::npos) << *error;
  EXPECT_EQ(DecodeAll("\x81\x05\x06"), std::vector<std::string>{R"({"5":6})"});
}

TEST(MsgpackReader, ExtensionTypesAndNonFiniteFloatsAreErrors) {
  std::optional<std::string> error;
  const std::string ext("\x81\xa1k\xd4\x01\x02", 6);  // {"k": fixext1 type 1}
  EXPECT_TRUE(DecodeAll(ext, 1 << 20, &error).empty());
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("extension"), std::string::npos) << *error;

  const std::string nan("\x81\xa1k\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00", 12);
  EXPECT_TRUE(DecodeAll(nan, 1 << 20, &error).empty());
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("NaN"), std::string::npos) << *error;
}

TEST(MsgpackReader, TooDeepIsAnErrorNotACrash) {
  std::string deep(100000, '\x91');  // arrays of one element, 100k deep
  deep += '\xc0';
  std::optional<std::string> error;
  EXPECT_TRUE(DecodeAll(deep, 4096, &error).empty());
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("deeper"), std::string::npos) << *error;

  std::string ok(kMaxNestingDepth, '\x91');
  ok += '\xc0';
  EXPECT_EQ(DecodeAll(ok).size(), 1u);
}

TEST(MsgpackReader, LyingLengthsDoNotReserveMemory) {
  std::optional<std::string> error;
  // array32 claiming 4 billion elements, then nothing.
  EXPECT_TRUE(DecodeAll(std::string("\xdd\xff\xff\xff\xff", 5), 1 << 20, &error).empty());
  ASSERT_TRUE(error);
  // str32 claiming 4 GiB: nothing is reserved for it, and the bytes that do come are bounded
  // by the message limit (1 MiB here).
  std::string str32("\xdb\xff\xff\xff\xff", 5);
  str32 += std::string(2 << 20, 'x');
  EXPECT_TRUE(DecodeAll(str32, 64 * 1024, &error).empty());
  ASSERT_TRUE(error);
}

TEST(MsgpackReader, OversizedMessageIsAnError) {
  MsgpackReader r(1000);
  std::string big = Packed(json{{"msg", std::string(500, 'x')}});
  std::string msg;
  r.Append(big);
  EXPECT_TRUE(r.NextInto(msg));
  // No one length in it is over the limit: only the whole message is.
  std::string huge = Packed(json{{"msg", std::vector<std::string>(100, std::string(50, 'x'))}});
  r.Append(huge.substr(0, 900));
  EXPECT_FALSE(r.NextInto(msg));
  EXPECT_FALSE(r.error());
  r.Append(huge.substr(900, 900));
  EXPECT_FALSE(r.NextInto(msg));
  ASSERT_TRUE(r.error());
}

TEST(MsgpackEncode, JsonRoundTripsThroughAnIndependentDecoder) {
  const std::string text =
      R"({"a":[1,-1,2.5,"x\u00e9\n",true,false,null,{"b":[]}],"big":18446744073709551615})";
  std::string out;
  ASSERT_FALSE(AppendJsonAsMsgpack(out, text));
  EXPECT_EQ(json::from_msgpack(out), json::parse(text));
}

// Found by fuzz/msgpack_fuzz.cpp: msgpack-c's pack_double writes whole doubles as integers, so a
// MessagePack component got 1 for the tuple value 1.0 and 0 for -0.0.
TEST(MsgpackEncode, WholeAndNegativeZeroFloatsStayFloats) {
  std::string out;
  ASSERT_FALSE(AppendJsonAsMsgpack(out, "[1.0,-0.0,-6645093.0,2.5,1]"));
  const json decoded = json::from_msgpack(out);
  ASSERT_EQ(decoded.size(), 5u);
  EXPECT_TRUE(decoded[0].is_number_float());
  EXPECT_TRUE(decoded[1].is_number_float());
  EXPECT_TRUE(std::signbit(decoded[1].get<double>()));
  EXPECT_TRUE(decoded[2].is_number_float());
  EXPECT_TRUE(decoded[3].is_number_float());
  EXPECT_TRUE(decoded[4].is_number_integer());
  EXPECT_EQ(DecodeAll(out), std::vector<std::string>{"[1.0,-0.0,-6645093.0,2.5,1]"});
}

TEST(MsgpackEncode, InvalidOrTooDeepJsonIsAnError) {
  std::string out = "keep";
  EXPECT_TRUE(AppendJsonAsMsgpack(out, "[tru]"));
  EXPECT_EQ(out, "keep");
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  EXPECT_TRUE(AppendJsonAsMsgpack(out, deep));
  EXPECT_EQ(out, "keep");
}

// Every host message, both encodings: the MessagePack one decodes to the JSON one.
TEST(HostEncoder, BothEncodingsCarryTheSameMessages) {
  HostEncoder js(Serializer::kJson), mp(Serializer::kMsgpack);
  auto same = [](const std::string& j, const std::string& m) {
    ASSERT_GE(j.size(), 5u);
    EXPECT_EQ(j.substr(j.size() - 5), "\nend\n");
    EXPECT_EQ(json::parse(j.substr(0, j.size() - 5)), json::from_msgpack(m)) << j;
  };
  std::string j, m;
  ASSERT_FALSE(js.Tuple(j, 42, "spl\"it", "default", 3, R"(["w", 1, {"x": null}])"));
  ASSERT_FALSE(mp.Tuple(m, 42, "spl\"it", "default", 3, R"(["w", 1, {"x": null}])"));
  same(j, m);
  EXPECT_EQ(json::parse(j.substr(0, j.size() - 5))["id"], "42");
  j.clear(), m.clear();
  js.Tick(j, 7, 2), mp.Tick(m, 7, 2);
  same(j, m);
  j.clear(), m.clear();
  js.Heartbeat(j, 8), mp.Heartbeat(m, 8);
  same(j, m);
  j.clear(), m.clear();
  js.TaskIds(j, {3, 4}), mp.TaskIds(m, {3, 4});
  same(j, m);
  j.clear(), m.clear();
  ASSERT_FALSE(js.SpoutCommand(j, "ack", R"({"k": [1, "a"]})"));
  ASSERT_FALSE(mp.SpoutCommand(m, "ack", R"({"k": [1, "a"]})"));
  same(j, m);
  j.clear(), m.clear();
  ASSERT_FALSE(js.SpoutCommand(j, "next"));
  ASSERT_FALSE(mp.SpoutCommand(m, "next"));
  same(j, m);
  EXPECT_EQ(json::from_msgpack(m), (json{{"command", "next"}, {"id", ""}}));
}

TEST(HostEncoder, MessagesGatherBackToBack) {
  HostEncoder mp(Serializer::kMsgpack);
  std::string out;
  mp.Heartbeat(out, 1);
  ASSERT_FALSE(mp.Tuple(out, 2, "c", "s", 1, "[1]"));
  auto msgs = DecodeAll(out);
  ASSERT_EQ(msgs.size(), 2u);
  EXPECT_EQ(json::parse(msgs[1])["tuple"], json::array({1}));
}

TEST(InboundReader, TellsAComponentSpeakingTheOtherEncoding) {
  InboundReader expects_json(Serializer::kJson, 1 << 20);
  expects_json.Append(Packed(json{{"pid", 12}}));
  std::string msg;
  EXPECT_FALSE(expects_json.NextInto(msg));
  ASSERT_TRUE(expects_json.error());
  EXPECT_NE(expects_json.error()->find("writes MessagePack"), std::string::npos);

  InboundReader expects_msgpack(Serializer::kMsgpack, 1 << 20);
  expects_msgpack.Append("\n{\"pid\": 12}\nend\n");
  EXPECT_FALSE(expects_msgpack.NextInto(msg));
  ASSERT_TRUE(expects_msgpack.error());
  EXPECT_NE(expects_msgpack.error()->find("writes JSON"), std::string::npos);
}

// Found by fuzz/msgpack_fuzz.cpp: blank lines arriving before the first byte that tells the
// encoding went to the MessagePack decoder, which read them as integers: a component configured
// for MessagePack but writing "\n\n{...}" produced messages `10` when the blanks came in a read of
// their own, and only the mismatch error when they came with the '{'. Blanks before a
// MessagePack component's first message are dropped, however they arrive.
TEST(InboundReader, BlanksBeforeTheFirstMessageWaitForTheEncoding) {
  for (const bool split : {false, true}) {
    InboundReader r(Serializer::kMsgpack, 1 << 20);
    if (split) {
      r.Append("\n\n");
      r.Append("{\"command\":\"sync\"}\nend\n");
    } else {
      r.Append("\n\n{\"command\":\"sync\"}\nend\n");
    }
    std::string msg;
    EXPECT_FALSE(r.NextInto(msg)) << msg;
    ASSERT_TRUE(r.error());
    EXPECT_NE(r.error()->find("writes JSON"), std::string::npos) << *r.error();
  }
  for (const bool split : {false, true}) {
    InboundReader r(Serializer::kMsgpack, 1 << 20);
    if (split) {
      r.Append("\n ");
      r.Append(Packed({{"command", "sync"}}));
    } else {
      r.Append("\n " + Packed({{"command", "sync"}}));
    }
    std::string msg;
    ASSERT_TRUE(r.NextInto(msg));
    EXPECT_EQ(msg, R"({"command":"sync"})");
    EXPECT_FALSE(r.NextInto(msg));
    EXPECT_FALSE(r.error());
  }
}

TEST(InboundReader, EachEncodingReadsItsOwn) {
  std::string msg;
  InboundReader js(Serializer::kJson, 1 << 20);
  js.Append("{\"pid\": 12}\nend\n");
  ASSERT_TRUE(js.NextInto(msg));
  EXPECT_EQ(msg, "{\"pid\": 12}");

  InboundReader mp(Serializer::kMsgpack, 1 << 20);
  mp.Append(Packed(json{{"pid", 12}}));
  ASSERT_TRUE(mp.NextInto(msg));
  EXPECT_EQ(msg, "{\"pid\":12}");
}

TEST(Serializer, NamesAndStormClassNames) {
  EXPECT_EQ(ParseSerializerName("json"), Serializer::kJson);
  EXPECT_EQ(ParseSerializerName("MsgPack"), Serializer::kMsgpack);
  EXPECT_EQ(ParseSerializerName("org.apache.storm.multilang.JsonSerializer"), Serializer::kJson);
  EXPECT_EQ(ParseSerializerName("com.yelp.pyleus.serializer.MessagePackSerializer"),
            Serializer::kMsgpack);
  EXPECT_FALSE(ParseSerializerName("com.example.ThriftSerializer"));
}

TEST(Serializer, HintsFromWhatADyingChildWroteToStderr) {
  // pystorm with msgpack, fed a JSON handshake; pystorm with JSON, fed a MessagePack one.
  EXPECT_TRUE(MismatchHint(Serializer::kJson, "File \".../serializers/msgpack_serializer.py\""));
  EXPECT_TRUE(MismatchHint(Serializer::kJson, "TypeError: 'int' object is not subscriptable"));
  EXPECT_TRUE(MismatchHint(Serializer::kMsgpack,
                           "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x83"));
  EXPECT_FALSE(MismatchHint(Serializer::kJson, "KeyError: 'database'"));
  EXPECT_FALSE(MismatchHint(Serializer::kMsgpack, "KeyError: 'database'"));
}

}  // namespace
}  // namespace sparse::multilang
