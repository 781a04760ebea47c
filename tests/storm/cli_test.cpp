// The real `sparse` binary against the fake Nimbus: submit (with every Nimbus refusal, the
// leader redirection, --force, --inactive, --dry-run), list, kill, activate, deactivate,
// rebalance, jar, environments, and the refusal of built-in components.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "expected.hpp"
#include "fake_nimbus.hpp"
#include "process.hpp"
#include "storm/thrift_json.hpp"

namespace sparse::storm {
namespace {

namespace fs = std::filesystem;
using testing::FakeNimbus;
using testing::ReadFile;
using testing::RunResult;
using testing::RunSparse;
using testing::Show;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A copy of the `full` fixture project whose sparse.yaml has environments pointing at `port`,
// and an incompressible file big enough to need three upload chunks.
class Project {
 public:
  explicit Project(int port) {
    root_ = dir_.path() / "full";
    testing::CopyFixture("full", root_);
    std::ofstream(root_ / "sparse.yaml", std::ios::app)
        << "environments:\n"
        << "  test:\n"
        << "    nimbus: 127.0.0.1:" << port << "\n"
        << "    workers: 3\n"
        << "    options:\n"
        << "      topology.message.timeout.secs: 60\n"
        << "      x.float: 2.0\n"
        << "  seeds:\n"
        << "    nimbus: [127.0.0.1:" << testing::UnusedPort() << ", 127.0.0.1:" << port << "]\n";
    std::string data(700000, '\0');
    std::uint32_t x = 12345;
    for (auto& c : data) {
      x = x * 1103515245u + 12345u;
      c = static_cast<char>(x >> 24);
    }
    testing::WriteFile(root_ / "src/data.bin", data);
  }
  const fs::path& root() const { return root_; }
  RunResult Sparse(const std::vector<std::string>& args) const { return RunSparse(args, root_); }
  std::string Jar() const { return ReadFile(root_ / "_build/full.jar"); }

