// Bolt protocol tests: a real bolt runs in a forked child on pipes, the test plays the host.
#include "harness.hpp"

#include <sparse/sparse.hpp>

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

using namespace sparse_test;

// A bolt whose behaviour is chosen by the first value of each tuple.
class ScriptedBolt : public sparse::Bolt {
 public:
  void process(const sparse::Tuple& t) override {
    const auto action = t.get<std::string>(0);
    if (action == "emit") {
      emit({t[1]}, sparse::BoltEmit().without_task_ids());
    } else if (action == "emit_ids") {
      const auto ids = emit({t[1]});
      log(sparse::json(ids).dump());
    } else if (action == "direct") {
      emit({"direct"}, sparse::BoltEmit().to_task(t.get<int>(1)));
    } else if (action == "stream") {
      emit({"on other"}, sparse::BoltEmit().to_stream("other").without_task_ids());
    } else if (action == "anchored") {
      emit({"x"}, sparse::BoltEmit().anchored_to(sparse::json("other-id")).without_task_ids());
    } else if (action == "unanchored") {
      emit({"x"}, sparse::BoltEmit().unanchored().without_task_ids());
    } else if (action == "throw") {
      throw std::runtime_error("boom");
    } else if (action == "bad_type") {
      (void)t.get<int>(1);
    } else if (action == "bad_utf8") {
      emit({std::string("\xff")}, sparse::BoltEmit().without_task_ids());
    } else if (action == "slow") {
      wait_for_file(t.get<std::string>(1));
    } else if (action == "print") {
      std::cout << "cout text" << std::endl;
      std::printf("printf text\n");
      std::fflush(stdout);
      if (::write(1, "raw fd text\n", 12) < 0) throw std::runtime_error("write failed");
    } else if (action == "ack_manually") {
      ack(t);
    } else if (action == "fail_manually") {
      fail(t);
    } else if (action == "size") {
      emit({t.get<std::string>(1).size()}, sparse::BoltEmit().without_task_ids());
    } else if (action == "echo") {
      emit(t.values(), sparse::BoltEmit().without_task_ids());
    } else if (action == "log") {
      log(t.get<std::string>(1), static_cast<sparse::LogLevel>(t.get<int>(2)));
    } else if (action == "error") {
      report_error(t.get<std::string>(1));
    } else if (action == "context") {
      emit({task_id(), component_id(), conf().value("answer", 0)},
           sparse::BoltEmit().without_task_ids());
    }
  }

  void process_tick(int freq_secs) override {
    emit({"tick", freq_secs}, sparse::BoltEmit().without_task_ids());
  }

 private:
  static void wait_for_file(const std::string& path) {
    struct stat info;
    for (int i = 0; i < 5000 && ::stat(path.c_str(), &info) != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
};

class ManualBolt : public sparse::Bolt {
 public:
  ManualBolt() {
    auto_ack = false;
    auto_anchor = false;
    auto_fail = false;
  }
  void process(const sparse::Tuple& t) override {
    if (t.get<std::string>(0) == "throw") throw std::runtime_error("manual boom");
    emit({t[0]}, sparse::BoltEmit().without_task_ids());
  }
};

class FailingInitBolt : public sparse::Bolt {
 public:
  void initialize(const sparse::json&, const sparse::json&) override {
    throw std::runtime_error("no database");
  }
  void process(const sparse::Tuple&) override {}
};

int run_scripted() {
  return sparse::run<ScriptedBolt>();
}

const sparse::json kNoIds = false;

sparse::json emit_msg(sparse::json values, sparse::json anchors) {
  sparse::json m{{"command", "emit"}, {"tuple", std::move(values)}, {"need_task_ids", false}};
  if (!anchors.empty()) m["anchors"] = std::move(anchors);
  return m;
}

// Protocol tests run with a JSON host and with a MessagePack host.
class Bolt : public WireTest {};
SPARSE_TEST_BOTH_WIRES(Bolt);

TEST_P(Bolt, HandshakeCreatesThePidFileAndReplies) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  const std::string pid_file = (dir.path() / std::to_string(bolt->pid())).string();
  struct stat info;
  ASSERT_EQ(::stat(pid_file.c_str(), &info), 0) << pid_file;
  EXPECT_EQ(info.st_size, 0);
  bolt->close_input();
  EXPECT_EQ(bolt->wait_exit(), 0);
}

TEST_P(Bolt, ConfAndContextReachTheComponent) {
  TempDir dir;
  auto bolt = start(run_scripted, dir, {{"answer", 42}});
  bolt->send(tuple_message("1", {"context"}));
  bolt->expect_eq(emit_msg({7, "under_test", 42}, {"1"}));
  bolt->expect_eq(ack("1"));
}

TEST_P(Bolt, EndOfInputBeforeTheHandshakeExitsCleanly) {
  auto bolt = ComponentProcess::fork(run_scripted, wire());
  bolt->close_input();
  EXPECT_EQ(bolt->wait_exit(), 0);
}

TEST_P(Bolt, EmitsAreAnchoredAndTheTupleAcked) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("-6955786537413359385", {"emit", "cow"}));
  bolt->expect_eq(emit_msg({"cow"}, {"-6955786537413359385"}));
  bolt->expect_eq(ack("-6955786537413359385"));
  bolt->close_input();
  EXPECT_EQ(bolt->wait_exit(), 0);
}

