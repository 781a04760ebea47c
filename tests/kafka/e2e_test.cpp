// End to end: the real `sparse` binary runs topologies against a Kafka broker that outlives it
// (so the runtime can be killed with SIGKILL while the broker and its data survive), reached over
// TCP. The tests of KafkaEndToEnd run against both brokers of test_broker.hpp (the embedded one
// and a real Apache Kafka); KafkaEndToEndEmbedded holds those that need only, or exactly, the
// embedded one.
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "broker_helpers.hpp"
#include "kafka/embedded_broker.hpp"
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

constexpr const char* kSparse = SPARSE_BINARY;

class KafkaEndToEnd : public ::testing::TestWithParam<BrokerKind> {
 protected:
  void SetUp() override {
    broker_ = testing::BrokerForTest(GetParam());
    if (!broker_) return;
    in_ = TestBroker::Unique("in");
    out_ = TestBroker::Unique("out");
    group_ = TestBroker::Unique("copy");
  }

  const std::string& bootstrap() const { return broker_->bootstrap(); }

  // kafka_spout (topic in_, group group_) -> kafka_bolt (topic out_), keys and values copied.
  std::string CopyTopology(const std::string& extra_spout_options = "",
                           int spout_parallelism = 1) const {
    return R"(name: copy
config:
  topology.message.timeout.secs: 30
  topology.max.spout.pending: 5000
spouts:
  - id: source
    builtin: kafka_spout
    parallelism: )" +
           std::to_string(spout_parallelism) + R"(
    options:
      topics: [)" +
           in_ + R"(]
      group_id: )" +
           group_ + R"(
      commit_interval_ms: 100
      fields: [key, value])" +
           extra_spout_options + R"(
