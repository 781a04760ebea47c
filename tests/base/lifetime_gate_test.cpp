#include "base/lifetime_gate.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <memory>

namespace sparse::base {
namespace {

TEST(LifetimeGate, TicketsReadClosedOnceTheGateClosesEvenAfterItIsGone) {
  std::function<void(int)> callback;
  int got = 0;
  LifetimeGate::Ticket kept = [&] {
    LifetimeGate gate;
    auto t = gate.ticket();
    EXPECT_TRUE(t);
    EXPECT_TRUE(gate.open());
    callback = gate.Guard([&](int v) { got += v; });
    callback(1);
    EXPECT_EQ(got, 1);
    gate.Close();
    gate.Close();  // idempotent
    EXPECT_FALSE(t);
    callback(10);
    EXPECT_EQ(got, 1) << "a guarded callback does nothing once closed";
    return gate.ticket();
  }();
  EXPECT_FALSE(kept) << "the gate is destroyed: its tickets stay closed";
  callback(100);
  EXPECT_EQ(got, 1);
}

TEST(LifetimeGate, ReopenStartsANewPeriodAndOldTicketsStayClosed) {
  LifetimeGate gate;
  auto first = gate.ticket();
  gate.Close();
  gate.Reopen();
  auto second = gate.ticket();
  EXPECT_FALSE(first);
  EXPECT_TRUE(second);
  EXPECT_TRUE(gate.open());
  gate.Reopen();  // while open: nothing changes
  EXPECT_TRUE(second);
}

TEST(LifetimeGate, DestroyingTheOwnerClosesTheGate) {
  auto owner = std::make_unique<LifetimeGate>();
  auto t = owner->ticket();
  owner.reset();
  EXPECT_FALSE(t);
}

}  // namespace
}  // namespace sparse::base