TEST_P(Bolt, ExplicitAnchorsStreamsAndUnanchoredEmits) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"anchored"}));
  bolt->expect_eq(emit_msg({"x"}, {"other-id"}));
  bolt->expect_eq(ack("1"));
  bolt->send(tuple_message("2", {"unanchored"}));
  bolt->expect_eq(emit_msg({"x"}, sparse::json::array()));
  bolt->expect_eq(ack("2"));
  bolt->send(tuple_message("3", {"stream"}));
  sparse::json on_other = emit_msg({"on other"}, {"3"});
  on_other["stream"] = "other";
  bolt->expect_eq(on_other);
  bolt->expect_eq(ack("3"));
}

TEST_P(Bolt, NeedTaskIdsFalseDoesNotWaitForAReply) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"emit", "a"}));
  const auto emitted = bolt->expect();
  EXPECT_EQ(emitted.at("need_task_ids"), false);
  bolt->expect_eq(ack("1"));  // no reply was sent
}

TEST_P(Bolt, TaskIdRepliesInterleavedWithTuples) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"emit_ids", "a"}));
  bolt->expect_eq({{"command", "emit"}, {"anchors", {"1"}}, {"tuple", {"a"}}});
  // The next tuple arrives before the reply: it must wait, and not be taken for the reply.
  bolt->send(tuple_message("2", {"emit_ids", "b"}));
  EXPECT_FALSE(bolt->read(200ms)) << "emit returned before its task ids arrived";
  bolt->send(sparse::json::array({4, 5}));
  bolt->expect_eq({{"command", "log"}, {"msg", "[4,5]"}, {"level", 2}});
  bolt->expect_eq(ack("1"));
  bolt->expect_eq({{"command", "emit"}, {"anchors", {"2"}}, {"tuple", {"b"}}});
  bolt->send(sparse::json::array());
  bolt->expect_eq({{"command", "log"}, {"msg", "[]"}, {"level", 2}});
  bolt->expect_eq(ack("2"));
}

TEST_P(Bolt, DirectEmitsGetNoReply) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"direct", 9}));
  bolt->expect_eq({{"command", "emit"}, {"anchors", {"1"}}, {"task", 9}, {"tuple", {"direct"}}});
  bolt->expect_eq(ack("1"));
}

TEST_P(Bolt, HeartbeatsAreAnsweredWhileProcessIsBusy) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  const std::string gate = (dir.path() / "gate").string();
  bolt->send(tuple_message("1", {"slow", gate}));
  bolt->send(heartbeat("hb-1"));
  bolt->expect_eq(kSync);
  bolt->send(heartbeat("hb-2"));
  bolt->expect_eq(kSync);
  std::ofstream(gate).put('x');
  bolt->expect_eq(ack("1"));
  // Heartbeats are never acked.
  EXPECT_FALSE(bolt->read(200ms));
}

TEST_P(Bolt, TicksCallProcessTickAndAreAcked) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tick("t-1", 10));
  bolt->expect_eq(emit_msg({"tick", 10}, sparse::json::array()));
  bolt->expect_eq(ack("t-1"));
}

TEST_P(Bolt, AnExceptionIsReportedTheTupleFailedAndTheBoltGoesOn) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"throw"}));
  const auto error = bolt->expect();
  EXPECT_EQ(error.value("command", ""), "error");
  EXPECT_NE(error.value("msg", "").find("process() threw: boom"), std::string::npos) << error;
  bolt->expect_eq(fail("1"));
  bolt->send(tuple_message("2", {"emit", "after"}));
  bolt->expect_eq(emit_msg({"after"}, {"2"}));
  bolt->expect_eq(ack("2"));
  bolt->close_input();
  EXPECT_EQ(bolt->wait_exit(), 0);
}

