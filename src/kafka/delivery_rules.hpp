// What each delivery guarantee (options.guarantee) asks of the Kafka spout, as one table chosen
// when the spout opens: the spout's code asks for a behaviour ("does the spout commit the offsets
// it tracks?") where it commits or emits, instead of testing the guarantee there.
//
//                   emit          commits tracked offsets
//   at_least_once   kTracked      yes: on its schedule, before a partition goes, at close
//   at_most_once    kCommitFirst  no: each batch is committed before it is emitted
//   exactly_once    kInEpochs     no: offsets commit in the epoch's transaction
#pragma once

#include "kafka/options.hpp"

namespace sparse::kafka {

struct DeliveryRules {
  enum class Emit {
    // Anchored tuples; each record's offset is tracked until its tuple tree completes; failed
    // tuples are retried (RetryQueue), then given up (on_give_up).
    kTracked,
    // Batches committed before their tuples are emitted, unanchored (AtMostOnceBatch).
    kCommitFirst,
    // Anchored tuples emitted while the topology's epoch is open (EpochCoordinator); a failure
    // aborts the epoch, which replays.
    kInEpochs,
  };
  Emit emit = Emit::kTracked;
  // The spout commits the offsets it tracks (CommitSchedule): on its schedule, synchronously
  // before a partition goes to another owner, and a last time when it closes.
  bool commits_tracked_offsets = true;
};

DeliveryRules RulesFor(Guarantee guarantee);

}  // namespace sparse::kafka
