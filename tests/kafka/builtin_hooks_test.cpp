// The runtime hooks the Kafka built-ins rely on, exercised through a real LocalCluster with
// small built-ins: Fatal() restarts the task (Open again on the same object) and its in-flight
// trees still complete; Backpressure() is called when a spout is throttled and released.
#include <gtest/gtest.h>

#include <boost/asio/steady_timer.hpp>

#include "runtime/builtin.hpp"
#include "runtime/local_cluster.hpp"
#include "runtime/plan.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"

namespace sparse::kafka {
namespace {

using runtime::BuiltinCollector;

struct Record {
  int opens = 0;
  int acked = 0;
  int backpressure_on = 0;
  int backpressure_off = 0;
};
Record g_record;

// Emits 20 tuples with message ids; in its first life it reports a fatal error after 5.
class FlakySpout final : public runtime::BuiltinComponent {
 public:
  std::optional<std::string> Open(const nlohmann::json&, int, int, int, BuiltinCollector& out,
                                  boost::asio::io_context&) override {
    out_ = &out;
    ++g_record.opens;
    return std::nullopt;
  }
  void NextTuple() override {
    if (next_ >= 20 || failed_now_) return;
    out_->Emit("default", "[" + std::to_string(next_) + "]", "[" + std::to_string(next_) + "]", {},
               std::nullopt);
    if (++next_ == 5 && g_record.opens == 1) {
      failed_now_ = true;
      out_->Fatal("boom");
    }
  }
  void Activate() override { failed_now_ = false; }
  void Ack(const std::string&) override { ++g_record.acked; }
  void Backpressure(bool on) override {
    ++(on ? g_record.backpressure_on : g_record.backpressure_off);
  }

 private:
  BuiltinCollector* out_ = nullptr;
  int next_ = 0;  // kept across the restart: the object is reopened, not recreated
  bool failed_now_ = false;
};

class AckBolt final : public runtime::BuiltinComponent {
 public:
  std::optional<std::string> Open(const nlohmann::json&, int, int, int, BuiltinCollector& out,
                                  boost::asio::io_context&) override {
    out_ = &out;
    return std::nullopt;
  }
  void Execute(const runtime::BuiltinTuple& t) override { out_->Ack(t.id); }

 private:
  BuiltinCollector* out_ = nullptr;
};

// Acks what it holds every 20 ms: a slow bolt, so its queue crosses the watermark.
class SlowBolt final : public runtime::BuiltinComponent {
 public:
  std::optional<std::string> Open(const nlohmann::json&, int, int, int, BuiltinCollector& out,
                                  boost::asio::io_context& io) override {
    out_ = &out;
    timer_ = std::make_unique<boost::asio::steady_timer>(io);
    Arm();
    return std::nullopt;
  }
  void Execute(const runtime::BuiltinTuple& t) override { held_.push_back(t.id); }
  void Close() override { timer_.reset(); }

 private:
  void Arm() {
    timer_->expires_after(std::chrono::milliseconds(20));
    timer_->async_wait([this](const boost::system::error_code& ec) {
      if (ec || !timer_) return;
      for (const auto& id : held_) out_->Ack(id);
      held_.clear();
      Arm();
    });
  }
  BuiltinCollector* out_ = nullptr;
  std::unique_ptr<boost::asio::steady_timer> timer_;
  std::vector<std::string> held_;
};

class LastStatus : public runtime::ClusterObserver {
 public:
  void OnStatus(const runtime::ClusterSnapshot& s) override { last = s; }
  runtime::ClusterSnapshot last;
};

void RegisterHookBuiltins() {
  if (runtime::FindBuiltin("hooks_flaky_spout")) return;
  runtime::RegisterBuiltin({"hooks_flaky_spout",
                            runtime::ComponentKind::kSpout,
                            {},
                            [](const nlohmann::json&, std::string&) {
                              runtime::StreamDef s;
                              s.id = "default";
                              s.fields = {"n"};
                              return std::vector<runtime::StreamDef>{s};
                            },
                            [](const nlohmann::json&) { return std::make_unique<FlakySpout>(); }});
  runtime::RegisterBuiltin(
      {"hooks_ack_bolt",
       runtime::ComponentKind::kBolt,
       {},
       [](const nlohmann::json&, std::string&) { return std::vector<runtime::StreamDef>{}; },
       [](const nlohmann::json&) { return std::make_unique<AckBolt>(); }});
  runtime::RegisterBuiltin(
      {"hooks_slow_bolt",
       runtime::ComponentKind::kBolt,
       {},
       [](const nlohmann::json&, std::string&) { return std::vector<runtime::StreamDef>{}; },
       [](const nlohmann::json&) { return std::make_unique<SlowBolt>(); }});
}

TEST(BuiltinHooks, FatalRestartsTheTaskAndItsTreesStillComplete) {
  RegisterHookBuiltins();
  g_record = {};
  const auto topology = runtime::LoadTopologyFromString(R"(name: hooks
spouts:
  - id: flaky
    builtin: hooks_flaky_spout
bolts:
  - id: sink
    builtin: hooks_ack_bolt
    inputs:
      - {from: flaky, grouping: shuffle}
)",
                                                        "hooks.yaml");
  runtime::ValidateOrThrow(topology);
  const auto plan = runtime::MakePlan(topology, nlohmann::json::object());
  runtime::ClusterOptions options;
  options.handle_signals = false;
  options.stop_when_idle = std::chrono::milliseconds(500);
  options.run_for = std::chrono::seconds(30);
  LastStatus status;
  runtime::LocalCluster cluster(plan, options, &status);
  EXPECT_EQ(cluster.Run(), runtime::RunStatus::kOk);
  EXPECT_EQ(g_record.opens, 2) << "opened again after Fatal";
  EXPECT_EQ(g_record.acked, 20) << "trees emitted before the failure complete too";
  bool seen = false;
  for (const auto& c : status.last.components) {
    if (c.id != "flaky") continue;
    seen = true;
    EXPECT_EQ(c.totals.restarts, 1u);
  }
  EXPECT_TRUE(seen);
}

TEST(BuiltinHooks, BackpressureIsSignalledBothWays) {
  RegisterHookBuiltins();
  g_record = {};
  // A bolt queue watermark of 2 throttles the spout almost at once.
  const auto topology = runtime::LoadTopologyFromString(R"(name: hooks
config:
  sparse.queue.high.watermark: 2
  sparse.queue.low.watermark: 1
spouts:
  - id: flaky
    builtin: hooks_flaky_spout
bolts:
  - id: sink
    builtin: hooks_slow_bolt
    inputs:
      - {from: flaky, grouping: shuffle}
)",
                                                        "hooks.yaml");
  runtime::ValidateOrThrow(topology);
  const auto plan = runtime::MakePlan(topology, nlohmann::json::object());
  runtime::ClusterOptions options;
  options.handle_signals = false;
  options.stop_when_idle = std::chrono::milliseconds(500);
  options.run_for = std::chrono::seconds(30);
  runtime::LocalCluster cluster(plan, options, nullptr);
  EXPECT_EQ(cluster.Run(), runtime::RunStatus::kOk);
  EXPECT_GT(g_record.backpressure_on, 0);
  EXPECT_EQ(g_record.backpressure_on, g_record.backpressure_off)
      << "every throttle is released (the spout finished all 20)";
  EXPECT_EQ(g_record.acked, 20);
}

}  // namespace
}  // namespace sparse::kafka
