"""Heartbeats to a busy pystorm bolt, and a pystorm bolt killed with SIGKILL mid-run."""
import os
import signal
import unittest

from harness import SparseTestCase, component, inputs


class Heartbeats(SparseTestCase):
    def test_busy_bolt_is_not_declared_stuck(self):
        """A pystorm bolt reads heartbeats only between tuples. Each process() here sleeps 3 s
        (3 heartbeat periods) with topology.subprocess.timeout.secs 5: every gap between the
        bolt's messages is shorter than the timeout, so it must not be declared stuck. One bolt
        speaks JSON, the other MessagePack (heartbeats are encoded per component).

        A control bolt in the same run sleeps 7 s, longer than the timeout: it must be declared
        stuck and restarted, as Storm would, which shows the timeout is in force. Its spout gives
        up after one replay (test.max_fails 1), so the run still ends when idle."""
        count = 4
        control = {"test.sleep_s": 7}
        self.write_topology(
            "busy",
            spouts=[component("numbers", "NumberSpout", outputs=["n"]),
                    component("numbers_mp", "NumberSpout", "msgpack", outputs=["n"]),
                    component("numbers_control", "NumberSpout", outputs=["n"],
                              config={"test.count": 1, "test.max_fails": 1})],
            bolts=[component("sleepy", "SleepyBolt", outputs=["n"], inputs=inputs("numbers")),
                   component("sleepy_mp", "SleepyBolt", "msgpack", outputs=["n"],
                             inputs=inputs("numbers_mp")),
                   component("sleepy_control", "SleepyBolt", outputs=["n"], config=control,
                             inputs=inputs("numbers_control")),
                   component("sink", "Sink", inputs=inputs("sleepy")),
                   component("sink_mp", "Sink", inputs=inputs("sleepy_mp"))],
            # Not -o, which would override the control's component config.
            config={"test.count": count, "test.sleep_s": 3,
                    "topology.subprocess.timeout.secs": 5})
        run = self.run_topology(limit_s=60)
        for spout, bolt, sink in (("numbers", "sleepy", "sink"),
                                  ("numbers_mp", "sleepy_mp", "sink_mp")):
            self.assert_each_once([t["values"][0] for t in self.lines(sink)], count, sink)
            b = run.component(bolt)
            self.assertEqual((b["restarts"], b["errors"], b["failed"], b["acked"]),
                             (0, 0, 0, count), bolt + "\n" + self.log_text(bolt))
            s = run.component(spout)
            self.assertEqual((s["acked"], s["failed"], s["timed_out"]), (count, 0, 0), spout)
            self.assertNotIn("heartbeat", self.log_text(bolt))
        self.assertGreaterEqual(run.component("sleepy_control")["restarts"], 1,
                                self.log_text("sleepy_control"))
        self.assertIn("heartbeat", self.log_text("sleepy_control"))
        self.assertEqual(run.component("sleepy_control")["acked"], 0)


class Kill(SparseTestCase):
    COUNT = 6000
    PENDING = 200

    def kill_one_bolt(self, serializer):
        """kill -9 of one of two pystorm PassBolt processes once a quarter of the numbers are
        through: sparse restarts that task, fails what was in flight to it (ReliableSpout replays
        it, no timeout needed), and every number reaches the sink."""
        s = serializer
        self.write_topology(
            "kill-" + s,
            spouts=[component("numbers", "NumberSpout", s, outputs=["n"])],
            bolts=[component("pass", "PassBolt", s, parallelism=2, outputs=["n"],
                             inputs=inputs("numbers")),
                   component("sink", "Sink", s, inputs=inputs("pass", "fields", ["n"]))])
        p = self.start(limit_s=60, options={"test.count": self.COUNT,
                                            "topology.max.spout.pending": self.PENDING})
        self.wait_for(lambda: len(self.lines("sink")) >= self.COUNT // 4 or p.poll() is not None,
                      60, "a quarter of the numbers at the sink")
        self.assertIsNone(p.poll(), "sparse stopped before the kill")
        victims = self.component_pids("PassBolt")
        self.assertEqual(len(victims), 2, "two PassBolt processes")
        through_at_kill = len(self.lines("sink"))
        os.kill(victims[0], signal.SIGKILL)
        self.wait_for(lambda: len(self.component_pids("PassBolt")) == 2 and
                      victims[0] not in self.component_pids("PassBolt"),
                      30, "a new PassBolt process")
        run = self.finish(p)
        self.assertEqual(run.code, 0, run.describe())
        self.assertLess(through_at_kill, self.COUNT, "the kill came after every number was through")

        numbers = [t["values"][0] for t in self.lines("sink")]
        self.assert_each_at_least_once(numbers, self.COUNT, "sink")
        self.assertLessEqual(len(numbers) - self.COUNT, self.PENDING,
                             "replays are bounded by what was pending")
        acked, failed = self.spout_events("numbers")
        self.assert_each_once(acked, self.COUNT, "acks the spout got")
        spout = run.component("numbers")
        self.assertEqual((spout["acked"], spout["timed_out"]), (self.COUNT, 0))
        self.assertEqual(spout["failed"], len(failed))
        self.assertEqual(run.component("pass")["restarts"], 1)
        self.assertIn("signal 9", self.log_text("pass"), "the failure is reported in its log")
        self.assertEqual(self.processes_inside(), [], "a component outlived the runtime")

    def test_json(self):
        self.kill_one_bolt("json")

    def test_msgpack(self):
        self.kill_one_bolt("msgpack")


if __name__ == "__main__":
    unittest.main()
