"""The benchmark pipeline written with Apache Storm's own storm.py (copied next to this file from
Storm's multilang-python jar by run.py):  python storm_components.py spout|pass|sink"""
import itertools
import sys

import storm


class FastSpout(storm.Spout):
    def initialize(self, conf, context):
        self.n = itertools.count()

    def nextTuple(self):
        n = next(self.n)
        storm.emit([n, "payload-%d" % n], id=n)


class PassBolt(storm.BasicBolt):
    def process(self, tup):
        storm.emit(tup.values)  # BasicBolt anchors to the input and acks it


class SinkBolt(storm.BasicBolt):
    def process(self, tup):
        pass


if __name__ == "__main__":
    {"spout": FastSpout, "pass": PassBolt, "sink": SinkBolt}[sys.argv[1]]().run()
