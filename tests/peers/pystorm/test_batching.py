"""pystorm's BatchingBolt (acks a whole batch when a tick comes) and TicklessBatchingBolt (a
timer thread) under sparse's DEFAULT topology.shellbolt.max.pending (100).

Storm's cap bounds tuples waiting to be written to the child, not tuples written and un-acked.
A runtime that capped un-acked tuples starves a BatchingBolt: it holds 100 tuples it acks only on
a tick, the tick waits in the queue behind tuples the cap keeps out, and the spout's tuples time
out (checked: against such a build this test fails, nothing batched, thousands timed out).
"""
import unittest

from harness import SparseTestCase, component, inputs


class Batching(SparseTestCase):
    COUNT = 5000

    def check_batches(self, run, spout, sink):
        batches = self.lines(sink)
        numbers = [n for t in batches for n in t["values"][1]]
        self.assert_each_once(numbers, self.COUNT, sink)
        for t in batches:
            key, ns = t["values"]
            self.assertTrue(ns, "an empty batch")
            self.assertEqual({n % 4 for n in ns}, {key}, "a batch holds one group_key")
        acked, failed = self.spout_events(spout)
        self.assert_each_once(acked, self.COUNT, "acks %s got" % spout)
        self.assertEqual(failed, [], spout)
        s = run.component(spout)
        self.assertEqual((s["acked"], s["failed"], s["timed_out"]), (self.COUNT, 0, 0), spout)

    def test_batching_and_tickless_batching_bolts(self):
        """5,000 numbers each through a tick-driven BatchingBolt (ticks every second) and a
        TicklessBatchingBolt, topology.shellbolt.max.pending left at its default: every number in
        exactly one batch of its group_key, every spout tuple acked once, none failed or timed
        out, no restart."""
        self.write_topology(
            "batching",
            spouts=[component("ticked", "NumberSpout", outputs=["n"]),
                    component("timed", "NumberSpout", outputs=["n"])],
            bolts=[component("batcher", "Batcher", outputs=["key", "numbers"],
                             inputs=inputs("ticked"),
                             config={"topology.tick.tuple.freq.secs": 1}),
                   component("tickless", "TicklessBatcher", outputs=["key", "numbers"],
                             inputs=inputs("timed")),
                   component("batches", "Sink", inputs=inputs("batcher")),
                   component("tickless_batches", "Sink", inputs=inputs("tickless"))])
        # No max.spout.pending: the spouts emit as fast as they can, and every tuple waits in a
        # batch for a tick (up to two seconds, ticks_between_batches = 1) before it is acked.
        run = self.run_topology(limit_s=60, idle_s=3, options={"test.count": self.COUNT,
                                                               "test.burst": 50})
        self.check_batches(run, "ticked", "batches")
        self.check_batches(run, "timed", "tickless_batches")
        for cid in ("batcher", "tickless"):
            c = run.component(cid)
            self.assertEqual((c["restarts"], c["errors"], c["failed"]), (0, 0, 0), cid)
        self.assertGreaterEqual(run.component("batcher")["acked"], self.COUNT,
                                "every input and the ticks were acked")


if __name__ == "__main__":
    unittest.main()
