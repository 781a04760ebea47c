"""Components written against pystorm's and streamparse's API, run by streamparse_run with
sparse's stand-ins (the test interpreter has neither package)."""

from pystorm import BatchingBolt, Bolt, ReliableSpout, TicklessBatchingBolt
from streamparse import Spout


class FieldsBolt(Bolt):
    """Echoes a word by field name; logs the tick tuple it is given."""

    def process(self, tup):
        if tup.values.word == "boom":
            raise ValueError("boom")
        result = self.emit([tup.values.word.upper()])
        self.log("emit returned %r" % (result,))

    def process_tick(self, tup):
        self.log("tick from %s/%s" % (tup.component, tup.stream))


class Replaying(ReliableSpout):
    max_fails = 2

    def initialize(self, conf, ctx):
        self.sent = False

    def next_tuple(self):
        if not self.sent:
            self.sent = True
            self.emit(["x"], tup_id="t1")

    def ack(self, tup_id):
        super().ack(tup_id)
        self.log("acked %s" % tup_id)


class EveryOtherTick(BatchingBolt):
    ticks_between_batches = 2

    def group_key(self, tup):
        return tup.values[0]

    def process_batch(self, key, tups):
        self.emit([key, len(tups)])


class StreamparseSpout(Spout):
    outputs = ["n"]

    def next_tuple(self):
        self.emit([1], tup_id=1, need_task_ids=True)


class Timed(TicklessBatchingBolt):
    secs_between_batches = 0.2

    def process_batch(self, key, tups):
        self.emit([len(tups)])
