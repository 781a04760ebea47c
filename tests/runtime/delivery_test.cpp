// Spout and bolt deliveries against a real Acker: the acking identities each delivery carries,
// and that acking them Storm's way (input id XOR the edges it created) completes the trees.
#include "runtime/delivery.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "multilang/loop_clock.hpp"

namespace sparse::runtime {
namespace {

constexpr std::uint64_t kDeliverySeed = 77;
constexpr auto kDeliveryTimeout = std::chrono::milliseconds(1000);

struct DeliveredTo {
  int task;
  InputTuple in;
};

struct FinishedTree {
  int spout_task;
  std::string message_id;
  TreeOutcome outcome;
  bool operator==(const FinishedTree&) const = default;
};

// Records deliveries and finished trees; routing is not its business.
class DeliveryRecorder : public TupleHost {
 public:
  Acker& acker() override { return acker_; }
  IdGenerator& ids() override { return ids_; }
  std::optional<std::string> Route(int, const EmittedTuple&, std::optional<std::int64_t>,
                                   std::vector<int>&) override {
    ADD_FAILURE() << "delivery does not route";
    return "not routed here";
  }
  void Deliver(int target_task, InputTuple&& tuple) override {
    if (on_deliver) on_deliver(tuple);
    delivered.push_back({target_task, std::move(tuple)});
  }

  std::vector<DeliveredTo> delivered;
  std::vector<FinishedTree> finished;
  std::function<void(const InputTuple&)> on_deliver;

 private:
  Acker acker_{kDeliveryTimeout,
               [this](int task, std::string id, TreeOutcome outcome, std::chrono::nanoseconds) {
                 finished.push_back({task, std::move(id), outcome});
               }};
  IdGenerator ids_{kDeliverySeed};
};

std::shared_ptr<const EmittedTuple> DeliveryTuple(std::string values_json) {
  auto t = std::make_shared<EmittedTuple>();
  t->values_json = std::move(values_json);
  EXPECT_TRUE(SplitJsonArray(t->values_json, t->spans));
  return t;
}

// What a task acks for an input: for each of its roots, its id XOR the edges it anchored to it.
void AckDeliveredInput(Acker& acker, const InputTuple& in, std::uint64_t ack_val) {
  for (const RootEdge& r : in.roots) acker.Update(r.root, r.id ^ ack_val);
}

TEST(DeliverFromSpout, UntrackedDeliversTheSharedTupleWithoutRoots) {
  DeliveryRecorder host;
  const auto tuple = DeliveryTuple("[\"a\", 1]");
  DeliverFromSpout(host, 9, tuple, {4, 2, 7}, "", false);
  ASSERT_EQ(host.delivered.size(), 3u);
  const int expected_order[] = {4, 2, 7};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(host.delivered[i].task, expected_order[i]);
    EXPECT_EQ(host.delivered[i].in.tuple.get(), tuple.get()) << "shared, not copied";
    EXPECT_TRUE(host.delivered[i].in.roots.empty());
    EXPECT_FALSE(host.delivered[i].in.tick);
  }
  EXPECT_EQ(host.acker().pending(), 0u);
  EXPECT_TRUE(host.finished.empty());
  EXPECT_EQ(host.ids().Next(), IdGenerator(kDeliverySeed).Next()) << "no id drawn";
}

TEST(DeliverFromSpout, TrackedRegistersTheTreeBeforeDeliveringAndCompletesOnTheLastAck) {
  // Up to 8 targets the edge ids live on the stack, beyond on the heap: both ways.
  for (std::size_t n : {1u, 2u, 8u, 9u, 20u}) {
    SCOPED_TRACE(std::to_string(n) + " targets");
    DeliveryRecorder host;
    host.on_deliver = [&](const InputTuple& in) {
      ASSERT_EQ(in.roots.size(), 1u);
      EXPECT_TRUE(host.acker().Tracking(in.roots[0].root)) << "delivered before the tree began";
    };
    std::vector<int> targets;
    for (std::size_t i = 0; i < n; ++i) targets.push_back(static_cast<int>(100 + i));
    const auto tuple = DeliveryTuple("[1]");
    DeliverFromSpout(host, 3, tuple, targets, "\"msg\"", true);
    ASSERT_EQ(host.delivered.size(), n);
    const std::uint64_t root = host.delivered[0].in.roots[0].root;
    std::set<std::uint64_t> edges;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& d = host.delivered[i];
      EXPECT_EQ(d.task, targets[i]);
      EXPECT_EQ(d.in.tuple.get(), tuple.get());
      ASSERT_EQ(d.in.roots.size(), 1u);
      EXPECT_EQ(d.in.roots[0].root, root);
      EXPECT_NE(d.in.roots[0].id, 0u);
      edges.insert(d.in.roots[0].id);
    }
    EXPECT_EQ(edges.size(), n) << "one edge per delivery";
    EXPECT_EQ(edges.count(root), 0u);
    int spout_task = 0;
    const std::string* message_id = nullptr;
    ASSERT_TRUE(host.acker().Origin(root, spout_task, message_id));
    EXPECT_EQ(spout_task, 3);
    EXPECT_EQ(*message_id, "\"msg\"");
    // Bolts ack their inputs (no children): the tree is done at the last one, not before.
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_TRUE(host.finished.empty()) << "done after " << i << " of " << n << " acks";
      AckDeliveredInput(host.acker(), host.delivered[i].in, 0);
    }
    EXPECT_EQ(host.finished, (std::vector<FinishedTree>{{3, "\"msg\"", TreeOutcome::kAcked}}));
    EXPECT_EQ(host.acker().pending(), 0u);
  }
}