bolts:
  - id: sink
    builtin: kafka_bolt
    options: {topic: )" +
           out_ + R"(, key_field: key, value_field: value}
    inputs:
      - {from: source, grouping: shuffle}
)";
  }

  // The record numbers (i of ProduceNumbered's "v<i>") in topic `out_`.
  std::multiset<int> OutNumbers(int partitions) const {
    std::multiset<int> numbers;
    for (const auto& r : testing::ReadAll(bootstrap(), out_, partitions)) {
      numbers.insert(std::stoi(r.value.value().substr(1)));
    }
    return numbers;
  }

  std::unique_ptr<Process> Run(const std::string& topology_file, const std::string& name,
                               std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{kSparse,
                                  "run",
                                  (dir_.path() / topology_file).string(),
                                  "-o",
                                  std::string("kafka.bootstrap.servers=") + bootstrap(),
                                  "--stats-json",
                                  (dir_.path() / (name + ".stats.json")).string(),
                                  "--log-dir",
                                  (dir_.path() / "logs").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(argv, dir_.path(), name);
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

  // Waits until `done` or the process exits or the deadline passes.
  bool AllCommitted(const std::string& group, const std::string& topic, int partitions,
                    std::int64_t per_partition) {
    const auto c = testing::Committed(bootstrap(), group, topic, partitions);
    for (auto o : c) {
      if (o != per_partition) return false;
    }
    return true;
  }

  // Stops a run gracefully (drain) and returns its exit code.
  static int Stop(Process& p) {
    p.Signal(SIGTERM);
    auto code = p.Wait(seconds(30));
    return code ? *code : -1;
  }

  std::unique_ptr<TestBroker> broker_;
  std::string in_, out_, group_;  // unique to the test: a real broker serves every test
  testing::TempDir dir_;
};

// The tests that need no broker of their own, or the embedded one's failure switch.
class KafkaEndToEndEmbedded : public KafkaEndToEnd {};
// What only a real broker can show (the embedded one has no offsets-for-times).
class KafkaEndToEndReal : public KafkaEndToEnd {};

INSTANTIATE_TEST_SUITE_P(, KafkaEndToEnd,
                         ::testing::Values(BrokerKind::kEmbedded, BrokerKind::kReal),
                         testing::BrokerKindName);
INSTANTIATE_TEST_SUITE_P(, KafkaEndToEndEmbedded, ::testing::Values(BrokerKind::kEmbedded),
                         testing::BrokerKindName);
INSTANTIATE_TEST_SUITE_P(, KafkaEndToEndReal, ::testing::Values(BrokerKind::kReal),
                         testing::BrokerKindName);

TEST_P(KafkaEndToEnd, CopiesEveryRecordAndCommitsAtTheEnd) {
  broker_->CreateTopic(in_, 4);
  broker_->CreateTopic(out_, 4);
  testing::ProduceNumbered(bootstrap(), in_, 2000, 4);
  dir_.Write("copy.yaml", CopyTopology());
  auto run = Run("copy.yaml", "run", {"-t", "120"});
  ASSERT_TRUE(WaitFor(
      *run, [&] { return AllCommitted(group_, in_, 4, 500); }, seconds(60)))
      << run->Stderr();
  EXPECT_EQ(Stop(*run), 0) << run->Stderr();
  const auto out = testing::ReadAll(bootstrap(), out_, 4);
  std::set<std::string> values;
  for (const auto& r : out) values.insert(r.value.value_or(""));
  EXPECT_EQ(values.size(), 2000u);
  EXPECT_EQ(out.size(), 2000u) << "no failure, so no replay";
  const json stats = Stats("run");
  const json source = Component(stats, "source");
  EXPECT_EQ(source["acked"], 2000);
  EXPECT_EQ(source["failed"], 0);
  EXPECT_GT(source["gauges"]["kafka.commits"].get<double>(), 0);
  EXPECT_EQ(Component(stats, "sink")["gauges"]["kafka.delivered"], 2000);
}

// Start positions: the default (committed_or_earliest) resumes each partition at the group's
// commit, or at the beginning where there is none; `earliest` reads everything again.
TEST_P(KafkaEndToEnd, StartsAtTheCommitOrTheBeginningAndEarliestRereadsAll) {
  broker_->CreateTopic(in_, 2);
  broker_->CreateTopic(out_, 2);
  testing::ProduceNumbered(bootstrap(), in_, 20, 2);  // record i: partition i % 2, offset i / 2
  testing::Commit(bootstrap(), group_, in_, 0, 6);
  dir_.Write("copy.yaml", CopyTopology());
  auto first = Run("copy.yaml", "first", {"-t", "120"});
  ASSERT_TRUE(WaitFor(
      *first, [&] { return AllCommitted(group_, in_, 2, 10); }, seconds(60)))
      << first->Stderr();
  EXPECT_EQ(Stop(*first), 0) << first->Stderr();
  std::multiset<int> expected;
  for (int i = 0; i < 20; ++i) {
    if (i % 2 == 1 || i / 2 >= 6) expected.insert(i);
  }
  EXPECT_EQ(OutNumbers(2), expected) << "partition 0 from its commit, partition 1 from 0";

  dir_.Write("earliest.yaml", CopyTopology("\n      start: earliest"));
  auto second = Run("earliest.yaml", "second", {"-t", "120"});
  ASSERT_TRUE(WaitFor(
      *second, [&] { return testing::CountRecords(bootstrap(), out_, 2) >= 34; }, seconds(60)))
      << second->Stderr();
  EXPECT_EQ(Stop(*second), 0) << second->Stderr();
  for (int i = 0; i < 20; ++i) expected.insert(i);
  EXPECT_EQ(OutNumbers(2), expected) << "earliest ignores the commit";
}

// `start: timestamp` in the middle of the partitions: each starts at its first record at or
// after start_timestamp_ms (the broker's offsets-for-times).
TEST_P(KafkaEndToEndReal, StartsAtTheFirstRecordAtOrAfterTheTimestamp) {
  broker_->CreateTopic(in_, 2);
  broker_->CreateTopic(out_, 2);
  // Record i: partition i % 2, one second apart, within retention (a minute ago onwards).
  const std::int64_t base =
      std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count() -
      60'000;
  std::vector<testing::TestRecord> records;
  for (int i = 0; i < 20; ++i) {
    testing::TestRecord r;
    r.partition = i % 2;
    r.key = "k" + std::to_string(i);
    r.value = "v" + std::to_string(i);
    r.timestamp = base + i * 1000;
    records.push_back(r);
  }
  testing::Produce(bootstrap(), in_, records);
  dir_.Write("copy.yaml", CopyTopology("\n      start: timestamp\n      start_timestamp_ms: " +
                                       std::to_string(base + 9500)));
  auto run = Run("copy.yaml", "run", {"-t", "120"});
  ASSERT_TRUE(WaitFor(
      *run, [&] { return AllCommitted(group_, in_, 2, 10); }, seconds(60)))
      << run->Stderr();
  EXPECT_EQ(Stop(*run), 0) << run->Stderr();
  std::multiset<int> expected;
  for (int i = 10; i < 20; ++i) expected.insert(i);
  EXPECT_EQ(OutNumbers(2), expected);
}

// Group rebalancing: two spout tasks subscribe with one group (assignment: group); the second
// to join takes partitions from the first through a rebalance. Every record is copied, every
// offset committed, and both tasks were assigned partitions.
TEST_P(KafkaEndToEnd, TwoSpoutTasksShareThePartitionsThroughTheGroup) {
  constexpr int kRecords = 4000;
  constexpr int kPartitions = 4;
  broker_->CreateTopic(in_, kPartitions);
  broker_->CreateTopic(out_, kPartitions);
  testing::ProduceNumbered(bootstrap(), in_, kRecords, kPartitions);
  dir_.Write("copy.yaml", CopyTopology(R"(
      assignment: group
      properties: {session.timeout.ms: 6000, heartbeat.interval.ms: 200})",
                                       2));
  auto run = Run("copy.yaml", "run", {"-t", "120"});
  ASSERT_TRUE(WaitFor(
      *run, [&] { return AllCommitted(group_, in_, kPartitions, kRecords / kPartitions); },
      seconds(90)))
      << run->Stderr();
  EXPECT_EQ(Stop(*run), 0) << run->Stderr();
  const auto numbers = OutNumbers(kPartitions);
  std::string missing;  // "partition@offset" of records never written
  for (int i = 0; i < kRecords; ++i) {
    if (!numbers.count(i)) {
      missing += " " + std::to_string(i % kPartitions) + "@" + std::to_string(i / kPartitions);
    }
  }
  EXPECT_EQ(missing, "") << "every record at least once; missing (partition@offset):" << missing
                         << "\n"
                         << testing::ReadFile(dir_.path() / "logs" / "source.log");
  // "... task=N INFO group assigned in-1[0], in-1[2]": which tasks were given partitions.
  std::set<std::string> assigned_tasks;
  std::istringstream log(testing::ReadFile(dir_.path() / "logs" / "source.log"));
  for (std::string line; std::getline(log, line);) {
    const auto at = line.find("group assigned ");
    const auto task = line.find("task=");
    if (at == std::string::npos || task == std::string::npos ||
        line.find("no partitions", at) != std::string::npos) {
      continue;
    }
    assigned_tasks.insert(line.substr(task, line.find(' ', task) - task));
  }
  EXPECT_EQ(assigned_tasks.size(), 2u) << testing::ReadFile(dir_.path() / "logs" / "source.log");
}

