// Spout protocol tests: a real spout runs in a forked child on pipes, the test plays the host.
#include "harness.hpp"

#include <sparse/sparse.hpp>

#include <cstdio>
#include <deque>
#include <iostream>
#include <stdexcept>
#include <string>

namespace {

using namespace sparse_test;

// Each next_tuple() performs the next step of conf["plan"]: {"emit": [values, id]},
// {"emit_ids": values}, {"direct": task}, {"throw": message}, {"print": text} or {} (nothing).
// ack/fail/activate/deactivate emit what they received, unreliably.
class PlannedSpout : public sparse::Spout {
 public:
  void initialize(const sparse::json& conf, const sparse::json&) override {
    for (const auto& step : conf.value("plan", sparse::json::array())) plan_.push_back(step);
  }

  void next_tuple() override {
    if (plan_.empty()) return;
    const sparse::json step = plan_.front();
    plan_.pop_front();
    if (step.contains("emit")) {
      emit(step["emit"][0], sparse::SpoutEmit().with_id(step["emit"][1]).without_task_ids());
    } else if (step.contains("emit_ids")) {
      const auto ids = emit(step["emit_ids"]);
      emit({"ids", ids}, sparse::SpoutEmit().without_task_ids());
    } else if (step.contains("direct")) {
      emit({"direct"}, sparse::SpoutEmit().with_id("d").to_task(step["direct"].get<int>()));
    } else if (step.contains("throw")) {
      throw std::runtime_error(step["throw"].get<std::string>());
    } else if (step.contains("print")) {
      std::cout << step["print"].get<std::string>() << std::endl;
    }
  }

  void ack(const sparse::json& id) override { report("acked", id); }
  void fail(const sparse::json& id) override { report("failed", id); }
  void activate() override { report("activated", nullptr); }
  void deactivate() override { report("deactivated", nullptr); }

 private:
  void report(const char* what, const sparse::json& id) {
    emit({what, id}, sparse::SpoutEmit().without_task_ids());
  }

