"""What pystorm components log reaches sparse's per-component log files, logs/<component>.log."""
import unittest

from harness import SparseTestCase, component, inputs


class Logging(SparseTestCase):
    COUNT = 20

    def check_logging(self, serializer):
        s = serializer
        self.write_topology(
            "logging-" + s,
            spouts=[component("numbers", "NumberSpout", s, outputs=["n"])],
            bolts=[component("talker", "LoggingBolt", s, outputs=["n"], inputs=inputs("numbers")),
                   component("sink", "Sink", s, inputs=inputs("talker"))])
        run = self.run_topology(options={"test.count": self.COUNT})
        self.assert_each_once([t["values"][0] for t in self.lines("sink")], self.COUNT, "sink")

        log = self.log_text("talker")

        def line_with(marker):
            found = [l for l in log.splitlines() if marker in l]
            self.assertTrue(found, "%r not in logs/talker.log:\n%s" % (marker, log[-3000:]))
            return found[0]

        # Component.log, with its level carried over.
        self.assertRegex(line_with("marker-log-info"), r"\bINFO\b")
        self.assertRegex(line_with("marker-log-warn"), r"\bWARN")
        self.assertRegex(line_with("marker-log-error"), r"\bERROR\b")
        # The component's logger goes through pystorm's StormHandler as log commands.
        self.assertRegex(line_with("marker-logger-info task="), r"\bINFO\b")
        self.assertRegex(line_with("marker-logger-warning"), r"\bWARN")
        # stderr is free text, captured by the runtime.
        line_with("marker-stderr")
        for n in range(self.COUNT):
            self.assertRegex(log, r"marker-processed-%d\b" % n)
        # The spout's logger too, in the spout's own file.
        self.assertIn("NumberSpout task", self.log_text("numbers"))
        self.assertNotIn("marker-", self.log_text("numbers"))
        self.assertGreaterEqual(run.component("talker")["logs"], 5 + self.COUNT)

    def test_json(self):
        self.check_logging("json")

    def test_msgpack(self):
        self.check_logging("msgpack")


if __name__ == "__main__":
    unittest.main()