// Durability: kill -9 the runtime part-way, run again with the same group: every record comes
// out at least once, and the duplicates are only records after the committed offsets, at most
// max_uncommitted_offsets per partition.
TEST_P(KafkaEndToEnd, KillNineThenRestartLosesNothing) {
  constexpr int kRecords = 50000;
  constexpr int kPartitions = 4;
  constexpr int kCap = 2000;
  broker_->CreateTopic(in_, kPartitions);
  broker_->CreateTopic(out_, kPartitions);
  testing::ProduceNumbered(bootstrap(), in_, kRecords, kPartitions);
  dir_.Write("copy.yaml", CopyTopology("\n      max_uncommitted_offsets: " + std::to_string(kCap)));

  auto first = Run("copy.yaml", "first", {"-t", "120"});
  ASSERT_TRUE(WaitFor(
      *first, [&] { return testing::CountRecords(bootstrap(), out_, kPartitions) >= 15000; },
      seconds(60)))
      << first->Stderr();
  first->Signal(SIGKILL);
  ASSERT_EQ(first->Wait(seconds(10)), 128 + SIGKILL);
  const auto committed_at_kill = testing::Committed(bootstrap(), group_, in_, kPartitions);
  std::int64_t committed_total = 0;
  for (auto c : committed_at_kill) committed_total += std::max<std::int64_t>(0, c);
  EXPECT_LT(committed_total, kRecords) << "killed part-way";

  auto second = Run("copy.yaml", "second", {"-t", "120"});
  ASSERT_TRUE(WaitFor(
      *second, [&] { return AllCommitted(group_, in_, kPartitions, kRecords / kPartitions); },
      seconds(90)))
      << second->Stderr();
  EXPECT_EQ(Stop(*second), 0) << second->Stderr();

  const auto out = testing::ReadAll(bootstrap(), out_, kPartitions);
  std::map<int, int> copies;  // record number -> times written
  for (const auto& r : out) copies[std::stoi(r.value.value().substr(1))]++;
  EXPECT_EQ(copies.size(), static_cast<std::size_t>(kRecords)) << "every record at least once";
  std::int64_t duplicates = 0;
  for (const auto& [i, n] : copies) {
    if (n < 2) continue;
    duplicates += n - 1;
    const int partition = i % kPartitions;
    const std::int64_t offset = i / kPartitions;
    EXPECT_GE(offset, committed_at_kill[partition])
        << "record " << i << " was committed before the kill, yet written again";
    EXPECT_LT(offset, std::max<std::int64_t>(0, committed_at_kill[partition]) + kCap)
        << "record " << i << " is past the un-committed window";
  }
  EXPECT_LE(duplicates, static_cast<std::int64_t>(kPartitions) * kCap);
  std::cerr << "durability: " << out.size() << " records written for " << kRecords << " inputs ("
            << duplicates << " duplicates after kill -9)\n";
}

