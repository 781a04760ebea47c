"""pystorm components for the peer tests, written the way pystorm users write them: a script whose
main constructs the component and calls ``run()``. Run as

    python components.py CLASS_NAME [json|msgpack]

with the peers virtualenv's interpreter (real pystorm from PyPI). The second argument is passed
to the component's constructor as ``serializer``.

Everything a test checks is written to files under the topology config key ``test.out``: one
JSON line per event, in ``<what>-<task>.jsonl``, line-buffered so a test polling a running
topology reads whole lines. Behaviour is tuned by ``test.*`` keys of the topology config, which
pystorm hands to ``initialize`` as ``storm_conf``.
"""
import json
import os
import sys
import time

from pystorm import BatchingBolt, Bolt, ReliableSpout, Spout, TicklessBatchingBolt

from payload import payload


class Recorder(object):
    """Appends JSON lines to ``<test.out>/<name>-<task>.jsonl``."""

    def __init__(self, conf, name, task_id):
        path = os.path.join(conf["test.out"], "%s-%s.jsonl" % (name, task_id))
        self.file = open(path, "a", buffering=1)

    def write(self, obj):
        self.file.write(json.dumps(obj, sort_keys=True) + "\n")


def recorder(component, name=None):
    return Recorder(component.storm_conf, name or component.component_name, component.task_id)


# --------------------------------------------------------------------------------------- spouts

class NumberSpout(ReliableSpout):
    """Emits 0..test.count-1 reliably (pystorm's ReliableSpout replays a failed tuple up to
    test.max_fails times), test.burst per next_tuple. The message id is the number, or "id-<n>" with test.string_ids. Every ack and
    fail it receives is recorded in acks-<component>-<task>.jsonl as ["ack"|"fail", id]."""

    def initialize(self, conf, context):
        # A replay test must never see pystorm give up and fake an ack (default 3 replays).
        self.max_fails = int(conf.get("test.max_fails", 1000))
        self.count = int(conf.get("test.count", 100))
        self.burst = int(conf.get("test.burst", 10))
        self.string_ids = bool(conf.get("test.string_ids", False))
        self.rich = bool(conf.get("test.rich", False))
        self.next_n = 0
        self.events = recorder(self, "acks-" + self.component_name)
        self.logger.info("NumberSpout task %s will emit %d numbers", self.task_id, self.count)

    def next_tuple(self):
        for _ in range(self.burst):
            if self.next_n >= self.count:
                return
            n = self.next_n
            self.next_n += 1
            values = [n, payload(n)] if self.rich else [n]
            self.emit(values, tup_id="id-%d" % n if self.string_ids else n)

    def ack(self, tup_id):
        self.events.write(["ack", tup_id])
        super(NumberSpout, self).ack(tup_id)

    def fail(self, tup_id):
        self.events.write(["fail", tup_id])
        super(NumberSpout, self).fail(tup_id)


class PlainSpout(Spout):
    """pystorm's plain Spout: emits 0..test.count-1 once each, unreliably (no tuple id). Each emit
    asks for the receiving task ids (need_task_ids=True), recorded as [n, ids] in
    taskids-<task>.jsonl."""

    def initialize(self, conf, context):
        self.count = int(conf.get("test.count", 100))
        self.next_n = 0
        self.task_ids = recorder(self, "taskids")

    def next_tuple(self):
        if self.next_n < self.count:
            n = self.next_n
            self.next_n += 1
            self.task_ids.write([n, self.emit([n], need_task_ids=True)])


# ---------------------------------------------------------------------------------------- bolts

class PassBolt(Bolt):
    """Forwards every tuple with Bolt's defaults: auto_anchor, auto_ack, auto_fail. With
    test.need_task_ids it asks for the receiving task ids, recorded as [n, ids] in
    taskids-<component>-<task>.jsonl."""

    def initialize(self, conf, context):
        self.need_task_ids = bool(conf.get("test.need_task_ids", False))
        if self.need_task_ids:
            self.task_ids = recorder(self, "taskids-" + self.component_name)

    def process(self, tup):
        ids = self.emit(list(tup.values), need_task_ids=self.need_task_ids)
        if self.need_task_ids:
            self.task_ids.write([tup.values[0], ids])


class UnanchoredPassBolt(PassBolt):
    """PassBolt with auto_anchor off: what it emits is not part of its input's tuple tree."""

    auto_anchor = False


class Sink(Bolt):
    """Records every tuple as {"values", "stream", "source", "task"} in <component>-<task>.jsonl."""

    def initialize(self, conf, context):
        self.out = recorder(self)

    def record(self, tup):
        self.out.write({"values": list(tup.values), "stream": tup.stream,
                        "source": tup.component, "task": self.task_id})

    def process(self, tup):
        self.record(tup)