  std::deque<sparse::json> plan_;
};

int run_planned() {
  return sparse::run<PlannedSpout>();
}

sparse::json unreliable(sparse::json values) {
  return {{"command", "emit"}, {"tuple", std::move(values)}, {"need_task_ids", false}};
}

sparse::json reliable(sparse::json values, sparse::json id) {
  auto m = unreliable(std::move(values));
  m["id"] = std::move(id);
  return m;
}

// Protocol tests run with a JSON host and with a MessagePack host.
class Spout : public WireTest {};
SPARSE_TEST_BOTH_WIRES(Spout);

TEST_P(Spout, HandshakeAndCleanExit) {
  TempDir dir;
  auto spout = start(run_planned, dir);
  spout->close_input();
  EXPECT_EQ(spout->wait_exit(), 0);
}

TEST_P(Spout, ExactlyOneSyncAfterEveryCommand) {
  TempDir dir;
  auto spout =
      start(run_planned, dir, {{"plan", {{{"emit", {{"a"}, 1}}}, sparse::json::object()}}});
  spout->send(command("next"));
  spout->expect_eq(reliable({"a"}, 1));
  spout->expect_eq(kSync);
  spout->send(command("next"));  // emits nothing
  spout->expect_eq(kSync);
  spout->send(command("ack", 1));
  spout->expect_eq(unreliable({"acked", 1}));
  spout->expect_eq(kSync);
  spout->send(command("fail", "x"));
  spout->expect_eq(unreliable({"failed", "x"}));
  spout->expect_eq(kSync);
  spout->send(command("activate"));
  spout->expect_eq(unreliable({"activated", nullptr}));
  spout->expect_eq(kSync);
  spout->send(command("deactivate"));
  spout->expect_eq(unreliable({"deactivated", nullptr}));
  spout->expect_eq(kSync);
  spout->send(command("next"));  // the plan is exhausted
  spout->expect_eq(kSync);
  spout->send(command("dance"));
  EXPECT_EQ(spout->expect().value("command", ""), "error");
  spout->expect_eq(kSync);
  EXPECT_FALSE(spout->read(200ms)) << "an extra message";
  spout->close_input();
  EXPECT_EQ(spout->wait_exit(), 0);
}

TEST_P(Spout, MessageIdsOfEveryJsonTypeAreEchoedExactly) {
  const sparse::json ids = {42,
                            -7,
                            3.5,
                            18446744073709551615u,
                            true,
                            "text",
                            "",
                            sparse::json::array({1, "two"}),
                            {{"partition", 3}, {"offset", 1234567890123}}};
  sparse::json plan = sparse::json::array();
  for (const auto& id : ids) plan.push_back({{"emit", {{"v"}, id}}});
  TempDir dir;
  auto spout = start(run_planned, dir, {{"plan", plan}});
  for (const auto& id : ids) {
    spout->send(command("next"));
    spout->expect_eq(reliable({"v"}, id));
    spout->expect_eq(kSync);
  }
  for (const auto& id : ids) {
    spout->send(command("ack", id));
    spout->expect_eq(unreliable({"acked", id}));
    spout->expect_eq(kSync);
    spout->send(command("fail", id));
    spout->expect_eq(unreliable({"failed", id}));
    spout->expect_eq(kSync);
  }
}

TEST_P(Spout, ANullMessageIdEmitsAnUnreliableTuple) {
  TempDir dir;
  auto spout = start(run_planned, dir, {{"plan", {{{"emit", {{"u"}, nullptr}}}}}});
  spout->send(command("next"));
  spout->expect_eq(unreliable({"u"}));  // no "id" field
  spout->expect_eq(kSync);
}

TEST_P(Spout, TaskIdsAreReadRightAfterTheEmit) {
  TempDir dir;
  auto spout = start(run_planned, dir, {{"plan", {{{"emit_ids", {"w"}}}}}});
  spout->send(command("next"));
  spout->expect_eq({{"command", "emit"}, {"tuple", {"w"}}});  // need_task_ids defaults to true
  EXPECT_FALSE(spout->read(100ms)) << "sync before the task ids arrived";
  spout->send(sparse::json::array({3, 4}));
  spout->expect_eq(unreliable({"ids", {3, 4}}));
  spout->expect_eq(kSync);
}

TEST_P(Spout, DirectEmitsWaitForNoReply) {
  TempDir dir;
  auto spout = start(run_planned, dir, {{"plan", {{{"direct", 4}}}}});
  spout->send(command("next"));
  spout->expect_eq({{"command", "emit"}, {"id", "d"}, {"task", 4}, {"tuple", {"direct"}}});
  spout->expect_eq(kSync);
}

TEST_P(Spout, AnExceptionIsReportedAndTheSyncStillSent) {
  TempDir dir;
  auto spout =
      start(run_planned, dir, {{"plan", {{{"throw", "spout boom"}}, {{"emit", {{"after"}, 2}}}}}});
  spout->send(command("next"));
  const auto error = spout->expect();
  EXPECT_EQ(error.value("command", ""), "error");
  EXPECT_NE(error.value("msg", "").find("next_tuple() threw: spout boom"), std::string::npos)
      << error;
  spout->expect_eq(kSync);
  spout->send(command("next"));
  spout->expect_eq(reliable({"after"}, 2));
  spout->expect_eq(kSync);
}

TEST(SpoutJson, AGarbledCommandIsReportedAndAnswered) {
  TempDir dir;
  auto spout = start_component(run_planned, dir);
  spout->send_raw("{\"command\": \nend\n");
  EXPECT_EQ(spout->expect().value("command", ""), "error");
  spout->expect_eq(kSync);
  spout->send(command("next"));
  spout->expect_eq(kSync);
}

TEST_P(Spout, UserOutputOnStdoutCannotCorruptTheProtocol) {
  TempDir dir;
  auto spout = start(run_planned, dir, {{"plan", {{{"print", "hello from the spout"}}}}});
  spout->send(command("next"));
  spout->expect_eq(kSync);
  spout->close_input();
  EXPECT_EQ(spout->wait_exit(), 0);
  EXPECT_NE(spout->stderr_text().find("hello from the spout"), std::string::npos);
}

}  // namespace
