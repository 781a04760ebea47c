"""pystorm's Spout, ReliableSpout and Bolt under sparse: exact results, in JSON and MessagePack."""
import json
import os
import unittest

from harness import SparseTestCase, component, inputs
from payload import payload


class CoreTopology(SparseTestCase):
    """ReliableSpout -> PassBolt x2 (shuffle, need_task_ids) -> Sink x2 (fields on n), plus an
    unreliable plain Spout -> Sink. Values carry every kind of JSON/msgpack value."""

    COUNT = 2000

    def run_core(self, serializer):
        s = serializer
        self.write_topology(
            "core-" + s,
            spouts=[component("numbers", "NumberSpout", s, outputs=["n", "payload"]),
                    component("plain", "PlainSpout", s, outputs=["n"])],
            bolts=[component("pass", "PassBolt", s, parallelism=2, outputs=["n", "payload"],
                             inputs=inputs("numbers")),
                   component("sink", "Sink", s, parallelism=2,
                             inputs=inputs("pass", "fields", ["n"])),
                   component("plainsink", "Sink", s, parallelism=2, inputs=inputs("plain"))])
        run = self.run_topology(limit_s=60, options={
            "test.count": self.COUNT, "test.rich": True, "test.string_ids": True,
            "test.need_task_ids": True, "topology.max.spout.pending": 500})

        # Every number reached the sink once, with its values intact.
        got = self.lines("sink")
        self.assert_each_once([t["values"][0] for t in got], self.COUNT, "sink")
        for t in got:
            n = t["values"][0]
            self.assertEqual(t["values"], [n, payload(n)])
            self.assertEqual((t["stream"], t["source"]), ("default", "pass"))
        # need_task_ids: the bolt was told the one task each tuple went to, and it got there.
        told = {n: ids for n, ids in self.lines("taskids-pass")}
        self.assertEqual(len(told), self.COUNT)
        for t in got:
            self.assertEqual(told[t["values"][0]], [t["task"]])
        # The spout was acked each of its string ids once and failed none.
        acked, failed = self.spout_events("numbers")
        self.assertEqual(sorted(acked), sorted("id-%d" % n for n in range(self.COUNT)))
        self.assertEqual(failed, [])
        spout = run.component("numbers")
        self.assertEqual((spout["acked"], spout["failed"], spout["timed_out"]),
                         (self.COUNT, 0, 0))
        for cid in ("numbers", "plain", "pass", "sink", "plainsink"):
            c = run.component(cid)
            self.assertEqual((c["restarts"], c["errors"]), (0, 0), cid)

        # The plain Spout (unreliable): each number once, to the task its emit was told.
        plain = self.lines("plainsink")
        self.assert_each_once([t["values"][0] for t in plain], self.COUNT, "plainsink")
        told = {n: ids for n, ids in self.lines("taskids")}
        for t in plain:
            self.assertEqual(told[t["values"][0]], [t["task"]])
        self.assertEqual(run.component("plain")["failed"], 0)

    def test_json(self):
        self.run_core("json")

    def test_msgpack(self):
        self.run_core("msgpack")