class FailFirstSink(Sink):
    """Fails each number the first time this task sees it (explicit fail, auto_ack off), records
    and acks it the next time. Use with fields grouping on the number."""

    auto_ack = False

    def initialize(self, conf, context):
        super(FailFirstSink, self).initialize(conf, context)
        self.seen = set()

    def process(self, tup):
        n = tup.values[0]
        if n in self.seen:
            self.record(tup)
            self.ack(tup)
        else:
            self.seen.add(n)
            self.fail(tup)


class RaiseOnceBolt(PassBolt):
    """Raises from process() the first time it sees a number n with n % test.raise_mod == 0, then
    forwards it when it is replayed. Which numbers it raised for is kept in raised-<component>.jsonl,
    so the memory survives the process: pystorm's default exit_on_exception=True exits after
    reporting the exception (and, with auto_fail, failing the tuple)."""

    def initialize(self, conf, context):
        super(RaiseOnceBolt, self).initialize(conf, context)
        self.mod = int(conf.get("test.raise_mod", 100))
        self.raised_path = os.path.join(conf["test.out"], "raised-%s.jsonl" % self.component_name)
        self.raised = set()
        if os.path.exists(self.raised_path):
            with open(self.raised_path) as f:
                self.raised = set(json.loads(line) for line in f if line.endswith("\n"))

    def process(self, tup):
        n = tup.values[0]
        if n % self.mod == 0 and n not in self.raised:
            self.raised.add(n)
            with open(self.raised_path, "a") as f:
                f.write(json.dumps(n) + "\n")
            raise ValueError("test raises for %d" % n)
        super(RaiseOnceBolt, self).process(tup)


class RaiseOnceKeepRunningBolt(RaiseOnceBolt):
    """RaiseOnceBolt that survives its exceptions (exit_on_exception=False)."""

    exit_on_exception = False


class RaiseOnceNoAutoFailBolt(RaiseOnceKeepRunningBolt):
    """RaiseOnceKeepRunningBolt with auto_fail off: the tuple it raised for is neither acked nor
    failed, so only the message timeout fails its tree."""

    auto_fail = False


class SleepyBolt(PassBolt):
    """Sleeps test.sleep_s seconds in every process() call, answering no heartbeat meanwhile."""

    def initialize(self, conf, context):
        super(SleepyBolt, self).initialize(conf, context)
        self.sleep_s = float(conf.get("test.sleep_s", 3))

    def process(self, tup):
        time.sleep(self.sleep_s)
        super(SleepyBolt, self).process(tup)


class LoggingBolt(PassBolt):
    """Logs through every path pystorm offers, with markers a test looks for in sparse's logs:
    Component.log at several levels, the component's logger (pystorm's StormHandler), and plain
    stderr. Not print(): pystorm 3.1.4 means to turn stdout into log messages, but its check
    (serializer.output_stream == sys.stdout) is never true, as both serializers wrap stdout, so a
    print lands on the protocol pipe, which Storm too reports as a protocol error."""

    def initialize(self, conf, context):
        super(LoggingBolt, self).initialize(conf, context)
        self.log("marker-log-info")
        self.log("marker-log-warn", level="warn")
        self.log("marker-log-error", level="error")
        self.logger.info("marker-logger-info task=%s", self.task_id)
        self.logger.warning("marker-logger-warning")
        sys.stderr.write("marker-stderr\n")
        sys.stderr.flush()

    def process(self, tup):
        self.logger.info("marker-processed-%s", tup.values[0])
        super(LoggingBolt, self).process(tup)


class Batcher(BatchingBolt):
    """pystorm's tick-driven BatchingBolt: numbers grouped by n % 4; each batch is emitted as one
    tuple [key, [numbers]], anchored (auto_anchor) to every tuple of the batch, which pystorm
    acks only after process_batch, when a tick comes."""

    ticks_between_batches = 1

    def group_key(self, tup):
        return tup.values[0] % 4

    def process_batch(self, key, tups):
        self.emit([key, [t.values[0] for t in tups]])


class TicklessBatcher(TicklessBatchingBolt):
    """pystorm's TicklessBatchingBolt (a timer thread instead of ticks), batching like Batcher."""

    secs_between_batches = 1

    def group_key(self, tup):
        return tup.values[0] % 4

    def process_batch(self, key, tups):
        self.emit([key, [t.values[0] for t in tups]])


if __name__ == "__main__":
    component_class = globals()[sys.argv[1]]
    component_class(serializer=sys.argv[2] if len(sys.argv) > 2 else "json").run()
