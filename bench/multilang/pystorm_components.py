"""The benchmark pipeline written with pystorm (the real package from PyPI):
    python pystorm_components.py spout|pass|sink json|msgpack"""
import itertools
import sys

from pystorm import Bolt, Spout


class FastSpout(Spout):
    def initialize(self, conf, context):
        self.n = itertools.count()

    def next_tuple(self):
        n = next(self.n)
        self.emit([n, "payload-%d" % n], tup_id=n)


class PassBolt(Bolt):
    def process(self, tup):
        self.emit(tup.values)  # auto_anchor and auto_ack are pystorm's defaults


class SinkBolt(Bolt):
    def process(self, tup):
        pass


if __name__ == "__main__":
    kind = {"spout": FastSpout, "pass": PassBolt, "sink": SinkBolt}[sys.argv[1]]
    kind(serializer=sys.argv[2]).run()
