"""The Python pipeline written with Apache Storm's own storm.py (run.py copies storm.py from the
peers cache next to it), for bench/storm/run.py:  python3 stormpy_components.py spout|pass|sink"""
import itertools
import sys

import storm
from progress import Latency, Progress


class FastSpout(storm.Spout):
    def initialize(self, conf, context):
        self.n = itertools.count()
        self.latency = Latency(conf)

    def nextTuple(self):
        n = next(self.n)
        self.latency.emitted(n)
        storm.emit([n, "payload-%d" % n], id=n)

    def ack(self, id):
        self.latency.acked(id)

    def fail(self, id):
        self.latency.failed(id)


class PassBolt(storm.BasicBolt):
    def process(self, tup):
        storm.emit(tup.values)  # BasicBolt anchors to the input and acks it


class SinkBolt(storm.BasicBolt):
    def initialize(self, conf, context):
        self.progress = Progress(conf, "sink")

    def process(self, tup):
        self.progress.add()


if __name__ == "__main__":
    {"spout": FastSpout, "pass": PassBolt, "sink": SinkBolt}[sys.argv[1]]().run()