class Reliability(SparseTestCase):
    COUNT = 1000

    def test_reliable_spout_replays_what_a_bolt_fails(self):
        """A sink fails every tuple the first time: ReliableSpout gets exactly one fail and one
        ack per id, replays each once, and the sink ends up with every number exactly once."""
        self.write_topology(
            "replay",
            spouts=[component("numbers", "NumberSpout", outputs=["n"])],
            bolts=[component("sink", "FailFirstSink", parallelism=2,
                             inputs=inputs("numbers", "fields", ["n"]))])
        run = self.run_topology(options={"test.count": self.COUNT,
                                         "topology.max.spout.pending": 200})
        self.assert_each_once([t["values"][0] for t in self.lines("sink")], self.COUNT, "sink")
        acked, failed = self.spout_events("numbers")
        self.assert_each_once(acked, self.COUNT, "acks the spout got")
        self.assert_each_once(failed, self.COUNT, "fails the spout got")
        spout = run.component("numbers")
        self.assertEqual((spout["acked"], spout["failed"], spout["timed_out"]),
                         (self.COUNT, self.COUNT, 0))

    def test_auto_anchor_on_and_off(self):
        """Two pipelines into sinks that fail every tuple once. Through Bolt's default
        auto_anchor the sink's fail reaches the spout, which replays; with auto_anchor = False
        the emit is not in the tree: the spout is acked and nothing is replayed."""
        self.write_topology(
            "anchoring",
            spouts=[component("anchored", "NumberSpout", outputs=["n"]),
                    component("loose", "NumberSpout", outputs=["n"])],
            bolts=[component("auto", "PassBolt", outputs=["n"], inputs=inputs("anchored")),
                   component("unanchored", "UnanchoredPassBolt", outputs=["n"],
                             inputs=inputs("loose")),
                   component("sink1", "FailFirstSink", inputs=inputs("auto")),
                   component("sink2", "FailFirstSink", inputs=inputs("unanchored"))])
        run = self.run_topology(options={"test.count": self.COUNT,
                                         "topology.max.spout.pending": 200})
        self.assert_each_once([t["values"][0] for t in self.lines("sink1")], self.COUNT, "sink1")
        anchored = run.component("anchored")
        self.assertEqual((anchored["acked"], anchored["failed"], anchored["timed_out"]),
                         (self.COUNT, self.COUNT, 0))
        self.assertEqual(self.lines("sink2"), [], "unanchored tuples are not replayed")
        loose = run.component("loose")
        self.assertEqual((loose["acked"], loose["failed"], loose["timed_out"]), (self.COUNT, 0, 0))
        self.assertEqual(run.component("sink2")["failed"], self.COUNT)

    def run_raising(self, cls, **options):
        self.write_topology(
            "raising",
            spouts=[component("numbers", "NumberSpout", outputs=["n"])],
            bolts=[component("raiser", cls, outputs=["n"], inputs=inputs("numbers")),
                   component("sink", "Sink", inputs=inputs("raiser"))])
        options.update({"test.count": self.COUNT, "test.raise_mod": 250,
                        "topology.max.spout.pending": 100})
        run = self.run_topology(options=options)
        raised = sorted(self.raised())
        self.assertEqual(raised, [0, 250, 500, 750])
        self.assert_each_at_least_once([t["values"][0] for t in self.lines("sink")], self.COUNT,
                                       "sink")
        acked, failed = self.spout_events("numbers")
        self.assert_each_once(acked, self.COUNT, "acks the spout got")
        for n in raised:
            self.assertIn(n, failed, "the tuple process() raised for was failed to the spout")
        self.assertEqual(run.component("numbers")["acked"], self.COUNT)
        log = self.log_text("raiser")
        self.assertIn("ValueError", log)
        self.assertIn("test raises for 250", log)
        return run, failed

    def raised(self):
        with open(os.path.join(self.out, "raised-raiser.jsonl")) as f:
            return [json.loads(line) for line in f]

    def test_exception_in_process_keeps_running_with_exit_on_exception_false(self):
        """exit_on_exception = False: pystorm reports the error, auto_fail fails the tuple, the
        process goes on; the spout replays it and the result is exact, without a restart."""
        run, failed = self.run_raising("RaiseOnceKeepRunningBolt")
        self.assertEqual(sorted(failed), [0, 250, 500, 750])
        self.assert_each_once([t["values"][0] for t in self.lines("sink")], self.COUNT, "sink")
        raiser = run.component("raiser")
        self.assertEqual((raiser["restarts"], raiser["failed"]), (0, 4))
        self.assertGreaterEqual(raiser["errors"], 4)
        self.assertEqual(run.component("numbers")["timed_out"], 0)

    def test_exception_in_process_without_auto_fail_times_out_and_replays(self):
        """auto_fail = False (and exit_on_exception = False): the tuple is left un-acked, its tree
        times out (topology.message.timeout.secs), the spout replays it: still exact."""
        run, failed = self.run_raising("RaiseOnceNoAutoFailBolt",
                                       **{"topology.message.timeout.secs": 3})
        self.assertEqual(sorted(failed), [0, 250, 500, 750])
        self.assert_each_once([t["values"][0] for t in self.lines("sink")], self.COUNT, "sink")
        self.assertEqual((run.component("raiser")["restarts"], run.component("raiser")["failed"]),
                         (0, 0))
        spout = run.component("numbers")
        self.assertEqual((spout["failed"], spout["timed_out"]), (4, 4))

    def test_exception_in_process_exits_restarts_and_replays_by_default(self):
        """pystorm's default exit_on_exception: error, fail, exit(1). sparse restarts the task
        (where Storm would restart the worker), what was in flight is failed and replayed, and
        every number reaches the sink."""
        run, failed = self.run_raising("RaiseOnceBolt")
        self.assertEqual(run.component("raiser")["restarts"], 4)
        self.assertLessEqual(len(self.lines("sink")) - self.COUNT, 4 * 100,
                             "replays are bounded by what was pending at each exit")
        self.assertEqual(run.component("numbers")["timed_out"], 0)
        self.assertIn("exit", self.log_text("raiser").lower())


if __name__ == "__main__":
    unittest.main()