TEST_P(KafkaEndToEndEmbedded, BrokerDownAndBackLosesNothing) {
  constexpr int kRecords = 5000;
  broker_->CreateTopic(in_, 2);
  broker_->CreateTopic(out_, 2);
  testing::ProduceNumbered(bootstrap(), in_, kRecords, 2);
  dir_.Write("copy.yaml", CopyTopology("\n      max_uncommitted_offsets: 500"));
  auto run = Run("copy.yaml", "run", {"-t", "120"});
  ASSERT_TRUE(WaitFor(
      *run, [&] { return testing::CountRecords(bootstrap(), out_, 2) >= 500; }, seconds(60)))
      << run->Stderr();
  ASSERT_FALSE(broker_->embedded()->SetBrokerDown(1));
  std::this_thread::sleep_for(seconds(3));
  ASSERT_FALSE(run->Wait(milliseconds(0))) << "still running while the broker is down";
  ASSERT_FALSE(broker_->embedded()->SetBrokerUp(1));
  ASSERT_TRUE(WaitFor(
      *run, [&] { return AllCommitted(group_, in_, 2, kRecords / 2); }, seconds(60)))
      << run->Stderr();
  EXPECT_EQ(Stop(*run), 0) << run->Stderr();
  std::set<std::string> values;
  for (const auto& r : testing::ReadAll(bootstrap(), out_, 2)) {
    values.insert(r.value.value_or(""));
  }
  EXPECT_EQ(values.size(), static_cast<std::size_t>(kRecords));
  const json source = Component(Stats("run"), "source");
  EXPECT_EQ(source["restarts"], 0) << "connection trouble is retried, not a crash";
}

TEST_P(KafkaEndToEnd, QuickstartPipelineThroughPython) {
  broker_->CreateTopic("clicks", 4);
  broker_->CreateTopic("clicks-enriched", 2);
  broker_->CreateTopic("clicks-dead", 1);
  std::vector<testing::TestRecord> clicks;
  for (int i = 0; i < 300; ++i) {
    testing::TestRecord r;
    r.key = "user" + std::to_string(i % 7);
    r.value =
        json{{"user", *r.key}, {"url", "https://example.com/a/b/" + std::to_string(i)}}.dump();
    clicks.push_back(r);
  }
  testing::TestRecord bad;
  bad.key = "user1";
  bad.value = "not json";
  clicks.push_back(bad);
  testing::Produce(bootstrap(), "clicks", clicks);

  Process quickstart(
      {kSparse, "quickstart", "demo", "--lang", "kafka", "--dir", dir_.path().string()},
      dir_.path(), "quickstart");
  ASSERT_EQ(quickstart.Wait(seconds(30)), 0) << quickstart.Stderr();
  const auto project = dir_.path() / "demo";
  // Retries of the bad click quickly, so the test does not wait for the default backoff.
  std::vector<std::string> argv{kSparse,
                                "run",
                                "clicks",
                                "-o",
                                "kafka.bootstrap.servers=" + bootstrap(),
                                "--stats-json",
                                (dir_.path() / "run.stats.json").string(),
                                "-t",
                                "120"};
  Process run(argv, project, "run");
  ASSERT_TRUE(WaitFor(
      run,
      [&] {
        return testing::CountRecords(bootstrap(), "clicks-enriched", 2) >= 300 &&
               testing::CountRecords(bootstrap(), "clicks-dead", 1) >= 1;
      },
      seconds(90)))
      << run.Stderr();
  EXPECT_EQ(Stop(run), 0) << run.Stderr();
  const auto enriched = testing::ReadAll(bootstrap(), "clicks-enriched", 2);
  ASSERT_EQ(enriched.size(), 300u);
  const json first = json::parse(enriched.front().value.value());
  EXPECT_EQ(first["domain"], "example.com");
  EXPECT_EQ(first["path_depth"], 3);
  EXPECT_EQ(enriched.front().key, first["user"]);
  const auto dead = testing::ReadAll(bootstrap(), "clicks-dead", 1);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].value, "not json");
  EXPECT_EQ(dead[0].headers.at("sparse.error"), "failed 6 time(s)");
}