TEST(DeliverFromSpout, TrackedWithNoTargetsCompletesAtOnce) {
  DeliveryRecorder host;
  DeliverFromSpout(host, 5, DeliveryTuple("[1]"), {}, "42", true);
  EXPECT_TRUE(host.delivered.empty());
  EXPECT_EQ(host.finished, (std::vector<FinishedTree>{{5, "42", TreeOutcome::kAcked}}));
  EXPECT_EQ(host.acker().pending(), 0u);
}

TEST(Delivery, StampsArrivalAndTreeStartWithTheLoopClock) {
  DeliveryRecorder host;
  std::int64_t batch_ns = 0;
  multilang::LoopClock::Clock::time_point batch_now;
  {
    // Inside a batch the loop clock stands still: every stamp is the batch's time.
    const multilang::LoopClock::Batch batch;
    batch_now = multilang::LoopClock::Now();
    batch_ns = NowNs();
    DeliverFromSpout(host, 1, DeliveryTuple("[1]"), {2}, "\"m\"", true);
    DeliverFromSpout(host, 1, DeliveryTuple("[2]"), {2}, "", false);
    std::uint64_t ack_val = 0;
    const RootEdges roots = host.delivered[0].in.roots;  // a copy: delivering grows `delivered`
    DeliverFromBolt(host, DeliveryTuple("[3]"), {3}, {{&roots, &ack_val}});
  }
  EXPECT_EQ(
      batch_ns,
      std::chrono::duration_cast<std::chrono::nanoseconds>(batch_now.time_since_epoch()).count());
  ASSERT_EQ(host.delivered.size(), 3u);
  for (const auto& d : host.delivered) EXPECT_EQ(d.in.arrived_ns, batch_ns);
  // The tree started at the batch's time: it times out exactly one timeout later.
  host.acker().Expire(batch_now + kDeliveryTimeout - std::chrono::nanoseconds(1));
  EXPECT_TRUE(host.finished.empty());
  host.acker().Expire(batch_now + kDeliveryTimeout);
  EXPECT_EQ(host.finished, (std::vector<FinishedTree>{{1, "\"m\"", TreeOutcome::kTimedOut}}));
}

TEST(DeliverFromBolt, UnanchoredOrUntrackedAnchorsMakeNoEdges) {
  DeliveryRecorder host;
  const RootEdges untracked;
  std::uint64_t ack_val = 0;
  const auto tuple = DeliveryTuple("[\"x\"]");
  DeliverFromBolt(host, tuple, {6, 8}, {});
  DeliverFromBolt(host, tuple, {6}, {{&untracked, &ack_val}, {&untracked, &ack_val}});
  ASSERT_EQ(host.delivered.size(), 3u);
  EXPECT_EQ(host.delivered[0].task, 6);
  EXPECT_EQ(host.delivered[1].task, 8);
  for (const auto& d : host.delivered) {
    EXPECT_TRUE(d.in.roots.empty());
    EXPECT_EQ(d.in.tuple.get(), tuple.get());
  }
  EXPECT_EQ(ack_val, 0u);
  EXPECT_EQ(host.ids().Next(), IdGenerator(kDeliverySeed).Next()) << "no id drawn";
}

