#include "runtime/grouping/grouping.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace sparse::runtime {
namespace {

EmittedTuple Tuple(std::string json) {
  EmittedTuple t;
  t.values_json = std::move(json);
  EXPECT_TRUE(SplitJsonArray(t.values_json, t.spans));
  return t;
}

std::vector<int> Choose(GroupingStrategy& g, const EmittedTuple& t) {
  std::vector<int> out;
  g.Choose(t, out);
  return out;
}

TEST(SplitJsonArray, Values) {
  auto t = Tuple(R"([ "a,b" , 1, {"x":[1,2]}, [3,"]"], null, "q\"]" ])");
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t.value(0), "\"a,b\"");
  EXPECT_EQ(t.value(1), "1");
  EXPECT_EQ(t.value(2), R"({"x":[1,2]})");
  EXPECT_EQ(t.value(3), R"([3,"]"])");
  EXPECT_EQ(t.value(4), "null");
  EXPECT_EQ(t.value(5), R"("q\"]")");
  EmittedTuple empty;
  empty.values_json = "[ ]";
  EXPECT_TRUE(SplitJsonArray(empty.values_json, empty.spans));
  EXPECT_EQ(empty.size(), 0u);
  ValueSpans spans;
  EXPECT_FALSE(SplitJsonArray("{\"a\":1}", spans));
  // Escapes: a backslash before the closing quote, an escaped backslash just before it.
  auto esc = Tuple(R"(["a\\", "b\\\"c", "\\"])");
  ASSERT_EQ(esc.size(), 3u);
  EXPECT_EQ(esc.value(0), R"("a\\")");
  EXPECT_EQ(esc.value(1), R"("b\\\"c")");
  EXPECT_EQ(esc.value(2), R"("\\")");
  EXPECT_FALSE(SplitJsonArray(R"(["never closed)", spans));
  EXPECT_FALSE(SplitJsonArray(R"(["ends in a backslash\)", spans));
}

TEST(FieldsGrouping, SameValuesSameTaskAcrossInstances) {
  const std::vector<int> tasks = {3, 4, 5, 6};
  auto g1 = MakeFieldsGrouping(tasks, {1});
  auto g2 = MakeFieldsGrouping(tasks, {1});
  for (int i = 0; i < 200; ++i) {
    auto a = Tuple("[" + std::to_string(i) + ", \"word" + std::to_string(i % 17) + "\"]");
    auto b = Tuple("[" + std::to_string(i * 31) + ", \"word" + std::to_string(i % 17) + "\"]");
    auto ta = Choose(*g1, a);
    ASSERT_EQ(ta.size(), 1u);
    EXPECT_EQ(ta, Choose(*g2, b)) << "only field 1 may matter";
    EXPECT_EQ(ta, Choose(*g1, a)) << "stable";
  }
}

TEST(FieldsGrouping, KnownValueMapsToAFixedTask) {
  // The hash is our own, not std::hash: a value's task must not change between builds or runs.
  auto g = MakeFieldsGrouping({1, 2, 3, 4, 5, 6, 7, 8}, {0});
  const auto t = Choose(*g, Tuple(R"(["storm"])"));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(HashFields(Tuple(R"(["storm"])"), {0}) % 8, static_cast<std::uint64_t>(t[0] - 1));
}

TEST(FieldsGrouping, SpreadsEvenly) {
  const std::vector<int> tasks = {1, 2, 3, 4, 5};
  auto g = MakeFieldsGrouping(tasks, {0});
  std::map<int, int> counts;
  const int n = 50000;
  for (int i = 0; i < n; ++i) counts[Choose(*g, Tuple("[\"key-" + std::to_string(i) + "\"]"))[0]]++;
  ASSERT_EQ(counts.size(), tasks.size());
  for (const auto& [task, c] : counts) {
    EXPECT_NEAR(c, n / 5, n / 5 * 0.05) << "task " << task;
  }
}

TEST(FieldsGrouping, MultipleFieldsAreNotConcatenationAmbiguous) {
  EXPECT_NE(HashFields(Tuple(R"(["ab","c"])"), {0, 1}), HashFields(Tuple(R"(["a","bc"])"), {0, 1}));
}

// Issue 18: fields grouping hashed the JSON text, so "café" from one component and "caf\u00e9"
// from another (the C++ adapter writes UTF-8, Python's json escapes) went to different tasks.
// Each group below holds spellings of one value that must hash alike (the rules are in
// docs/tuples.md); different groups must not.
const std::vector<std::vector<std::string>>& SpellingsOfEqualValues() {
  static const std::vector<std::vector<std::string>> groups = {
      {"\"caf\xc3\xa9\"", R"("caf\u00e9")", R"("caf\u00E9")", R"("\u0063af\u00e9")"},
      {R"("a/b")", R"("a\/b")", R"("\u0061\/b")"},
      {R"("line\nbreak")", R"("line\u000abreak")", R"("line\u000Abreak")"},
      {R"("say \"hi\"")", R"("say \u0022hi\u0022")"},
      {"\"\xf0\x9f\x98\x80\"", R"("\ud83d\ude00")", R"("\uD83D\uDE00")"},
      {R"("back\\slash")", R"("back\u005cslash")"},
      {R"("")"},
      {R"("1")"},
      {"1", "1.0", "1e0", "1E0", "1e+0", "10e-1", "1.00", "0.1e1", "100e-2"},
      {"0", "-0", "0.0", "-0.0", "0e5", "0E-5"},
      {"-12", "-12.0", "-1.2e1", "-120e-1"},
      {"0.1", "1e-1", "0.10000000000000001", "100e-3"},
      {"1.5", "15e-1", "0.15E1"},
      {"1e20", "1E+20", "100000000000000000000", "100000000000000000000.0"},
      {"9223372036854775807", "9223372036854775807"},
      {"-9223372036854775808", "-9223372036854775808.0", "-9.223372036854775808e18"},
      {"true"},
      {"false"},
      {"null"},
      {"[]", "[ ]"},
      {"{}", "{ }"},
      {R"([1,"a"])", R"([ 1 , "\u0061" ])", R"([1.0,"a"])", "[\n1,\t\"a\"\r\n]"},
      {R"([2,1])"},
      {R"(["a","b"])"},
      {R"(["ab"])"},
      {R"([[1],2])"},
      {R"([1,[2]])"},
      {R"({"a":1,"b":[2]})", R"({"b":[2.0],"a":1})", R"({ "\u0061" : 1e0 , "b" : [ 2 ] })"},
      {R"({"a":2,"b":[1]})"},
      {R"({"a":1})"},
      {R"({"b":1})"},
      {R"({"a":{"b":1}})", R"({"a":{"b":1.0}})"},
      {R"({"b":{"a":1}})"},
      {R"([{"a":1},{"b":2}])"},
      {R"([{"b":2},{"a":1}])"},
  };
  return groups;
}

TEST(FieldsGrouping, EqualValuesHashAlikeHoweverSpelled) {
  std::set<std::uint64_t> seen;
  for (const auto& group : SpellingsOfEqualValues()) {
    const std::uint64_t h = HashFields(Tuple("[" + group[0] + "]"), {0});
    for (const auto& spelling : group) {
      EXPECT_EQ(HashFields(Tuple("[" + spelling + "]"), {0}), h)
          << spelling << " and " << group[0] << " are the same value";
      EXPECT_EQ(HashValue(spelling), HashValue(group[0])) << spelling;
    }
    EXPECT_TRUE(seen.insert(h).second) << group[0] << " hashes like a different value";
  }
}

TEST(FieldsGrouping, MixedSpellingsReachTheSameTask) {
  // As in a topology: Python's storm.py escapes, the C++ adapter and the Kafka spout do not.
  auto g = MakeFieldsGrouping({11, 12, 13, 14, 15, 16, 17}, {0, 2});
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"[\"caf\xc3\xa9\", 1, 2]", R"(["caf\u00e9", 5, 2.0])"},
           {R"(["a/b", 1, "x"])", R"(["a\/b", 7, "\u0078"])"},
       }) {
    EXPECT_EQ(Choose(*g, Tuple(a)), Choose(*g, Tuple(b))) << a << " vs " << b;
  }
  auto pk = MakePartialKeyGrouping({1, 2, 3, 4, 5, 6, 7, 8, 9}, {0});
  std::set<int> used;
  for (int i = 0; i < 100; ++i) {
    used.insert(Choose(*pk, Tuple("[\"caf\xc3\xa9\"]"))[0]);
    used.insert(Choose(*pk, Tuple(R"(["caf\u00e9"])"))[0]);
  }
  EXPECT_LE(used.size(), 2u) << "one key, two candidate tasks, however it is spelled";
}