 private:
  testing::TempDir dir_;
  fs::path root_;
};

const nlohmann::json kExpectedConf = {{"topology.message.timeout.secs", 60},
                                      {"topology.max.spout.pending", 7},
                                      {"topology.workers", 3},
                                      {"app.ratio", 1},
                                      {"x.float", 2}};

TEST(Submit, SendsTheJarTheTopologyAndItsConfig) {
  FakeNimbus nimbus;
  Project p(nimbus.port());
  const auto r = p.Sparse({"submit", "-e", "test", "-o", "topology.max.spout.pending=7"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);

  std::vector<std::string> expected_calls = {"getLeader", "getClusterInfo", "isTopologyNameAllowed",
                                             "beginFileUpload"};
  const auto uploads = nimbus.uploads();
  ASSERT_EQ(uploads.size(), 1u);
  for (std::size_t i = 0; i < uploads[0].chunk_sizes.size(); ++i) {
    expected_calls.push_back("uploadChunk");
  }
  for (const char* c : {"finishFileUpload", "submitTopologyWithOpts", "getClusterInfo"}) {
    expected_calls.push_back(c);
  }
  EXPECT_EQ(nimbus.calls(), expected_calls);

  // The uploaded bytes are the jar, in chunks of Storm's size.
  EXPECT_TRUE(uploads[0].finished);
  EXPECT_EQ(uploads[0].bytes, p.Jar());
  ASSERT_GE(uploads[0].chunk_sizes.size(), 3u);
  for (std::size_t i = 0; i + 1 < uploads[0].chunk_sizes.size(); ++i) {
    EXPECT_EQ(uploads[0].chunk_sizes[i], 307200u);
  }
  EXPECT_LE(uploads[0].chunk_sizes.back(), 307200u);

  const auto submissions = nimbus.submissions();
  ASSERT_EQ(submissions.size(), 1u);
  const auto& s = submissions[0];
  EXPECT_EQ(s.name, "full");
  EXPECT_EQ(s.location, uploads[0].location);
  EXPECT_EQ(s.options.initial_status, gen::TopologyInitialStatus::ACTIVE);
  EXPECT_EQ(nlohmann::json::parse(s.json_conf), kExpectedConf);
  EXPECT_EQ(StormTopologyToJson(s.topology), testing::ExpectedFullTopology(7));

  // The new topology's id on stdout; partial_key's conversion is announced.
  EXPECT_EQ(r.out, "full-1-1700000000\n");
  EXPECT_TRUE(Contains(r.err, "warning")) << r.err;
  EXPECT_TRUE(Contains(r.err, "partial_key")) << r.err;
}

TEST(Submit, TheJarIsTheOneSparseJarWrites) {
  FakeNimbus nimbus;
  Project p(nimbus.port());
  const auto jar = p.Sparse({"jar", "-o", "standalone.jar"});
  ASSERT_EQ(jar.exit_code, 0) << Show(jar);
  EXPECT_EQ(jar.out, (p.root() / "standalone.jar").string() + "\n");
  const auto r = p.Sparse({"submit", "--nimbus", nimbus.address().ToString(), "-n", "renamed"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_EQ(nimbus.uploads().at(0).bytes, ReadFile(p.root() / "standalone.jar"));
  EXPECT_EQ(nimbus.submissions().at(0).name, "renamed");
}

TEST(Submit, InactiveAndSeedsFromTheEnvironment) {
  FakeNimbus nimbus;
  Project p(nimbus.port());
  // The `seeds` environment lists an unreachable Nimbus first.
  const auto r = p.Sparse({"submit", "-e", "seeds", "--inactive"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  ASSERT_EQ(nimbus.submissions().size(), 1u);
  EXPECT_EQ(nimbus.submissions()[0].options.initial_status, gen::TopologyInitialStatus::INACTIVE);
  EXPECT_TRUE(Contains(r.err, "sparse activate full")) << r.err;
}

struct RefusalCase {
  testing::Refusal how;
  int exit_code;
  const char* says;
};

TEST(Submit, EachNimbusRefusalHasItsExitCodeAndMessage) {
  for (const RefusalCase& c : {RefusalCase{testing::Refusal::kAlreadyAlive, 5, "already alive"},
                               RefusalCase{testing::Refusal::kInvalidTopology, 2, "invalid"},
                               RefusalCase{testing::Refusal::kAuthorization, 5, "not authorized"},
                               RefusalCase{testing::Refusal::kNotLeader, 5, "not the leader"}}) {
    FakeNimbus nimbus;
    nimbus.RefuseSubmit(c.how, "Nimbus's own words (not a leader for the last case)");
    Project p(nimbus.port());
    const auto r = p.Sparse({"submit", "-e", "test"});
    EXPECT_EQ(r.exit_code, c.exit_code) << Show(r);
    EXPECT_TRUE(Contains(r.err, c.says)) << Show(r);
    EXPECT_TRUE(Contains(r.err, "Nimbus's own words")) << Show(r);
    EXPECT_TRUE(Contains(r.err, nimbus.address().ToString())) << Show(r);
    EXPECT_EQ(r.out, "");
  }
}

TEST(Submit, AuthorizationRefusedBeforeUpload) {
  FakeNimbus nimbus;
  nimbus.RefuseClusterInfo("user bob may not getClusterInfo");
  Project p(nimbus.port());
  const auto r = p.Sparse({"submit", "-e", "test"});
  EXPECT_EQ(r.exit_code, 5) << Show(r);
  EXPECT_TRUE(Contains(r.err, "not authorized: user bob may not getClusterInfo")) << Show(r);
  EXPECT_TRUE(nimbus.uploads().empty());
}

TEST(Submit, ARunningTopologyOfTheSameNameIsNotReplacedWithoutForce) {
  FakeNimbus nimbus;
  nimbus.AddTopology("full");
  Project p(nimbus.port());
  const auto r = p.Sparse({"submit", "-e", "test"});
  EXPECT_EQ(r.exit_code, 5) << Show(r);
  EXPECT_TRUE(Contains(r.err, "already alive")) << r.err;
  EXPECT_TRUE(Contains(r.err, "--force")) << r.err;
  EXPECT_TRUE(nimbus.uploads().empty());
  EXPECT_TRUE(nimbus.kills().empty());
}

TEST(Submit, ForceKillsWaitsUntilGoneThenSubmits) {
  FakeNimbus nimbus;
  nimbus.AddTopology("full");
  nimbus.SetKillLinger(2);  // listed (KILLED) by two more getClusterInfo replies
  Project p(nimbus.port());
  const auto r = p.Sparse({"submit", "-e", "test", "--force", "--wait", "0"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  const auto kills = nimbus.kills();
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].first, "full");
  EXPECT_TRUE(kills[0].second.__isset.wait_secs);
  EXPECT_EQ(kills[0].second.wait_secs, 0);
  const auto calls = nimbus.calls();
  ASSERT_GE(calls.size(), 7u);
  const std::vector<std::string> start(calls.begin(), calls.begin() + 7);
  // Sees it; kills it; it is still listed twice (KILLED); gone; then the usual submit.
  EXPECT_EQ(start, (std::vector<std::string>{"getLeader", "getClusterInfo", "killTopologyWithOpts",
                                             "getClusterInfo", "getClusterInfo", "getClusterInfo",
                                             "isTopologyNameAllowed"}));
  ASSERT_EQ(nimbus.submissions().size(), 1u);
  EXPECT_EQ(r.out, "full-2-1700000000\n");
}

TEST(Submit, RedirectsToTheLeader) {
  FakeNimbus leader;
  FakeNimbus follower;
  follower.SetLeader("127.0.0.1", leader.port());
  Project p(follower.port());
  const auto r = p.Sparse({"submit", "-e", "test"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_EQ(follower.calls(), (std::vector<std::string>{"getLeader"}));
  EXPECT_EQ(leader.submissions().size(), 1u);
  EXPECT_EQ(leader.uploads().at(0).bytes, p.Jar());
  EXPECT_TRUE(Contains(r.err, "using the leader at " + leader.address().ToString())) << r.err;
}

TEST(Submit, LeaderThatCannotBeReachedIsANotLeaderError) {
  FakeNimbus follower;
  const int gone = testing::UnusedPort();
  follower.SetLeader("127.0.0.1", gone);
  follower.SetNimbusCount(3);
  Project p(follower.port());
  const auto r = p.Sparse({"submit", "-e", "test"});
  EXPECT_EQ(r.exit_code, 5) << Show(r);
  EXPECT_TRUE(Contains(r.err, "is not the leader")) << r.err;
  EXPECT_TRUE(Contains(r.err, "127.0.0.1:" + std::to_string(gone))) << r.err;
}

TEST(Submit, UnreachableNimbusNamesTheAddressTried) {
  const int port = testing::UnusedPort();
  Project p(port);
  const auto r = p.Sparse({"submit", "-e", "test"});
  EXPECT_EQ(r.exit_code, 5) << Show(r);
  EXPECT_TRUE(Contains(r.err, "cannot reach Nimbus at 127.0.0.1:" + std::to_string(port))) << r.err;
  // No noise from the Thrift library itself.
  EXPECT_FALSE(Contains(r.err, "TSocket")) << r.err;
}

TEST(Submit, SaslSecuredClusterIsSaidPlainly) {
  for (bool reply : {true, false}) {
    testing::FakeSaslServer sasl(reply);
    Project p(sasl.port());
    const auto r = p.Sparse({"submit", "-e", "test"});
    EXPECT_EQ(r.exit_code, 5) << Show(r);
    EXPECT_TRUE(Contains(r.err, "SASL")) << r.err;
    EXPECT_TRUE(Contains(r.err, "not support")) << r.err;
  }
}

TEST(Submit, DryRunPrintsWhatWouldBeSentAndSendsNothing) {
  FakeNimbus nimbus;
  Project p(nimbus.port());
  const auto r =
      p.Sparse({"submit", "-e", "test", "--dry-run", "-o", "topology.max.spout.pending=7"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_TRUE(nimbus.calls().empty());
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["name"], "full");
  EXPECT_EQ(out["nimbus"], nlohmann::json::array({nimbus.address().ToString()}));
  EXPECT_EQ(out["initial_status"], "ACTIVE");
  EXPECT_EQ(out["jsonConf"], kExpectedConf);
  EXPECT_EQ(out["topology"], testing::ExpectedFullTopology(7));
  EXPECT_EQ(out["jar"], (p.root() / "_build/full.jar").string());
  EXPECT_EQ(out["jar_bytes"], p.Jar().size());
}

TEST(Submit, UnknownEnvironmentListsTheKnownOnes) {
  Project p(1);
  const auto r = p.Sparse({"submit", "-e", "prod"});
  EXPECT_EQ(r.exit_code, 1) << Show(r);
  EXPECT_TRUE(Contains(r.err, "no environment `prod`")) << r.err;
  EXPECT_TRUE(Contains(r.err, "known: test, seeds")) << r.err;
}

TEST(Submit, MalformedEnvironmentNamesFileAndLine) {
  testing::TempDir dir;
  testing::CopyFixture("full", dir.path() / "full");
  std::ofstream(dir.path() / "full/sparse.yaml", std::ios::app)
      << "environments:\n  bad:\n    workers: many\n";
  const auto r = RunSparse({"submit", "-e", "bad", "--dry-run"}, dir.path() / "full");
  EXPECT_EQ(r.exit_code, 2) << Show(r);
  EXPECT_TRUE(Contains(r.err, "sparse.yaml:8: `workers`")) << r.err;
}

TEST(Submit, UnparsableProjectConfigIsAnInvalidConfiguration) {
  testing::TempDir dir;
  testing::CopyFixture("full", dir.path() / "full");
  std::ofstream(dir.path() / "full/sparse.yaml", std::ios::app) << "environments: [\n";
  const auto r = RunSparse({"submit", "--dry-run"}, dir.path() / "full");
  EXPECT_EQ(r.exit_code, 2) << Show(r);
  EXPECT_TRUE(Contains(r.err, "sparse.yaml:")) << r.err;
}

TEST(Submit, EachOptionTakesOneValueSoTheTopologyMayFollow) {
  Project p(1);
  const auto r = p.Sparse({"submit", "-o", "a=1", "full", "-o", "b=x", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  const auto conf = nlohmann::json::parse(r.out)["jsonConf"];
  EXPECT_EQ(conf["a"], 1);
  EXPECT_EQ(conf["b"], "x");
}

TEST(Submit, InvalidNameIsRefusedLocally) {
  Project p(1);
  const auto r = p.Sparse({"submit", "-n", "a.b", "--dry-run"});
  EXPECT_EQ(r.exit_code, 2) << Show(r);
  EXPECT_TRUE(Contains(r.err, "`a.b`")) << r.err;
}

TEST(BuiltIns, JarAndSubmitRefuseThemNamingTheComponent) {
  testing::TempDir dir;
  testing::CopyFixture("builtin", dir.path() / "b");
  for (const auto& args : {std::vector<std::string>{"jar", "topology.yaml"},
                           std::vector<std::string>{"submit", "topology.yaml", "--dry-run"}}) {
    const auto r = RunSparse(args, dir.path() / "b");
    EXPECT_EQ(r.exit_code, 2) << Show(r);
    EXPECT_TRUE(Contains(r.err, "topology.yaml:5: component `words`")) << r.err;
    EXPECT_TRUE(Contains(r.err, "test_word_spout")) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir.path() / "b/_build"));
}

// The Kafka built-ins: the refusal says what Storm offers instead (the real-cluster test submits
// the same fixture to a real Nimbus).
TEST(BuiltIns, KafkaOnesAreRefusedNamingStormsKafkaClasses) {
  testing::TempDir dir;
  testing::CopyFixture("kafka", dir.path() / "k");
  const auto r = RunSparse(
      {"submit", "topology.yaml", "--dry-run", "-o", "kafka.bootstrap.servers=127.0.0.1:9"},
      dir.path() / "k");
  EXPECT_EQ(r.exit_code, 2) << Show(r);
  EXPECT_TRUE(Contains(r.err,
                       "topology.yaml:8: component `events` is sparse's built-in "
                       "`kafka_spout`"))
      << r.err;
  EXPECT_TRUE(Contains(r.err, "org.apache.storm.kafka.spout.KafkaSpout")) << r.err;
  EXPECT_TRUE(Contains(r.err, "component `publish` is sparse's built-in `kafka_bolt`")) << r.err;
  EXPECT_TRUE(Contains(r.err, "org.apache.storm.kafka.bolt.KafkaBolt")) << r.err;
}

// `tail` reads a local run; asked about a cluster topology it says where Storm keeps the logs
// instead of looking for a local run.
TEST(Tail, ForAClusterTopologySaysWhereStormKeepsTheLogs) {
  testing::TempDir dir;
  for (const auto& target : {std::vector<std::string>{"-e", "prod"},
                             std::vector<std::string>{"--nimbus", "127.0.0.1:6627"}}) {
    std::vector<std::string> tail = {"tail", "count"};
    tail.insert(tail.end(), target.begin(), target.end());
    const auto t = RunSparse(tail, dir.path());
    EXPECT_EQ(t.exit_code, 1) << Show(t);
    EXPECT_TRUE(Contains(t.err, "`sparse tail` reads a topology that `sparse run` runs")) << t.err;
    EXPECT_TRUE(Contains(t.err, "workers-artifacts/<topology id>/<port>/worker.log")) << t.err;
    EXPECT_FALSE(Contains(t.err, "no logs in")) << t.err;
  }
}

// `stats` of a cluster topology asks the leader for the topology's page in Storm's window, and
// says clearly when the topology or the window is not there. (Its numbers come from a real
// cluster in real/cluster_test.cpp.)
TEST(Stats, ForAClusterTopologyReadsItsPageFromNimbus) {
  FakeNimbus nimbus;
  nimbus.AddTopology("wordcount");
  testing::TempDir dir;
  const std::string address = nimbus.address().ToString();
  const auto ok = RunSparse({"stats", "-n", "wordcount", "--nimbus", address}, dir.path());
  EXPECT_EQ(ok.exit_code, 0) << Show(ok);
  EXPECT_TRUE(Contains(ok.err, "topology wordcount (wordcount-1-1700000000): ACTIVE")) << ok.err;
  const auto calls = nimbus.calls();
  EXPECT_NE(std::find(calls.begin(), calls.end(), "getTopologyPageInfo :all-time"), calls.end());

  const auto ten = RunSparse(
      {"stats", "-n", "wordcount", "--nimbus", address, "--window", "600", "--json"}, dir.path());
  EXPECT_EQ(ten.exit_code, 0) << Show(ten);
  const auto json = nlohmann::json::parse(ten.out, nullptr, false);
  ASSERT_TRUE(json.is_object()) << Show(ten);
  EXPECT_EQ(json["topology"], "wordcount");
  EXPECT_EQ(json["status"], "ACTIVE");

  const auto none = RunSparse({"stats", "-n", "nope", "--nimbus", address}, dir.path());
  EXPECT_EQ(none.exit_code, 1) << Show(none);
  EXPECT_TRUE(
      Contains(none.err, "no topology `nope` on Nimbus " + address + "; it runs: wordcount"))
      << none.err;

  const auto window =
      RunSparse({"stats", "-n", "wordcount", "--nimbus", address, "--window", "60"}, dir.path());
  EXPECT_EQ(window.exit_code, 1) << Show(window);
  EXPECT_TRUE(Contains(window.err, "600, 10800 or 86400 seconds, or :all-time")) << window.err;

  const auto unnamed = RunSparse({"stats", "--nimbus", address}, dir.path());
  EXPECT_EQ(unnamed.exit_code, 1) << Show(unnamed);
  EXPECT_TRUE(Contains(unnamed.err, "name the topology to show (not inside a project)"))
      << unnamed.err;
}

TEST(List, TableAndJson) {
  FakeNimbus nimbus;
  nimbus.AddTopology("wordcount");
  nimbus.AddTopology("alerts", "INACTIVE");
  testing::TempDir dir;
  const auto table = RunSparse({"list", "--nimbus", nimbus.address().ToString()}, dir.path());
  ASSERT_EQ(table.exit_code, 0) << Show(table);
  EXPECT_EQ(table.out,
            "NAME       STATUS    WORKERS  EXECUTORS  TASKS  UPTIME  ID\n"
            "alerts     INACTIVE  2        5          7      1h2m    alerts-2-1700000000\n"
            "wordcount  ACTIVE    2        5          7      1h2m    wordcount-1-1700000000\n");
  const auto json =
      RunSparse({"list", "--nimbus", nimbus.address().ToString(), "--json"}, dir.path());
  ASSERT_EQ(json.exit_code, 0) << Show(json);
  const auto parsed = nlohmann::json::parse(json.out);
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[1], (nlohmann::json{{"id", "wordcount-1-1700000000"},
                                       {"name", "wordcount"},
                                       {"status", "ACTIVE"},
                                       {"workers", 2},
                                       {"executors", 5},
                                       {"tasks", 7},
                                       {"uptime_secs", 3725},
                                       {"owner", "storm"}}));
}

TEST(List, AuthorizationRefused) {
  FakeNimbus nimbus;
  nimbus.RefuseClusterInfo("no");
  testing::TempDir dir;
  const auto r = RunSparse({"list", "--nimbus", nimbus.address().ToString()}, dir.path());
  EXPECT_EQ(r.exit_code, 5) << Show(r);
  EXPECT_TRUE(Contains(r.err, "not authorized")) << r.err;
}

// streamparse's worker_uptime and slot_usage: the fake's two topologies each have a worker on
// worker-a (up 1h2m5s) and one on worker-b (up 61 s), one slot of four on each host.
TEST(WorkerUptime, EveryWorkerOfEveryTopology) {
  FakeNimbus nimbus;
  nimbus.AddTopology("wordcount");
  nimbus.AddTopology("alerts", "INACTIVE");
  testing::TempDir dir;
  const auto r = RunSparse({"worker_uptime", "--nimbus", nimbus.address().ToString()}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_EQ(r.out,
            "TOPOLOGY   WORKER         UPTIME  EXECUTORS  COMPONENTS\n"
            "alerts     worker-a:6701  1h2m    2          count,words\n"
            "alerts     worker-b:6701  1m1s    2          __acker,count\n"
            "wordcount  worker-a:6700  1h2m    2          count,words\n"
            "wordcount  worker-b:6700  1m1s    2          __acker,count\n");
  const auto one = RunSparse(
      {"worker_uptime", "-n", "wordcount", "--json", "--nimbus", nimbus.address().ToString()},
      dir.path());
  ASSERT_EQ(one.exit_code, 0) << Show(one);
  const auto parsed = nlohmann::json::parse(one.out);
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0], (nlohmann::json{{"topology", "wordcount"},
                                       {"host", "worker-a"},
                                       {"port", 6700},
                                       {"uptime_secs", 3725},
                                       {"executors", 2},
                                       {"components", {"count", "words"}}}));
  const auto missing = RunSparse(
      {"worker_uptime", "-n", "nope", "--nimbus", nimbus.address().ToString()}, dir.path());
  EXPECT_EQ(missing.exit_code, 1) << Show(missing);
  EXPECT_TRUE(Contains(missing.err, "no topology named `nope`")) << missing.err;
}

TEST(SlotUsage, SupervisorsAndTheTopologiesOnThem) {
  FakeNimbus nimbus;
  nimbus.AddTopology("wordcount");
  nimbus.AddTopology("alerts");
  testing::TempDir dir;
  const auto r = RunSparse({"slot_usage", "--nimbus", nimbus.address().ToString()}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_EQ(r.out,
            "HOST      SLOTS  USED  FREE  TOPOLOGIES\n"
            "worker-a  4      2     2     alerts(1),wordcount(1)\n"
            "worker-b  4      2     2     alerts(1),wordcount(1)\n"
            "TOTAL     8      4     4     \n");
  const auto json =
      RunSparse({"slot_usage", "--json", "--nimbus", nimbus.address().ToString()}, dir.path());
  ASSERT_EQ(json.exit_code, 0) << Show(json);
  EXPECT_EQ(nlohmann::json::parse(json.out)[1],
            (nlohmann::json{{"host", "worker-b"},
                            {"slots", 4},
                            {"used", 2},
                            {"free", 2},
                            {"topologies", {{"alerts", 1}, {"wordcount", 1}}}}));
  const auto calls = nimbus.calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "getTopologyInfo"), 4) << Show(r);
}

TEST(SlotUsage, NimbusRefusalIsExitFive) {
  FakeNimbus nimbus;
  nimbus.RefuseClusterInfo("no");
  testing::TempDir dir;
  const auto r = RunSparse({"slot_usage", "--nimbus", nimbus.address().ToString()}, dir.path());
  EXPECT_EQ(r.exit_code, 5) << Show(r);
  EXPECT_TRUE(Contains(r.err, "not authorized")) << r.err;
}

TEST(Kill, SendsNameAndWait) {
  FakeNimbus nimbus;
  nimbus.AddTopology("wordcount");
  testing::TempDir dir;
  const auto r = RunSparse(
      {"kill", "wordcount", "--wait", "5", "--nimbus", nimbus.address().ToString()}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  const auto kills = nimbus.kills();
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].first, "wordcount");
  EXPECT_EQ(kills[0].second.wait_secs, 5);
  // Without --wait, Storm's default applies: the field is not sent.
  const auto r2 =
      RunSparse({"kill", "wordcount", "--nimbus", nimbus.address().ToString()}, dir.path());
  EXPECT_EQ(r2.exit_code, 0) << Show(r2);
  EXPECT_FALSE(nimbus.kills().at(1).second.__isset.wait_secs);
  // `-w`, as Storm's own CLI spells it (`storm kill NAME -w 0`).
  const auto r3 = RunSparse(
      {"kill", "wordcount", "-w", "0", "--nimbus", nimbus.address().ToString()}, dir.path());
  EXPECT_EQ(r3.exit_code, 0) << Show(r3);
  const auto third = nimbus.kills().at(2).second;
  EXPECT_TRUE(third.__isset.wait_secs);
  EXPECT_EQ(third.wait_secs, 0);
}

TEST(Kill, UnknownTopologyIsNotAlive) {
  FakeNimbus nimbus;
  testing::TempDir dir;
  const auto r = RunSparse({"kill", "ghost", "--nimbus", nimbus.address().ToString()}, dir.path());
  EXPECT_EQ(r.exit_code, 5) << Show(r);
  EXPECT_TRUE(Contains(r.err, "not alive: ghost is not alive")) << r.err;
}

TEST(ActivateDeactivate, SendTheName) {
  FakeNimbus nimbus;
  nimbus.AddTopology("wordcount");
  testing::TempDir dir;
  const std::string at = nimbus.address().ToString();
  ASSERT_EQ(RunSparse({"deactivate", "wordcount", "--nimbus", at}, dir.path()).exit_code, 0);
  ASSERT_EQ(RunSparse({"activate", "wordcount", "--nimbus", at}, dir.path()).exit_code, 0);
  EXPECT_EQ(nimbus.deactivated(), std::vector<std::string>{"wordcount"});
  EXPECT_EQ(nimbus.activated(), std::vector<std::string>{"wordcount"});
  EXPECT_EQ(nimbus.calls(),
            (std::vector<std::string>{"getLeader", "deactivate", "getLeader", "activate"}));
}

TEST(Rebalance, SendsWorkersExecutorsAndWait) {
  FakeNimbus nimbus;
  nimbus.AddTopology("wordcount");
  testing::TempDir dir;
  const auto r = RunSparse({"rebalance", "wordcount", "--nimbus", nimbus.address().ToString(),
                            "--workers", "3", "-e", "count=4", "-e", "words=2", "--wait", "7"},
                           dir.path());
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  const auto rebalances = nimbus.rebalances();
  ASSERT_EQ(rebalances.size(), 1u);
  EXPECT_EQ(rebalances[0].first, "wordcount");
  const auto& o = rebalances[0].second;
  EXPECT_EQ(o.wait_secs, 7);
  EXPECT_EQ(o.num_workers, 3);
  EXPECT_EQ(o.num_executors, (std::map<std::string, std::int32_t>{{"count", 4}, {"words", 2}}));
}

TEST(Rebalance, TakesStormsShortFlags) {
  // `storm rebalance NAME -w 7 -n 3 -e count=4`, as Storm's own CLI spells it.
  FakeNimbus nimbus;
  nimbus.AddTopology("wordcount");
  testing::TempDir dir;
  const auto r = RunSparse({"rebalance", "wordcount", "--nimbus", nimbus.address().ToString(), "-w",
                            "7", "-n", "3", "-e", "count=4"},
                           dir.path());
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  const auto rebalances = nimbus.rebalances();
  ASSERT_EQ(rebalances.size(), 1u);
  const auto& o = rebalances[0].second;
  EXPECT_EQ(o.wait_secs, 7);
  EXPECT_EQ(o.num_workers, 3);
  EXPECT_EQ(o.num_executors, (std::map<std::string, std::int32_t>{{"count", 4}}));
}

TEST(Rebalance, MalformedExecutorIsAUsageError) {
  FakeNimbus nimbus;
  testing::TempDir dir;
  const auto r =
      RunSparse({"rebalance", "wordcount", "--nimbus", nimbus.address().ToString(), "-e", "count"},
                dir.path());
  EXPECT_EQ(r.exit_code, 1) << Show(r);
  EXPECT_TRUE(Contains(r.err, "COMPONENT=N")) << r.err;
  EXPECT_TRUE(nimbus.calls().empty());
}

}  // namespace
}  // namespace sparse::storm