TEST(DeliverFromBolt, AnchoredEmitsExtendTheTreeUntilEveryTupleIsAcked) {
  DeliveryRecorder host;
  DeliverFromSpout(host, 1, DeliveryTuple("[\"s\"]"), {2}, "\"m\"", true);
  const InputTuple input = host.delivered[0].in;
  const std::uint64_t root = input.roots[0].root;
  std::uint64_t ack_val = 0;
  // Task 2 emits to tasks 3 and 4, anchored to its input; nothing for an empty target list.
  DeliverFromBolt(host, DeliveryTuple("[\"c\"]"), {}, {{&input.roots, &ack_val}});
  EXPECT_EQ(ack_val, 0u);
  DeliverFromBolt(host, DeliveryTuple("[\"c\"]"), {3, 4}, {{&input.roots, &ack_val}});
  ASSERT_EQ(host.delivered.size(), 3u);
  const InputTuple& c3 = host.delivered[1].in;
  const InputTuple& c4 = host.delivered[2].in;
  ASSERT_EQ(c3.roots.size(), 1u);
  ASSERT_EQ(c4.roots.size(), 1u);
  EXPECT_EQ(c3.roots[0].root, root);
  EXPECT_EQ(c4.roots[0].root, root);
  EXPECT_NE(c3.roots[0].id, c4.roots[0].id) << "a new edge per delivery";
  EXPECT_EQ(ack_val, c3.roots[0].id ^ c4.roots[0].id) << "the anchor collects its edges";
  AckDeliveredInput(host.acker(), input, ack_val);
  AckDeliveredInput(host.acker(), c3, 0);
  EXPECT_TRUE(host.finished.empty()) << "a child is still pending";
  AckDeliveredInput(host.acker(), c4, 0);
  EXPECT_EQ(host.finished, (std::vector<FinishedTree>{{1, "\"m\"", TreeOutcome::kAcked}}));
}

TEST(DeliverFromBolt, TwoAnchorsOfOneTreeShareOneRootEntry) {
  DeliveryRecorder host;
  DeliverFromSpout(host, 1, DeliveryTuple("[1]"), {2, 3}, "\"m\"", true);
  const InputTuple a = host.delivered[0].in, b = host.delivered[1].in;
  ASSERT_EQ(a.roots[0].root, b.roots[0].root);
  std::uint64_t a_val = 0, b_val = 0;
  DeliverFromBolt(host, DeliveryTuple("[2]"), {4}, {{&a.roots, &a_val}, {&b.roots, &b_val}});
  ASSERT_EQ(host.delivered.size(), 3u);
  const InputTuple& joined = host.delivered[2].in;
  ASSERT_EQ(joined.roots.size(), 1u) << "one entry per root, not per anchor";
  EXPECT_EQ(joined.roots[0].root, a.roots[0].root);
  EXPECT_NE(a_val, 0u);
  EXPECT_NE(b_val, 0u);
  EXPECT_NE(a_val, b_val) << "one edge per anchor";
  EXPECT_EQ(joined.roots[0].id, a_val ^ b_val);
  AckDeliveredInput(host.acker(), a, a_val);
  AckDeliveredInput(host.acker(), b, b_val);
  EXPECT_TRUE(host.finished.empty());
  AckDeliveredInput(host.acker(), joined, 0);
  EXPECT_EQ(host.finished, (std::vector<FinishedTree>{{1, "\"m\"", TreeOutcome::kAcked}}));
}

TEST(DeliverFromBolt, ATupleOfTwoTreesCarriesBothToItsChildren) {
  DeliveryRecorder host;
  DeliverFromSpout(host, 1, DeliveryTuple("[1]"), {2}, "\"m1\"", true);
  DeliverFromSpout(host, 1, DeliveryTuple("[2]"), {2}, "\"m2\"", true);
  const InputTuple x = host.delivered[0].in, y = host.delivered[1].in;
  ASSERT_NE(x.roots[0].root, y.roots[0].root);
  // Task 2 joins x and y into z (for task 3); task 3 emits w anchored to z (for task 4).
  std::uint64_t x_val = 0, y_val = 0, z_val = 0;
  DeliverFromBolt(host, DeliveryTuple("[3]"), {3}, {{&x.roots, &x_val}, {&y.roots, &y_val}});
  const InputTuple z = host.delivered[2].in;
  ASSERT_EQ(z.roots.size(), 2u);
  EXPECT_EQ(z.roots[0].root, x.roots[0].root);
  EXPECT_EQ(z.roots[0].id, x_val);
  EXPECT_EQ(z.roots[1].root, y.roots[0].root);
  EXPECT_EQ(z.roots[1].id, y_val);
  DeliverFromBolt(host, DeliveryTuple("[4]"), {4}, {{&z.roots, &z_val}});
  const InputTuple w = host.delivered[3].in;
  ASSERT_EQ(w.roots.size(), 2u);
  EXPECT_EQ(w.roots[0].id, z_val) << "one edge, carried for each root";
  EXPECT_EQ(w.roots[1].id, z_val);
  AckDeliveredInput(host.acker(), x, x_val);
  AckDeliveredInput(host.acker(), y, y_val);
  AckDeliveredInput(host.acker(), z, z_val);
  EXPECT_TRUE(host.finished.empty());
  AckDeliveredInput(host.acker(), w, 0);
  ASSERT_EQ(host.finished.size(), 2u);
  std::set<std::string> done;
  for (const auto& f : host.finished) {
    EXPECT_EQ(f.outcome, TreeOutcome::kAcked);
    done.insert(f.message_id);
  }
  EXPECT_EQ(done, (std::set<std::string>{"\"m1\"", "\"m2\""}));
}

}  // namespace
}  // namespace sparse::runtime