TEST_P(Bolt, ABadValueTypeIsReportedWithIndexAndTypes) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"bad_type", "seven"}));
  const auto error = bolt->expect();
  EXPECT_EQ(error.value("command", ""), "error");
  EXPECT_NE(error.value("msg", "").find("tuple value 1: expected integer, got string"),
            std::string::npos)
      << error;
  bolt->expect_eq(fail("1"));
}

TEST_P(Bolt, InvalidUtf8InAnEmitFailsTheTupleOnly) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"bad_utf8"}));
  EXPECT_EQ(bolt->expect().value("command", ""), "error");
  bolt->expect_eq(fail("1"));
  bolt->send(tuple_message("2", {"emit", "ok"}));
  bolt->expect_eq(emit_msg({"ok"}, {"2"}));
  bolt->expect_eq(ack("2"));
}

TEST_P(Bolt, ATupleSettledByUserCodeIsNotSettledAgain) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"ack_manually"}));
  bolt->expect_eq(ack("1"));
  bolt->send(tuple_message("2", {"fail_manually"}));
  bolt->expect_eq(fail("2"));
  bolt->send(tuple_message("3", {"emit", "next"}));
  bolt->expect_eq(emit_msg({"next"}, {"3"}));  // not a second ack of 1 or an ack of 2
  bolt->expect_eq(ack("3"));
}

TEST_P(Bolt, AutoPoliciesCanBeTurnedOff) {
  TempDir dir;
  auto bolt = start([] { return sparse::run<ManualBolt>(); }, dir);
  bolt->send(tuple_message("1", {"x"}));
  bolt->expect_eq(emit_msg({"x"}, sparse::json::array()));
  bolt->send(tuple_message("2", {"throw"}));
  EXPECT_EQ(bolt->expect().value("command", ""), "error");
  bolt->send(tuple_message("3", {"y"}));
  bolt->expect_eq(emit_msg({"y"}, sparse::json::array()));  // no ack of 1, no fail of 2
}

TEST_P(Bolt, LogAndErrorCommands) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"log", "careful", 3}));
  bolt->expect_eq({{"command", "log"}, {"msg", "careful"}, {"level", 3}});
  bolt->expect_eq(ack("1"));
  bolt->send(tuple_message("2", {"error", "it broke"}));
  bolt->expect_eq({{"command", "error"}, {"msg", "it broke"}});
  bolt->expect_eq(ack("2"));
}

TEST_P(Bolt, UserOutputOnStdoutCannotCorruptTheProtocol) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"print"}));
  bolt->expect_eq(ack("1"));
  bolt->close_input();
  EXPECT_EQ(bolt->wait_exit(), 0);
  const std::string err = bolt->stderr_text();
  EXPECT_NE(err.find("cout text"), std::string::npos) << err;
  EXPECT_NE(err.find("printf text"), std::string::npos) << err;
  EXPECT_NE(err.find("raw fd text"), std::string::npos) << err;
}

TEST_P(Bolt, MessagesLargerThanOneMebibyte) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  const std::string big(3 << 20, 'w');
  bolt->send(tuple_message("1", {"size", big}));
  bolt->expect_eq(emit_msg({big.size()}, {"1"}));
  bolt->expect_eq(ack("1"));
  bolt->send(tuple_message("2", {"echo", big}));
  bolt->expect_eq(emit_msg({"echo", big}, {"2"}));
  bolt->expect_eq(ack("2"));
}

TEST(BoltJson, AllLineTerminatorsAreAccepted) {
  TempDir dir;
  auto bolt = start_component(run_scripted, dir);
  bolt->send_raw(tuple_message("1", {"emit", "crlf"}).dump() + "\r\nend\r\n");
  bolt->expect_eq(emit_msg({"crlf"}, {"1"}));
  bolt->expect_eq(ack("1"));
  bolt->send_raw(
      "{\"id\":\"2\",\"comp\":\"s\",\r\"stream\":\"default\",\"task\":1,\r"
      "\"tuple\":[\"emit\",\"cr\"]}\rend\r");
  bolt->expect_eq(emit_msg({"cr"}, {"2"}));
  bolt->expect_eq(ack("2"));
}

