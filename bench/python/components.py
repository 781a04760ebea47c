"""Benchmark components: a spout that emits as fast as it is asked, and a pass-through bolt.
Neither asks for task ids (the cheap path); the spout gives message ids when bench.reliable."""
import itertools

from sparse_multilang import Bolt, Spout


class FastSpout(Spout):
    def initialize(self, conf, context):
        self.reliable = bool(conf.get("bench.reliable", True))
        self.n = itertools.count()
        self.batch = int(conf.get("bench.batch", 1))

    def next_tuple(self):
        for _ in range(self.batch):
            n = next(self.n)
            if self.reliable:
                self.emit([n, "payload-%d" % n], tup_id=n, need_task_ids=False)
            else:
                self.emit([n, "payload-%d" % n], need_task_ids=False)


class PassBolt(Bolt):
    def process(self, tup):
        self.emit(tup.values, need_task_ids=False)


class SinkBolt(Bolt):
    def process(self, tup):
        pass
