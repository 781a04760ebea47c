// Exactly-once from Kafka to Kafka (kafka/exactly_once.hpp), end to end: the real `sparse`
// binary runs kafka_spout (exactly_once) -> a Python bolt -> kafka_bolt, plus a keyed_aggregate
// whose totals go to a state topic and a second kafka_bolt, against a real broker (the embedded
// one keeps no transactions: see the instantiation below). The runtime is killed with SIGKILL at
// random points, a Python component is killed too, the broker crashes and comes back, a bolt
// fails tuples on purpose, a record fails every time; a read_committed consumer must then find
// each input's output exactly once and the totals exact.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "broker_helpers.hpp"
#include "process.hpp"
#include "test_broker.hpp"

namespace sparse::kafka {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::BrokerKind;
using testing::Process;
using testing::TestBroker;
using testing::WaitFor;

constexpr const char* kSparseBinary = SPARSE_BINARY;
constexpr int kPartitions = 4;
constexpr int kBuckets = 5;

// [key, "v<n>"] -> [key, "t<n>", "b<n % 5>"], anchored. With test.fail_every = F, the record
// n with n % F == 7 is failed the first time this process sees it; test.poison = P fails the
// record P every time.
constexpr const char* kTransform = R"(import sys
from sparse_multilang import Bolt


class Transform(Bolt):
    def initialize(self, conf, context):
        self.fail_every = int(conf.get("test.fail_every", 0))
        self.failed = set()
        self.poison = int(conf.get("test.poison", -1))

    def process(self, tup):
        key, value = tup.values
        n = int(value[1:])
        if n == self.poison:
            self.fail(tup)
            return
        if self.fail_every and n % self.fail_every == 7 and n not in self.failed:
            self.failed.add(n)
            self.fail(tup)
            return
        self.emit([key, "t%d" % n, "b%d" % (n % 5)], need_task_ids=False)


if __name__ == "__main__":
    Transform().run()
)";

class ExactlyOnce : public ::testing::TestWithParam<BrokerKind> {
 protected:
  void SetUp() override {
    broker_ = testing::BrokerForTest(GetParam());
    if (!broker_) return;
    in_ = TestBroker::Unique("eo-in");
    out_ = TestBroker::Unique("eo-out");
    state_ = TestBroker::Unique("eo-state");
    totals_ = TestBroker::Unique("eo-totals");
    group_ = TestBroker::Unique("eo");
    for (const auto& t : {in_, out_}) broker_->CreateTopic(t, kPartitions);
    for (const auto& t : {state_, totals_}) broker_->CreateTopic(t, 1);
    dir_.Write("transform.py", kTransform);
  }

  const std::string& bootstrap() const { return broker_->bootstrap(); }

  std::string Topology(const std::string& extra_config = "") const {
    return R"(name: exactly
config:
  topology.message.timeout.secs: 20
  topology.max.spout.pending: 2000)" +
           extra_config + R"(
spouts:
  - id: source
    builtin: kafka_spout
    parallelism: 2
    options:
      topics: [)" +
           in_ + R"(]
      group_id: )" +
           group_ + R"(
      fields: [key, value]
      processing_guarantee: exactly_once
      epoch_ms: 300