TEST_P(KafkaEndToEndEmbedded, InvalidOptionsAreATopologyErrorWithFileAndLine) {
  dir_.Write("bad.yaml", R"(name: bad
spouts:
  - id: source
    builtin: kafka_spout
    options:
      topics: [in]
      start: yesterday
bolts:
  - id: sink
    builtin: kafka_bolt
    options: {topic: out}
    inputs:
      - {from: source, grouping: shuffle}
)");
  auto run = Run("bad.yaml", "run");
  ASSERT_EQ(run->Wait(seconds(30)), 2);
  EXPECT_NE(run->Stderr().find("bad.yaml:6"), std::string::npos) << run->Stderr();
  EXPECT_NE(run->Stderr().find("options.group_id: required"), std::string::npos) << run->Stderr();
}

// Issue 15: a run whose Kafka never answered ends with exit code 5 and says so, rather than 0.
TEST_P(KafkaEndToEndEmbedded, UnreachableBrokerIsReportedAndRetriedNotAHangOrACrash) {
  dir_.Write("copy.yaml", CopyTopology());
  std::vector<std::string> argv{kSparse,
                                "run",
                                (dir_.path() / "copy.yaml").string(),
                                "-o",
                                "kafka.bootstrap.servers=127.0.0.1:1",
                                "--stats-json",
                                (dir_.path() / "run.stats.json").string(),
                                "-t",
                                "4"};
  Process run(argv, dir_.path(), "run");
  ASSERT_EQ(run.Wait(seconds(40)), 5) << run.Stderr();
  EXPECT_NE(run.Stderr().find("Kafka at 127.0.0.1:1 was never reachable during the run"),
            std::string::npos)
      << run.Stderr();
  const json source = Component(Stats("run"), "source");
  EXPECT_NE(source["last_error"].get<std::string>().find("127.0.0.1:1"), std::string::npos)
      << source.dump();
  EXPECT_EQ(source["restarts"], 0);
  EXPECT_EQ(source["gauges"]["kafka.connected"], 0);
}

// Issue 15: the Kafka quickstart runs with no broker installed. Its topology says
// `kafka.bootstrap.servers: embedded`: `sparse run` starts a broker for the run, and `sparse kafka
// produce/consume`, run in the project without -b, find it (whether or not 9092 was free).
TEST_P(KafkaEndToEndEmbedded, QuickstartRunsWithItsOwnEmbeddedBroker) {
  Process quickstart(
      {kSparse, "quickstart", "demo", "--lang", "kafka", "--dir", dir_.path().string()},
      dir_.path(), "quickstart");
  ASSERT_EQ(quickstart.Wait(seconds(30)), 0) << quickstart.Stderr();
  const auto project = dir_.path() / "demo";
  Process run({kSparse, "run", "--no-ui", "-t", "150", "--stats-json",
               (dir_.path() / "run.stats.json").string()},
              project, "run");
  ASSERT_TRUE(WaitFor(
      run, [&] { return run.Stderr().find("running clicks") != std::string::npos; }, seconds(60)))
      << run.Stderr();
  EXPECT_NE(run.Stderr().find("embedded Kafka broker (in memory, for this run) at 127.0.0.1:"),
            std::string::npos)
      << run.Stderr();
  std::string lines;
  for (int i = 0; i < 200; ++i) {
    lines += "user" + std::to_string(i % 7) + "|" +
             json{{"user", "user" + std::to_string(i % 7)},
                  {"url", "https://example.com/a/" + std::to_string(i)}}
                 .dump() +
             "\n";
  }
  lines += "user1|not json\n";  // given up after its retries: a dead letter
  dir_.Write("clicks.txt", lines);
  Process produce(
      {"/bin/sh", "-c", std::string(kSparse) + " kafka produce -t clicks -k '|' < ../clicks.txt"},
      project, "produce");
  ASSERT_EQ(produce.Wait(seconds(30)), 0) << produce.Stderr();
  EXPECT_NE(produce.Stderr().find("the embedded broker of the running topology `clicks`"),
            std::string::npos)
      << produce.Stderr();
  Process consume({kSparse, "kafka", "consume", "-t", "clicks-enriched", "--from-beginning",
                   "--max", "200", "--idle", "60"},
                  project, "consume");
  ASSERT_EQ(consume.Wait(seconds(90)), 0) << consume.Stderr();
  EXPECT_NE(consume.Stderr().find("consumed 200 record(s)"), std::string::npos) << consume.Stderr();
  Process dead({kSparse, "kafka", "consume", "-t", "clicks-dead", "--from-beginning", "--max", "1",
                "--idle", "90", "--json"},
               project, "dead");
  ASSERT_EQ(dead.Wait(seconds(120)), 0) << dead.Stderr();
  const json letter = json::parse(dead.Stdout());
  EXPECT_EQ(letter["value"], "not json");
  EXPECT_EQ(letter["headers"]["sparse.error"], "failed 6 time(s)") << letter.dump();
  EXPECT_EQ(letter["headers"]["sparse.source.topic"], "clicks") << letter.dump();
  EXPECT_TRUE(letter["timestamp"].is_number_integer()) << letter.dump();
  EXPECT_GT(letter["timestamp"].get<std::int64_t>(), 1600000000000) << "ms since the epoch";
  EXPECT_EQ(Stop(run), 0) << run.Stderr();
  EXPECT_EQ(Component(Stats("run"), "publish")["gauges"]["kafka.connected"], 1);
}

