#include "runtime/string_pool.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "runtime/tuple.hpp"

namespace sparse::runtime {
namespace {

// Each test runs on a thread of its own, so it starts from an empty pool.
template <class F>
void OnFreshThread(F f) {
  std::thread t(f);
  t.join();
}

TEST(StringPool, AGivenBufferIsTakenAgain) {
  OnFreshThread([] {
    std::string s(200, 'x');
    const char* buffer = s.data();
    StringPool::Give(std::move(s));
    EXPECT_EQ(StringPool::KeptStrings(), 1u);
    std::string again = StringPool::Take(100);
    EXPECT_EQ(again.data(), buffer);
    EXPECT_TRUE(again.empty());
    EXPECT_GE(again.capacity(), 100u);
    EXPECT_EQ(StringPool::KeptStrings(), 0u);
    EXPECT_EQ(StringPool::KeptBytes(), 0u);
  });
}

TEST(StringPool, ATakenStringHasTheRoomAskedForEvenIfTheKeptOneIsSmaller) {
  OnFreshThread([] {
    StringPool::Give(std::string(40, 'x'));
    const std::string s = StringPool::Take(1000);
    EXPECT_GE(s.capacity(), 1000u);
    EXPECT_TRUE(s.empty());
  });
}

TEST(StringPool, ShortAndHugeStringsAreNotKept) {
  OnFreshThread([] {
    StringPool::Give(std::string("short"));  // no buffer of its own
    StringPool::Give(std::string(StringPool::kMaxCapacity + 1, 'x'));
    EXPECT_EQ(StringPool::KeptStrings(), 0u);
  });
}

TEST(StringPool, KeepsNoMoreThanItsByteBudget) {
  OnFreshThread([] {
    const std::size_t each = 1000;
    for (std::size_t i = 0; i < 2 * StringPool::kMaxBytes / each; ++i) {
      StringPool::Give(std::string(each, 'x'));
    }
    EXPECT_LE(StringPool::KeptBytes(), StringPool::kMaxBytes);
    EXPECT_GT(StringPool::KeptBytes(), StringPool::kMaxBytes - 2 * StringPool::kMaxCapacity);
  });
}

TEST(StringPool, ThePoolsArePerThread) {
  OnFreshThread([] {
    StringPool::Give(std::string(300, 'x'));
    OnFreshThread([] { EXPECT_EQ(StringPool::KeptStrings(), 0u); });
    EXPECT_EQ(StringPool::KeptStrings(), 1u);
  });
}

TEST(StringPool, ADeadTuplesValuesAreReusedByTheNextTuple) {
  OnFreshThread([] {
    const char* buffer = nullptr;
    {
      auto t = NewEmittedTuple();
      t->values_json = StringPool::Take(128);
      t->values_json = "[\"a value long enough to need a buffer of its own\"]";
      buffer = t->values_json.data();
    }
    EXPECT_EQ(StringPool::KeptStrings(), 1u);
    EXPECT_EQ(StringPool::Take(64).data(), buffer);
  });
}

}  // namespace
}  // namespace sparse::runtime