TEST(FieldsGrouping, ValuesTheRuntimeNeverAcceptsStillHash) {
  // Groupings only see validated tuples, but the hash reads any text within bounds.
  for (std::string v : {"[1,", "{\"a\"", "\"unterminated", "tru", "[\"\\ud800\"]", "{1:2}", "-",
                        "[[[[[[", "\"\\", "1e99999"}) {
    HashValue(v);
  }
  EXPECT_EQ(HashValue(std::string(100'000, '[')), HashValue(std::string(100'000, '[')));
}

TEST(ShuffleGrouping, RoundRobinsOverEveryTask) {
  auto g = MakeShuffleGrouping({7, 8, 9}, 42);
  std::map<int, int> counts;
  for (int i = 0; i < 300; ++i) counts[Choose(*g, Tuple("[1]"))[0]]++;
  EXPECT_EQ(counts, (std::map<int, int>{{7, 100}, {8, 100}, {9, 100}}));
}

TEST(AllGrouping, EveryTask) {
  auto g = MakeAllGrouping({2, 3, 4});
  EXPECT_EQ(Choose(*g, Tuple("[1]")), (std::vector<int>{2, 3, 4}));
}

TEST(GlobalGrouping, LowestTaskId) {
  auto g = MakeGlobalGrouping({9, 4, 6});
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(Choose(*g, Tuple("[" + std::to_string(i) + "]")), std::vector<int>{4});
}

TEST(PartialKeyGrouping, HotKeySplitsOverTwoTasks) {
  auto g = MakePartialKeyGrouping({1, 2, 3, 4, 5, 6, 7, 8}, {0});
  std::set<int> used;
  for (int i = 0; i < 1000; ++i) used.insert(Choose(*g, Tuple(R"(["hot"])"))[0]);
  EXPECT_LE(used.size(), 2u);
  EXPECT_GE(used.size(), 1u);
}

TEST(MakeGrouping, DirectHasNoStrategy) {
  Subscription sub;
  sub.type = GroupingType::kDirect;
  EXPECT_EQ(MakeGrouping(sub, {1, 2}, 0), nullptr);
  sub.type = GroupingType::kNone;
  EXPECT_NE(MakeGrouping(sub, {1, 2}, 0), nullptr);
  sub.type = GroupingType::kLocalOrShuffle;
  EXPECT_NE(MakeGrouping(sub, {1, 2}, 0), nullptr);
}

}  // namespace
}  // namespace sparse::runtime