// Issue 15: `sparse kafka produce/consume` against an address where no broker listens fail
// within seconds with exit code 5 (produce used to wait 30 s and consume forever).
TEST_P(KafkaEndToEndEmbedded, ClientsFailFastWhenNoBrokerAnswers) {
  dir_.Write("lines.txt", "a\nb\n");
  Process produce(
      {"/bin/sh", "-c", std::string(kSparse) + " kafka produce -b 127.0.0.1:1 -t demo < lines.txt"},
      dir_.path(), "produce");
  ASSERT_EQ(produce.Wait(seconds(30)), 5) << produce.Stderr();
  EXPECT_NE(produce.Stderr().find("cannot reach Kafka at 127.0.0.1:1"), std::string::npos)
      << produce.Stderr();
  Process consume(
      {kSparse, "kafka", "consume", "-b", "127.0.0.1:1", "-t", "demo", "-g", "g", "--idle", "0"},
      dir_.path(), "consume");
  ASSERT_EQ(consume.Wait(seconds(30)), 5) << consume.Stderr();
  EXPECT_NE(consume.Stderr().find("cannot reach Kafka at 127.0.0.1:1"), std::string::npos)
      << consume.Stderr();
}

TEST_P(KafkaEndToEndEmbedded, ServeProduceConsume) {
  Process serve({kSparse, "kafka", "serve", "--port", "0", "--topic", "demo:2"}, dir_.path(),
                "serve");
  std::string address;
  ASSERT_TRUE(WaitFor(
      serve,
      [&] {
        address = serve.Stdout();
        return !address.empty() && address.back() == '\n';
      },
      seconds(20)))
      << serve.Stderr();
  address.pop_back();
  dir_.Write("lines.txt", "a|1\nb|2\nc|3\n");
  Process produce(
      {"/bin/sh", "-c",
       std::string(kSparse) + " kafka produce -b " + address + " -t demo -k '|' < lines.txt"},
      dir_.path(), "produce");
  ASSERT_EQ(produce.Wait(seconds(30)), 0) << produce.Stderr();
  Process consume({kSparse, "kafka", "consume", "-b", address, "-t", "demo", "--from-beginning",
                   "--max", "3", "--json"},
                  dir_.path(), "consume");
  ASSERT_EQ(consume.Wait(seconds(30)), 0) << consume.Stderr();
  std::set<std::string> got;
  std::istringstream lines(consume.Stdout());
  for (std::string line; std::getline(lines, line);) {
    const json j = json::parse(line);
    got.insert(j["key"].get<std::string>() + "=" + j["value"].get<std::string>());
  }
  EXPECT_EQ(got, (std::set<std::string>{"a=1", "b=2", "c=3"}));
  serve.Signal(SIGINT);
  EXPECT_EQ(serve.Wait(seconds(10)), 0) << serve.Stderr();
}

}  // namespace
}  // namespace sparse::kafka
