#include "runtime/spout_ledger.hpp"

#include <gtest/gtest.h>

namespace sparse::runtime {
namespace {

using namespace std::chrono_literals;

SpoutLedger::Limits LedgerLimits(bool acking, std::optional<std::int64_t> max_pending) {
  SpoutLedger::Limits l;
  l.acking = acking;
  l.max_pending = max_pending;
  return l;
}

TEST(SpoutLedgerTest, AReliableEmitIsPendingUntilItsTreeIsDone) {
  TaskStats stats;
  SpoutLedger ledger(stats, LedgerLimits(true, std::nullopt));
  EXPECT_EQ(ledger.Emitted("\"m1\""), SpoutLedger::Emit::kTracked);
  EXPECT_EQ(ledger.Emitted("7"), SpoutLedger::Emit::kTracked);
  EXPECT_EQ(stats.pending, 2u);
  EXPECT_EQ(ledger.TreeDone(TreeOutcome::kAcked), SpoutLedger::Tell::kAck);
  EXPECT_EQ(stats.pending, 1u);
  EXPECT_EQ(stats.acked, 1u);
  EXPECT_EQ(ledger.TreeDone(TreeOutcome::kFailed), SpoutLedger::Tell::kFail);
  EXPECT_EQ(stats.pending, 0u);
  EXPECT_EQ(stats.failed, 1u);
}

TEST(SpoutLedgerTest, AnEmitWithoutMessageIdIsNotTracked) {
  TaskStats stats;
  SpoutLedger ledger(stats, LedgerLimits(true, 1));
  EXPECT_EQ(ledger.Emitted(""), SpoutLedger::Emit::kUntracked);
  EXPECT_EQ(stats.pending, 0u);
  EXPECT_EQ(stats.acked, 0u);
  EXPECT_FALSE(ledger.Full());
}

TEST(SpoutLedgerTest, WithoutAckingAReliableEmitIsAckedAtOnce) {
  TaskStats stats;
  SpoutLedger ledger(stats, LedgerLimits(false, 1));
  EXPECT_EQ(ledger.Emitted("\"m\""), SpoutLedger::Emit::kAckAtOnce);
  EXPECT_EQ(ledger.Emitted("\"n\""), SpoutLedger::Emit::kAckAtOnce);
  EXPECT_EQ(stats.acked, 2u);
  EXPECT_EQ(stats.pending, 0u);
  EXPECT_FALSE(ledger.Full(5));  // no cap without acking
}

TEST(SpoutLedgerTest, ATimeoutCountsAsFailedAndTimedOut) {
  TaskStats stats;
  SpoutLedger ledger(stats, LedgerLimits(true, std::nullopt));
  ledger.Emitted("1");
  EXPECT_EQ(ledger.TreeDone(TreeOutcome::kTimedOut), SpoutLedger::Tell::kFail);
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.timed_out, 1u);
  EXPECT_EQ(stats.pending, 0u);
}

TEST(SpoutLedgerTest, AnAbandonedTreeIsCountedAndNotTold) {
  TaskStats stats;
  SpoutLedger ledger(stats, LedgerLimits(true, std::nullopt));
  ledger.Emitted("1");
  EXPECT_EQ(ledger.TreeDone(TreeOutcome::kAbandoned), SpoutLedger::Tell::kNothing);
  EXPECT_EQ(stats.abandoned, 1u);
  EXPECT_EQ(stats.failed, 0u);
  EXPECT_EQ(stats.acked, 0u);
  EXPECT_EQ(stats.pending, 0u);
}

TEST(SpoutLedgerTest, PendingNeverGoesBelowZero) {
  TaskStats stats;
  SpoutLedger ledger(stats, LedgerLimits(true, std::nullopt));
  ledger.Emitted("1");
  ledger.ForgetPending();  // the process died: its trees are abandoned
  EXPECT_EQ(stats.pending, 0u);
  ledger.TreeDone(TreeOutcome::kAbandoned);
  EXPECT_EQ(stats.pending, 0u);
}

TEST(SpoutLedgerTest, MaxPendingCountsTheTuplesAlreadyAskedFor) {
  TaskStats stats;
  SpoutLedger ledger(stats, LedgerLimits(true, 3));
  EXPECT_FALSE(ledger.Full());
  ledger.Emitted("1");
  ledger.Emitted("2");
  EXPECT_FALSE(ledger.Full());
  EXPECT_TRUE(ledger.Full(1));  // one more may come from a request in flight
  ledger.Emitted("3");
  EXPECT_TRUE(ledger.Full());
  ledger.TreeDone(TreeOutcome::kAcked);
  EXPECT_FALSE(ledger.Full());
}

TEST(SpoutLedgerTest, ANonPositiveMaxPendingIsNoCap) {
  TaskStats stats;
  SpoutLedger zero(stats, LedgerLimits(true, 0));
  SpoutLedger unset(stats, LedgerLimits(true, std::nullopt));
  for (int i = 0; i < 100; ++i) zero.Emitted("1");
  EXPECT_FALSE(zero.Full(1000));
  EXPECT_FALSE(unset.Full(1000));
}

TEST(SpoutLedgerTest, AReliableTupleThatCouldNotBeEmittedCountsAsFailed) {
  TaskStats stats;
  SpoutLedger ledger(stats, LedgerLimits(true, std::nullopt));
  ledger.FailedAtEmit();
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.pending, 0u);
}

TEST(SpoutLedgerTest, ThrottledTimeIsCountedFromTheFirstCheckToTheFirstRelease) {
  TaskStats stats;
  SpoutLedger ledger(stats, LedgerLimits(true, std::nullopt));
  const auto t0 = SpoutLedger::Clock::time_point{} + 1h;
  EXPECT_EQ(ledger.Throttled(false, t0), SpoutLedger::Throttle::kUnchanged);
  EXPECT_EQ(ledger.Throttled(true, t0), SpoutLedger::Throttle::kStarted);
  EXPECT_EQ(ledger.Throttled(true, t0 + 30ms), SpoutLedger::Throttle::kUnchanged);
  EXPECT_EQ(stats.backpressure_ms, 0u);
  EXPECT_EQ(ledger.Throttled(false, t0 + 250ms), SpoutLedger::Throttle::kEnded);
  EXPECT_EQ(stats.backpressure_ms, 250u);
  EXPECT_EQ(ledger.Throttled(false, t0 + 300ms), SpoutLedger::Throttle::kUnchanged);
  EXPECT_EQ(stats.backpressure_ms, 250u);
}

TEST(SpoutLedgerTest, AForgottenThrottleIsNotCounted) {
  TaskStats stats;
  SpoutLedger ledger(stats, LedgerLimits(true, std::nullopt));
  const auto t0 = SpoutLedger::Clock::time_point{} + 1h;
  ledger.Throttled(true, t0);
  ledger.ForgetThrottle();
  EXPECT_EQ(ledger.Throttled(false, t0 + 1s), SpoutLedger::Throttle::kUnchanged);
  EXPECT_EQ(stats.backpressure_ms, 0u);
  EXPECT_EQ(ledger.Throttled(true, t0 + 2s), SpoutLedger::Throttle::kStarted);
}

}  // namespace
}  // namespace sparse::runtime
