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