bolts:
  - id: transform
    command: [python3, transform.py]
    parallelism: 2
    outputs: [key, value, bucket]
    inputs: [{from: source, grouping: shuffle}]
  - id: sink
    builtin: kafka_bolt
    options: {topic: )" +
           out_ + R"(, key_field: key, value_field: value}
    inputs: [{from: transform, grouping: shuffle}]
  - id: totals
    builtin: keyed_aggregate
    parallelism: 2
    options: {key_field: bucket, op: count, state_topic: )" +
           state_ + R"(}
    inputs: [{from: transform, grouping: fields, fields: [bucket]}]
  - id: totals_out
    builtin: kafka_bolt
    options: {topic: )" +
           totals_ + R"(, key_field: key, value_field: value}
    inputs: [{from: totals, grouping: shuffle}]
)";
  }

  std::unique_ptr<Process> Run(const std::string& name, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{kSparseBinary,
                                  "run",
                                  (dir_.path() / "exactly.yaml").string(),
                                  "-o",
                                  std::string("kafka.bootstrap.servers=") + bootstrap(),
                                  "--stats-json",
                                  (dir_.path() / (name + ".stats.json")).string(),
                                  "--log-dir",
                                  (dir_.path() / "logs").string(),
                                  "-t",
                                  "300"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(argv, dir_.path(), name);
  }

  bool AllCommitted(int records) const {
    for (auto o : testing::Committed(bootstrap(), group_, in_, kPartitions)) {
      if (o != records / kPartitions) return false;
    }
    return true;
  }

  static bool Running(Process& p) {
    return p.Stderr().find("\nrunning ") != std::string::npos;  // "running <topology> (Ctrl-C"
  }

  // Waits until the run is running and every input record's offset is committed, then drains
  // it (SIGTERM: exit 0). Running first: everything may be committed already, and a SIGTERM
  // before the runtime has its handlers would end it as a signal does, not as a drain.
  void DrainOnceAllCommitted(Process& run, int records, seconds timeout) const {
    ASSERT_TRUE(WaitFor(
        run, [&] { return Running(run) && AllCommitted(records); }, timeout))
        << run.Stderr();
    run.Signal(SIGTERM);
    EXPECT_EQ(run.Wait(seconds(60)), 0) << run.Stderr();
  }

  // Starts the run and kills it with SIGKILL `rounds` times. Round r runs for delay(r); when
  // kill_child(r), the child whose command line contains `child` is then killed with SIGKILL
  // (once the topology runs: a component that dies while it starts fails the start, by design)
  // and the run goes on for another delay(r) before it is killed.
  void KillRounds(int rounds, const std::function<milliseconds(int)>& delay,
                  const std::string& child, const std::function<bool(int)>& kill_child) {
    for (int round = 0; round < rounds; ++round) {
      auto run = Run("kill" + std::to_string(round));
      std::this_thread::sleep_for(delay(round));
      if (kill_child(round)) {
        ASSERT_TRUE(WaitFor(
            *run, [&] { return Running(*run); }, seconds(60)))
            << run->Stderr();
        const pid_t pid = ChildWith(run->pid(), child);
        ASSERT_GT(pid, 0) << "no child running " << child;
        ::kill(pid, SIGKILL);
        std::this_thread::sleep_for(delay(round));
      }
      ASSERT_FALSE(run->Wait(milliseconds(0))) << "the run ended before it was killed:\n"
                                               << run->Stderr();
      run->Signal(SIGKILL);
      ASSERT_EQ(run->Wait(seconds(10)), 128 + SIGKILL);
    }
  }

  json Stats(const std::string& name) const {
    return json::parse(testing::ReadFile(dir_.path() / (name + ".stats.json")));
  }
  static json Component(const json& stats, const std::string& id) {
    for (const auto& c : stats["components"]) {
      if (c["id"] == id) return c;
    }
    return json();
  }

  // Output numbers n (from "t<n>") and how often each was written, as read_committed sees them.
  std::map<int, int> Outputs() const {
    std::map<int, int> copies;
    for (const auto& r : testing::ReadCommitted(bootstrap(), out_, kPartitions)) {
      copies[std::stoi(r.value.value().substr(1))]++;
    }
    return copies;
  }

  // Checks that every input's output is there exactly once, and the totals are exact, both in
  // the state topic and in the totals' output topic (the last record per bucket).
  // `given_up`: an input that must have no output (and is left out of the totals).
  void ExpectExactlyOnce(int records, int given_up = -1) const {
    ExpectEachOutputOnce(records, given_up);
    ExpectExactTotals(records, given_up);
  }

  void ExpectEachOutputOnce(int records, int given_up = -1) const {
    const auto copies = Outputs();
    int missing = 0, duplicated = 0;
    for (int n = 0; n < records; ++n) {
      if (n == given_up) {
        EXPECT_EQ(copies.count(n), 0u) << "the given-up input has an output";
        continue;
      }
      auto it = copies.find(n);
      if (it == copies.end()) {
        ++missing;
      } else if (it->second > 1) {
        duplicated += it->second - 1;
      }
    }
    EXPECT_EQ(missing, 0) << "inputs with no output";
    EXPECT_EQ(duplicated, 0) << "outputs written more than once";
    EXPECT_EQ(copies.size(), static_cast<std::size_t>(records - (given_up >= 0 ? 1 : 0)))
        << "nothing else was written";
  }

  void ExpectExactTotals(int records, int given_up) const {
    std::map<std::string, std::string> state, totals;
    for (const auto& r : testing::ReadCommitted(bootstrap(), state_, 1)) {
      const json v = json::parse(r.value.value());
      state[v["key"].get<std::string>()] = v["value"].dump();
    }
    for (const auto& r : testing::ReadCommitted(bootstrap(), totals_, 1)) {
      totals[r.key.value()] = r.value.value();
    }
    ASSERT_EQ(state.size(), static_cast<std::size_t>(kBuckets));
    for (int b = 0; b < kBuckets; ++b) {
      const std::string bucket = "b" + std::to_string(b);
      const int lost = given_up >= 0 && given_up % kBuckets == b ? 1 : 0;
      const std::string expected = std::to_string(records / kBuckets - lost);
      EXPECT_EQ(state[bucket], expected) << "state of " << bucket;
      EXPECT_EQ(totals[bucket], expected) << "last total written for " << bucket;
    }
  }

  // The pid of a child of `parent` whose command line contains `needle`, or -1.
  static pid_t ChildWith(pid_t parent, const std::string& needle) {
    std::ifstream children("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) +
                           "/children");
    pid_t child = 0;
    while (children >> child) {
      std::ifstream cmd("/proc/" + std::to_string(child) + "/cmdline");
      std::string text((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
      if (text.find(needle) != std::string::npos) return child;
    }
    return -1;
  }

  std::unique_ptr<TestBroker> broker_;
  std::string in_, out_, state_, totals_, group_;
  testing::TempDir dir_;
};

class ExactlyOnceEmbedded : public ExactlyOnce {};

// The end-to-end tests run against a real broker only: librdkafka's mock broker answers the
// transaction requests but keeps nothing of them (TxnOffsetCommit stores no offset, EndTxn
// writes no marker, read_committed sees aborted records), so it cannot show exactly-once.
INSTANTIATE_TEST_SUITE_P(, ExactlyOnce, ::testing::Values(BrokerKind::kReal),
                         testing::BrokerKindName);
INSTANTIATE_TEST_SUITE_P(, ExactlyOnceEmbedded, ::testing::Values(BrokerKind::kEmbedded),
                         testing::BrokerKindName);

TEST_P(ExactlyOnce, KillNineTenTimesNeitherLosesNorDuplicates) {
  constexpr int kRecords = 20000;
  testing::ProduceNumbered(bootstrap(), in_, kRecords, kPartitions);
  dir_.Write("exactly.yaml", Topology());

  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> delay_ms(800, 3500);
  SCOPED_TRACE("seed " + std::to_string(seed));
  // In rounds 1, 4 and 7 a component dies too: its tuples fail, the epoch aborts and replays.
  KillRounds(
      10, [&](int) { return milliseconds(delay_ms(rng)); }, "transform.py",
      [](int round) { return round % 3 == 1; });
  if (HasFatalFailure()) return;

  auto last = Run("last");
  DrainOnceAllCommitted(*last, kRecords, seconds(120));
  if (HasFatalFailure()) return;
  ExpectExactlyOnce(kRecords);
}

TEST_P(ExactlyOnce, ACppBoltInBetweenNeitherLosesNorDuplicates) {
  constexpr int kRecords = 10000;
  testing::ProduceNumbered(bootstrap(), in_, kRecords, kPartitions);
  // The C++ adapter's example bolt, unchanged: it splits its input into words, each emitted
  // anchored; a record "v<n>" is one word.
  dir_.Write("exactly.yaml", R"(name: exactly
config:
  topology.message.timeout.secs: 20
  topology.max.spout.pending: 2000
spouts:
  - id: source
    builtin: kafka_spout
    parallelism: 2
    options:
      topics: [)" + in_ + R"(]
      group_id: )" + group_ + R"(
      fields: [value]
      processing_guarantee: exactly_once
      epoch_ms: 300
bolts:
  - id: split
    command: [)" + std::string(SPARSE_CPP_SPLIT) +
                                 R"(]
    parallelism: 2
    outputs: [word]
    inputs: [{from: source, grouping: shuffle}]
  - id: sink
    builtin: kafka_bolt
    options: {topic: )" + out_ + R"(, value_field: word}
    inputs: [{from: split, grouping: shuffle}]
)");
  KillRounds(
      4, [](int round) { return milliseconds(1000 + 400 * round); }, "split_sentence",
      [](int round) { return round == 1; });
  if (HasFatalFailure()) return;
  auto last = Run("last");
  DrainOnceAllCommitted(*last, kRecords, seconds(120));
  if (HasFatalFailure()) return;
  ExpectEachOutputOnce(kRecords);
}

TEST_P(ExactlyOnce, BrokerCrashMidRunNeitherLosesNorDuplicates) {
  constexpr int kRecords = 20000;
  testing::ProduceNumbered(bootstrap(), in_, kRecords, kPartitions);
  dir_.Write("exactly.yaml", Topology());
  auto run = Run("run");
  // Some epochs committed, more in flight: then the broker dies with SIGKILL and comes back.
  ASSERT_TRUE(WaitFor(
      *run, [&] { return Running(*run) && !Outputs().empty(); }, seconds(60)))
      << run->Stderr();
  broker_->Restart();
  ASSERT_FALSE(run->Wait(milliseconds(0))) << "the run ended with the broker:\n" << run->Stderr();
  DrainOnceAllCommitted(*run, kRecords, seconds(240));
  if (HasFatalFailure()) return;
  ExpectExactlyOnce(kRecords);
}

TEST_P(ExactlyOnce, FailedTuplesAbortTheirEpochWhichReplaysWithoutDuplicates) {
  constexpr int kRecords = 6000;
  testing::ProduceNumbered(bootstrap(), in_, kRecords, kPartitions);
  dir_.Write("exactly.yaml", Topology("\n  test.fail_every: 1000"));
  auto run = Run("run");
  DrainOnceAllCommitted(*run, kRecords, seconds(120));
  if (HasFatalFailure()) return;
  ExpectExactlyOnce(kRecords);
  const json gauges = Component(Stats("run"), "source")["gauges"];
  EXPECT_GT(gauges.value("kafka.transactions_aborted", 0.0), 0) << gauges.dump();
  EXPECT_GT(gauges.value("kafka.transactions_committed", 0.0), 0) << gauges.dump();
}

TEST_P(ExactlyOnce, ARecordThatAlwaysFailsIsGivenUpAfterMaxRetriesReplays) {
  constexpr int kRecords = 2000;
  constexpr int kPoison = 1234;
  const std::string dead = TestBroker::Unique("eo-dead");
  broker_->CreateTopic(dead, 1);
  testing::ProduceNumbered(bootstrap(), in_, kRecords, kPartitions);
  std::string topology = Topology("\n  test.poison: " + std::to_string(kPoison));
  const std::string epoch = "      epoch_ms: 300\n";
  topology.insert(topology.find(epoch) + epoch.size(),
                  "      max_retries: 2\n      dead_letter_topic: " + dead + "\n");
  dir_.Write("exactly.yaml", topology);
  auto run = Run("run");
  DrainOnceAllCommitted(*run, kRecords, seconds(120));
  if (HasFatalFailure()) return;
  ExpectExactlyOnce(kRecords, kPoison);

  // Dead letters are written outside the epochs' transactions: at least once.
  const auto letters = testing::ReadAll(bootstrap(), dead, 1);
  ASSERT_FALSE(letters.empty());
  for (const auto& l : letters) {
    EXPECT_EQ(l.value.value_or(""), "v" + std::to_string(kPoison));
    EXPECT_NE(l.headers.at("sparse.error").find("failed 3 time(s)"), std::string::npos)
        << l.headers.at("sparse.error");
  }
  const json gauges = Component(Stats("run"), "source")["gauges"];
  EXPECT_GE(gauges.value("kafka.transactions_aborted", 0.0), 3) << gauges.dump();
}

TEST_P(ExactlyOnce, QuickstartVariantCountsClicksPerUserExactly) {
  broker_->CreateTopic("clicks", 4);
  for (const char* t :
       {"clicks-enriched", "clicks-dead", "clicks-per-user", "clicks-per-user-state"}) {
    broker_->CreateTopic(t, 1);
  }
  std::vector<testing::TestRecord> clicks;
  std::map<std::string, int> per_user;
  for (int i = 0; i < 700; ++i) {
    testing::TestRecord r;
    r.key = "user" + std::to_string(i % 7);
    r.value = json{{"user", *r.key}, {"url", "https://example.com/" + std::to_string(i)}}.dump();
    clicks.push_back(r);
    per_user[*r.key]++;
    if (i == 350) {
      testing::TestRecord bad;  // fails every replay of its epoch, then is dead-lettered
      bad.key = "user1";
      bad.value = "not json";
      clicks.push_back(bad);
    }
  }
  testing::Produce(bootstrap(), "clicks", clicks);

  Process quickstart(
      {kSparseBinary, "quickstart", "demo", "--lang", "kafka", "--dir", dir_.path().string()},
      dir_.path(), "quickstart");
  ASSERT_EQ(quickstart.Wait(seconds(30)), 0) << quickstart.Stderr();
  Process run({kSparseBinary, "run", "clicks_exactly_once", "-o",
               "kafka.bootstrap.servers=" + bootstrap(), "-t", "120"},
              dir_.path() / "demo", "run");
  ASSERT_TRUE(WaitFor(
      run,
      [&] {
        return Running(run) && testing::CountRecords(bootstrap(), "clicks-dead", 1) >= 1 &&
               testing::ReadCommitted(bootstrap(), "clicks-enriched", 1).size() >= 700;
      },
      seconds(120)))
      << run.Stderr();
  run.Signal(SIGTERM);
  EXPECT_EQ(run.Wait(seconds(60)), 0) << run.Stderr();

  EXPECT_EQ(testing::ReadCommitted(bootstrap(), "clicks-enriched", 1).size(), 700u);
  std::map<std::string, int> totals;  // the last total written per user
  for (const auto& r : testing::ReadCommitted(bootstrap(), "clicks-per-user", 1)) {
    totals[r.key.value()] = std::stoi(r.value.value());
  }
  EXPECT_EQ(totals, per_user);
  const auto dead = testing::ReadAll(bootstrap(), "clicks-dead", 1);
  ASSERT_FALSE(dead.empty());
  EXPECT_EQ(dead[0].value, "not json");
}

TEST_P(ExactlyOnceEmbedded, OnTheEmbeddedBrokerTheRunSaysItIsOnlyAtLeastOnce) {
  Process quickstart(
      {kSparseBinary, "quickstart", "demo", "--lang", "kafka", "--dir", dir_.path().string()},
      dir_.path(), "quickstart");
  ASSERT_EQ(quickstart.Wait(seconds(30)), 0) << quickstart.Stderr();
  Process run({kSparseBinary, "run", "clicks_exactly_once", "-t", "2"}, dir_.path() / "demo",
              "run");
  EXPECT_EQ(run.Wait(seconds(60)), 0) << run.Stderr();
  EXPECT_NE(run.Stderr().find("the embedded broker does not keep Kafka transactions"),
            std::string::npos)
      << run.Stderr();
  Process plain({kSparseBinary, "run", "clicks", "-t", "1"}, dir_.path() / "demo", "plain");
  EXPECT_EQ(plain.Wait(seconds(60)), 0) << plain.Stderr();
  EXPECT_EQ(plain.Stderr().find("does not keep Kafka transactions"), std::string::npos)
      << "said of an at-least-once topology";
}

TEST_P(ExactlyOnceEmbedded, EverySpoutMustTakePartAndSinksOutsideKafkaAreNamed) {
  dir_.Write("exactly.yaml", Topology() + R"(  - id: printer
    command: [python3, transform.py]
    outputs: [key, value, bucket]
    inputs: [{from: source, grouping: shuffle}]
)");
  auto warned = Run("warned");
  // The warning comes before the runtime handles SIGTERM: wait until it runs, or the signal
  // would end it the default way.
  ASSERT_TRUE(WaitFor(
      *warned,
      [&] {
        return warned->Stderr().find("ends the topology") != std::string::npos && Running(*warned);
      },
      seconds(60)))
      << warned->Stderr();
  warned->Signal(SIGTERM);
  const auto code = warned->Wait(seconds(60));
  EXPECT_NE(warned->Stderr().find("bolt `printer` ends the topology outside Kafka's "
                                  "transactions"),
            std::string::npos)
      << warned->Stderr();
  EXPECT_EQ(warned->Stderr().find("bolt `sink` ends"), std::string::npos) << "kafka_bolt is in";
  EXPECT_EQ(warned->Stderr().find("bolt `totals_out` ends"), std::string::npos);
  EXPECT_EQ(code, 0) << warned->Stderr();

  std::string topology = Topology();
  const std::string spouts = "spouts:\n";
  topology.insert(topology.find(spouts) + spouts.size(), R"(  - id: other
    builtin: kafka_spout
    options: {topics: [x], group_id: g, fields: [key, value]}
)");
  dir_.Write("exactly.yaml", topology);
  auto refused = Run("refused");
  EXPECT_EQ(refused->Wait(seconds(60)), 2) << refused->Stderr();
  EXPECT_NE(refused->Stderr().find("spout `other` is not a kafka_spout with `processing_guarantee: "
                                   "exactly_once`"),
            std::string::npos)
      << refused->Stderr();
}

}  // namespace
}  // namespace sparse::kafka
