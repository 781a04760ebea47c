// Storm's own test components, which Flux examples reference by class name, built in so those
// topologies run unchanged:
//  - TestWordSpout: emits ["word"] from a fixed list, unreliably, every few milliseconds.
//  - TestWordCounter: counts "word" (field 0) and emits ["word", "count"].
//  - LogInfoBolt: logs every tuple at INFO.
#include <array>
#include <random>
#include <string>
#include <unordered_map>

#include "multilang/messages.hpp"
#include "runtime/builtin.hpp"
#include "runtime/builtin_registry.hpp"
#include "runtime/tuple.hpp"

namespace sparse::runtime {

namespace {

class TestWordSpout final : public BuiltinComponent {
 public:
  std::optional<std::string> Open(const nlohmann::json&, int task_id, int, int,
                                  BuiltinCollector& collector, boost::asio::io_context&) override {
    collector_ = &collector;
    rng_.seed(static_cast<std::uint64_t>(task_id) * 7919u);
    return std::nullopt;
  }
  void NextTuple() override {
    static constexpr std::array<const char*, 5> kWords = {"nathan", "mike", "jackson", "golda",
                                                          "bertels"};
    std::string values = "[";
    multilang::AppendJsonString(values, kWords[rng_() % kWords.size()]);
    values += "]";
    collector_->Emit("default", std::move(values), "", {}, std::nullopt);
  }

 private:
  BuiltinCollector* collector_ = nullptr;
  std::mt19937_64 rng_;
};

class TestWordCounter final : public BuiltinComponent {
 public:
  std::optional<std::string> Open(const nlohmann::json&, int, int, int, BuiltinCollector& collector,
                                  boost::asio::io_context&) override {
    collector_ = &collector;
    return std::nullopt;
  }
  void Execute(const BuiltinTuple& t) override {
    if (t.tick || !t.tuple || t.tuple->size() == 0) {
      collector_->Ack(t.id);
      return;
    }
    std::string word(t.tuple->value(0));
    const auto count = ++counts_[word];
    std::string values = "[" + word + "," + std::to_string(count) + "]";
    collector_->Emit("default", std::move(values), "", {t.id}, std::nullopt);
    collector_->Ack(t.id);
  }

 private:
  BuiltinCollector* collector_ = nullptr;
  std::unordered_map<std::string, std::uint64_t> counts_;
};

class LogInfoBolt final : public BuiltinComponent {
 public:
  std::optional<std::string> Open(const nlohmann::json&, int, int, int, BuiltinCollector& collector,
                                  boost::asio::io_context&) override {
    collector_ = &collector;
    return std::nullopt;
  }
  void Execute(const BuiltinTuple& t) override {
    if (t.tuple) {
      collector_->Log(2, "source: " + std::string(t.component) + ":" + std::string(t.stream) +
                             ", values: " + t.tuple->values_json);
    }
    collector_->Ack(t.id);
  }

 private:
  BuiltinCollector* collector_ = nullptr;
};

std::vector<StreamDef> Fields(std::vector<std::string> fields) {
  StreamDef s;
  s.id = "default";
  s.fields = std::move(fields);
  return {s};
}

// These built-ins are sparse's versions of Java classes that Storm ships; a Storm cluster runs
// the class itself.
std::string OnStormAs(const char* java_class) {
  return std::string("on Storm, use Storm's own ") + java_class +
         " in a Java or Flux topology (a jar of shell components cannot start it)";
}

}  // namespace

void RegisterStandardBuiltins(BuiltinRegistry& registry) {
  registry.Add({"test_word_spout",
                ComponentKind::kSpout,
                {"org.apache.storm.testing.TestWordSpout", "backtype.storm.testing.TestWordSpout"},
                [](const nlohmann::json&, std::string&) { return Fields({"word"}); },
                [](const nlohmann::json&) { return std::make_unique<TestWordSpout>(); },
                {},
                OnStormAs("org.apache.storm.testing.TestWordSpout")});
  registry.Add(
      {"test_word_counter",
       ComponentKind::kBolt,
       {"org.apache.storm.testing.TestWordCounter", "backtype.storm.testing.TestWordCounter"},
       [](const nlohmann::json&, std::string&) {
         return Fields({"word", "count"});
       },
       [](const nlohmann::json&) { return std::make_unique<TestWordCounter>(); },
       {},
       OnStormAs("org.apache.storm.testing.TestWordCounter")});
  registry.Add({"log_info",
                ComponentKind::kBolt,
                {"org.apache.storm.flux.wrappers.bolts.LogInfoBolt"},
                [](const nlohmann::json&, std::string&) { return std::vector<StreamDef>{}; },
                [](const nlohmann::json&) { return std::make_unique<LogInfoBolt>(); },
                {},
                OnStormAs("org.apache.storm.flux.wrappers.bolts.LogInfoBolt")});
}

}  // namespace sparse::runtime
