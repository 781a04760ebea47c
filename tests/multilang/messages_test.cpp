#include "multilang/messages.hpp"

#include <gtest/gtest.h>

namespace sparse::multilang {
namespace {

struct Parsed {
  std::optional<std::string> error;
  ComponentMessage msg;
};

Parsed Parse(std::string text) {
  static MessageParser parser;
  Parsed p;
  p.error = parser.Parse(text, p.msg);
  return p;
}

TEST(Messages, BoltEmitWithAnchorsAndDefaults) {
  auto p = Parse(R"({"command":"emit","anchors":["12","34"],"tuple":["a", 1, {"b": [2]}]})");
  ASSERT_FALSE(p.error) << *p.error;
  EXPECT_EQ(p.msg.command, Command::kEmit);
  EXPECT_EQ(p.msg.stream, "default");
  EXPECT_TRUE(p.msg.need_task_ids);
  EXPECT_FALSE(p.msg.task);
  EXPECT_EQ(p.msg.anchors, (std::vector<std::string>{"12", "34"}));
  EXPECT_EQ(p.msg.tuple_json, R"(["a", 1, {"b": [2]}])");
}

TEST(Messages, SingleStringAnchorAndDirectTask) {
  auto p = Parse(
      R"({"command":"emit","anchors":"9","stream":"s","task":4,"need_task_ids":false,"tuple":[]})");
  ASSERT_FALSE(p.error) << *p.error;
  EXPECT_EQ(p.msg.anchors, std::vector<std::string>{"9"});
  EXPECT_EQ(p.msg.stream, "s");
  EXPECT_EQ(p.msg.task, 4);
  EXPECT_FALSE(p.msg.need_task_ids);
}

TEST(Messages, SpoutMessageIdsKeepTheirJsonText) {
  auto s = Parse(R"({"command":"emit","id":"abc","tuple":[1]})");
  ASSERT_FALSE(s.error);
  EXPECT_EQ(s.msg.id, R"("abc")");
  auto n = Parse(R"({"command":"emit","id":42,"tuple":[1]})");
  EXPECT_EQ(n.msg.id, "42");
  auto o = Parse(R"({"command":"emit","id":{"p":1,"o":[2]},"tuple":[1]})");
  EXPECT_EQ(o.msg.id, R"({"p":1,"o":[2]})");
  auto null_id = Parse(R"({"command":"emit","id":null,"tuple":[1]})");
  EXPECT_EQ(null_id.msg.id, "");
}

TEST(Messages, AckFailKeepTheExactString) {
  auto a = Parse(R"({"command":"ack","id":"-8712"})");
  ASSERT_FALSE(a.error);
  EXPECT_EQ(a.msg.command, Command::kAck);
  EXPECT_EQ(a.msg.id, "-8712");
  auto f = Parse(R"({"command":"fail","id":"77"})");
  EXPECT_EQ(f.msg.command, Command::kFail);
  EXPECT_TRUE(Parse(R"({"command":"ack"})").error);
}

TEST(Messages, LogLevelsAndUnicode) {
  auto p = Parse(R"({"command":"log","msg":"caf\u00e9 \"q\"","level":3})");
  ASSERT_FALSE(p.error);
  EXPECT_EQ(p.msg.level, LogLevel::kWarn);
  EXPECT_EQ(p.msg.msg, "café \"q\"");
  EXPECT_EQ(Parse(R"({"command":"log","msg":"x"})").msg.level, LogLevel::kInfo);
  EXPECT_EQ(Parse(R"({"command":"log","msg":"x","level":9})").msg.level, LogLevel::kError);
}

TEST(Messages, HandshakeReply) {
  auto p = Parse(R"({"pid": 1234})");
  ASSERT_FALSE(p.error);
  EXPECT_EQ(p.msg.command, Command::kPid);
  EXPECT_EQ(p.msg.pid, 1234);
}

TEST(Messages, MetricsAreAccepted) {
  auto p = Parse(R"({"command":"metrics","name":"m","params":12.5})");
  ASSERT_FALSE(p.error);
  EXPECT_EQ(p.msg.metric_name, "m");
  EXPECT_EQ(p.msg.metric_params_json, "12.5");
}

TEST(Messages, Errors) {
  EXPECT_TRUE(Parse("hello there").error);
  EXPECT_TRUE(Parse("[1,2]").error);
  EXPECT_TRUE(Parse(R"({"tuple":[1]})").error);                   // no command
  EXPECT_TRUE(Parse(R"({"command":"explode"})").error);           // unknown command
  EXPECT_TRUE(Parse(R"({"command":"emit"})").error);              // no tuple
  EXPECT_TRUE(Parse(R"({"command":"emit","tuple":"x"})").error);  // tuple not an array
  EXPECT_TRUE(Parse(R"({"command":"sync"} trailing)").error);
  EXPECT_TRUE(Parse(R"({"command":"emit","tuple":[1],"task":"x"})").error);
}

TEST(Messages, JsonStringEscaping) {
  std::string out;
  AppendJsonString(out, "a\"b\\c\nd\x01");
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\nd\\u0001\"");
}

}  // namespace
}  // namespace sparse::multilang
