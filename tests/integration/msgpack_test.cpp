// Components speaking MessagePack (`serializer: msgpack`) among components speaking JSON, run by
// the real `sparse` binary: C++ adapter components in MessagePack feed Python ones in JSON (the
// runtime transcodes at the pipe), and a JSON-only component declared MessagePack is a clear
// start-up error. pystorm's MessagePack is tested against the real pystorm in tests/peers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cpp_mixed.hpp"
#include "harness.hpp"

namespace sparse::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::map<int, int> CountAt(const std::vector<json>& lines, const std::string& pointer) {
  std::map<int, int> out;
  for (const auto& l : lines) out[l.at(json::json_pointer(pointer)).get<int>()]++;
  return out;
}

TEST(Msgpack, CppComponentsInMsgpackFeedPythonComponentsInJson) {
  Sandbox sb;
  sb.Write(
      "topo.yaml", R"(name: msgpack-mixed
config: {test.count: 60}
spouts:
  - {id: numbers, command: )" +
                       CppMixed("spout") +
                       R"(, outputs: [n], serializer: msgpack}
bolts:
  - id: fanout
    command: [sh, -c, 'tee "$0-$$.in" | exec "$1" streams', )" +
                       (sb.dir() / "fanout").string() + ", " + SPARSE_CPP_MIXED +
                       R"(]
    serializer: msgpack
    parallelism: 2
    streams: {evens: [n], odds: [n], squares: [n, square]}
    inputs: [{from: numbers, grouping: shuffle}]
  - {id: evens, command: )" +
                       Py("RecordSink") +
                       R"(, inputs: [{from: fanout, stream: evens}]}
  - {id: odds, command: )" +
                       Py("RecordSink") +
                       R"(, inputs: [{from: fanout, stream: odds, grouping: fields, fields: [n]}]}
  - id: squares
    command: )" + Py("RecordSink") +
                       R"(
    parallelism: 2
    inputs: [{from: fanout, stream: squares, grouping: all}]
)");
  auto r = sb.Run({"run", "topo.yaml", "--stats-json", (sb.dir() / "stats.json").string(), "-o",
                   "test.out=" + sb.out_dir().string(), "--stop-when-idle", "1", "-t", "60"},
                  90s);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  std::map<int, int> expect_evens, expect_odds, each;
  for (int n = 0; n < 60; ++n) {
    (n % 2 == 0 ? expect_evens : expect_odds)[n] = 1;
    each[n] = 1;
  }
  EXPECT_EQ(CountAt(sb.Lines("evens-"), "/values/0"), expect_evens);
  EXPECT_EQ(CountAt(sb.Lines("odds-"), "/values/0"), expect_odds);
  // `all`: every square at both tasks, and the task ids the MessagePack bolt got back for its
  // emits (a MessagePack array) are exactly where the JSON bolts received them.
  std::map<int, std::set<int>> squares_at;
  for (const auto& [file, lines] : sb.LinesByFile("squares-")) {
    if (file.rfind("squares-ids-", 0) == 0) continue;
    EXPECT_EQ(CountAt(lines, "/values/0"), each) << file;
    for (const auto& l : lines) {
      const int n = l["values"][0];
      EXPECT_EQ(l["values"][1].get<int>(), n * n) << l;
      squares_at[n].insert(std::stoi(file.substr(std::string("squares-").size())));
    }
  }
  ASSERT_EQ(squares_at.size(), 60u);
  const auto replies = sb.Lines("squares-ids-");
  EXPECT_EQ(CountAt(replies, "/n"), each);
  for (const auto& rep : replies) {
    EXPECT_EQ(rep["ids"].get<std::set<int>>(), squares_at[rep["n"].get<int>()]) << rep;
  }
  // What the runtime wrote to the bolt (captured by tee) was MessagePack from the first byte.
  int captured = 0;
  for (const auto& entry : std::filesystem::directory_iterator(sb.dir())) {
    if (entry.path().extension() != ".in") continue;
    ++captured;
    std::ifstream in(entry.path(), std::ios::binary);
    const int first = in.get();
    EXPECT_TRUE(first >= 0x80 && first <= 0x8f) << entry.path() << " starts with " << first;
  }
  EXPECT_EQ(captured, 2) << "one capture per fanout task";
  const json stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "numbers")["acked"], 60) << "acks went back to the MessagePack spout";
  EXPECT_EQ(StatsOf(stats, "numbers")["failed"], 0);
  EXPECT_EQ(StatsOf(stats, "fanout")["errors"], 0);
  EXPECT_EQ(StatsOf(stats, "fanout")["restarts"], 0);
  ExpectNoLeftovers(sb);
}

// storm.py-style components speak JSON only: declared MessagePack, such a component waits for an
// `end` line forever; the handshake timeout says why.
TEST(Msgpack, JsonOnlyComponentDeclaredMsgpackIsAClearStartError) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: msgpack-wrong
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
bolts:
  - {id: split, command: [python3, raw_components.py, storm_split], serializer: msgpack,
     outputs: [word], inputs: [sentences]}
)");
  auto r = sb.Run({"run", "topo.yaml", "-t", "30", "-o", "sparse.handshake.timeout.secs=2"}, 60s);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("the topology says it speaks MessagePack (serializer: msgpack)"),
            std::string::npos)
      << r.err;
  ExpectNoLeftovers(sb);
}

}  // namespace
}  // namespace sparse::testing
