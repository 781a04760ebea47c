"""Where a bench component reports how many tuples it has seen, for bench/storm/run.py.

The same file format on sparse and on Storm, so the runner measures every platform the same way:
the component appends `WALL_CLOCK_SECONDS COUNT [TOTAL]` to `<bench.dir>/<name>-<pid>.txt` on its
first tuple and then at most every 0.1 s (TOTAL: a running sum the component keeps, e.g. the
spout's complete latencies in ms). Without `bench.dir` in the topology config it writes nothing.
"""
import os
import time


class Progress:
    def __init__(self, conf, name):
        folder = conf.get("bench.dir")
        self.out = open(os.path.join(folder, "%s-%d.txt" % (name, os.getpid())), "a") if folder else None
        self.count = 0
        self.total = 0.0
        self.last = 0.0

    def add(self, n=1, total=0.0):
        self.count += n
        self.total += total
        if self.out is None:
            return
        now = time.time()
        if now - self.last >= 0.1:
            self.last = now
            self.out.write("%.4f %d %.3f\n" % (now, self.count, self.total))
            self.out.flush()


class Latency:
    """A spout's complete latency, measured by the spout itself: emit time to ack, in ms, the
    same on every platform (Storm's local mode reports no statistics)."""

    def __init__(self, conf):
        self.progress = Progress(conf, "spout")
        self.sent = {}

    def emitted(self, msg_id):
        self.sent[msg_id] = time.time()

    def acked(self, msg_id):
        start = self.sent.pop(msg_id, None)
        if start is not None:
            self.progress.add(1, (time.time() - start) * 1000.0)

    def failed(self, msg_id):
        self.sent.pop(msg_id, None)
