"""Pipeline components written with sparse_multilang, for bench/storm/run.py (the same code runs
under `sparse run`, in Storm's local mode and on a Storm cluster, started by the jar's launchers).

    FastSpout   emits [n, payload] with a message id whenever asked (no task ids); measures its
                complete latency (progress.Latency)
    PassBolt    emits its input unchanged, anchored, then acks (the adapter's auto-ack)
    SinkBolt    counts what arrives (progress.py)
    KafkaPass   for Kafka -> bolt -> Kafka: takes the record's value (field 4 of Storm's and
                sparse's default [topic, partition, offset, key, value]) and emits [key, message]
                with the value upper-cased, for the Kafka bolt; counts what it passed on
"""
import itertools

from progress import Latency, Progress
from sparse_multilang import Bolt, Spout


class FastSpout(Spout):
    def initialize(self, conf, context):
        self.n = itertools.count()
        self.latency = Latency(conf)

    def next_tuple(self):
        n = next(self.n)
        self.latency.emitted(n)
        self.emit([n, "payload-%d" % n], tup_id=n, need_task_ids=False)

    def ack(self, tup_id):
        self.latency.acked(tup_id)

    def fail(self, tup_id):
        self.latency.failed(tup_id)


class PassBolt(Bolt):
    def process(self, tup):
        self.emit(tup.values, need_task_ids=False)


class SinkBolt(Bolt):
    def initialize(self, conf, context):
        self.progress = Progress(conf, "sink")

    def process(self, tup):
        self.progress.add()


class KafkaPass(Bolt):
    def initialize(self, conf, context):
        self.progress = Progress(conf, "sink")

    def process(self, tup):
        value = tup.values[4]
        self.emit([tup.values[3], value.upper() if isinstance(value, str) else value],
                  need_task_ids=False)
        self.progress.add()