TEST(BoltJson, AMalformedMessageIsReportedAndSkipped) {
  TempDir dir;
  auto bolt = start_component(run_scripted, dir);
  bolt->send_raw("this is not json\nend\n");
  const auto error = bolt->expect();
  EXPECT_EQ(error.value("command", ""), "error");
  EXPECT_NE(error.value("msg", "").find("not valid JSON"), std::string::npos) << error;
  bolt->send(sparse::json{{"id", "1"}, {"comp", "s"}});  // no "tuple"
  EXPECT_EQ(bolt->expect().value("command", ""), "error");
  bolt->send(tuple_message("2", {"emit", "fine"}));
  bolt->expect_eq(emit_msg({"fine"}, {"2"}));
  bolt->expect_eq(ack("2"));
}

TEST_P(Bolt, EndOfInputWhileWaitingForTaskIdsExitsCleanly) {
  TempDir dir;
  auto bolt = start(run_scripted, dir);
  bolt->send(tuple_message("1", {"emit_ids", "a"}));
  EXPECT_EQ(bolt->expect().value("command", ""), "emit");
  bolt->close_input();
  EXPECT_EQ(bolt->wait_exit(), 0);
}

TEST_P(Bolt, AFailingInitializeIsReportedAndExitsWithOne) {
  TempDir dir;
  auto bolt = start([] { return sparse::run<FailingInitBolt>(); }, dir);
  const auto error = bolt->expect();
  EXPECT_EQ(error.value("command", ""), "error");
  EXPECT_NE(error.value("msg", "").find("initialize() threw: no database"), std::string::npos);
  EXPECT_EQ(bolt->wait_exit(), 1);
  EXPECT_NE(bolt->stderr_text().find("no database"), std::string::npos);
}

// Groups by the first value; batches of 3, or whatever is there on a tick.
class CountingBatcher : public sparse::BatchingBolt {
 public:
  CountingBatcher() { batch_size = 3; }
  std::string group_key(const sparse::Tuple& t) override { return t.get<std::string>(0); }
  void process_batch(const std::string& key, const std::vector<sparse::Tuple>& tuples) override {
    if (key == "bad") throw std::runtime_error("bad batch");
    emit({key, tuples.size()}, sparse::BoltEmit().without_task_ids());
  }
};

int run_batcher() {
  return sparse::run<CountingBatcher>();
}

class BatchingBolt : public WireTest {};
SPARSE_TEST_BOTH_WIRES(BatchingBolt);

TEST_P(BatchingBolt, ProcessesABatchWhenItIsFull) {
  TempDir dir;
  auto bolt = start(run_batcher, dir);
  bolt->send(tuple_message("1", {"a"}));
  bolt->send(tuple_message("2", {"b"}));
  bolt->send(tuple_message("3", {"a"}));
  EXPECT_FALSE(bolt->read(100ms));
  bolt->send(tuple_message("4", {"a"}));
  bolt->expect_eq(emit_msg({"a", 3}, {"1", "3", "4"}));
  bolt->expect_eq(ack("1"));
  bolt->expect_eq(ack("3"));
  bolt->expect_eq(ack("4"));
  EXPECT_FALSE(bolt->read(100ms));  // "b" still waits
}

TEST_P(BatchingBolt, ProcessesEveryBatchOnATick) {
  TempDir dir;
  auto bolt = start(run_batcher, dir);
  bolt->send(tuple_message("1", {"b"}));
  bolt->send(tuple_message("2", {"a"}));
  bolt->send(tuple_message("3", {"b"}));
  bolt->send(tick("t", 5));
  // In the order the keys first arrived.
  bolt->expect_eq(emit_msg({"b", 2}, {"1", "3"}));
  bolt->expect_eq(ack("1"));
  bolt->expect_eq(ack("3"));
  bolt->expect_eq(emit_msg({"a", 1}, {"2"}));
  bolt->expect_eq(ack("2"));
  bolt->expect_eq(ack("t"));
}

TEST_P(BatchingBolt, AFailingBatchFailsAllItsTuples) {
  TempDir dir;
  auto bolt = start(run_batcher, dir);
  bolt->send(tuple_message("1", {"bad"}));
  bolt->send(tuple_message("2", {"bad"}));
  bolt->send(tick("t", 5));
  const auto error = bolt->expect();
  EXPECT_NE(error.value("msg", "").find("process_batch() threw: bad batch"), std::string::npos)
      << error;
  bolt->expect_eq(fail("1"));
  bolt->expect_eq(fail("2"));
  bolt->expect_eq(ack("t"));
}

TEST_P(BatchingBolt, AFailingGroupKeyFailsThatTuple) {
  TempDir dir;
  auto bolt = start(run_batcher, dir);
  bolt->send(tuple_message("1", {42}));
  EXPECT_EQ(bolt->expect().value("command", ""), "error");
  bolt->expect_eq(fail("1"));
}

}  // namespace
