"""A reliable spout written against Apache Storm's own storm.py (copied next to it at test time,
as a Storm jar's resources/ would hold it).

Emits this task's share of the sentences in the file named by `peers.sentences` (a JSON list of
[sid, sentence]) as [sid, sentence] with the sid as message id. Failed sentences are emitted
again. Every ack is appended to <peers.out>/acked-<component>-<task>.jsonl (fails to failed-...),
and a restarted task first reads those files and skips what was acked: a durable source, like a
queue with committed offsets, so nothing is lost when the spout itself is killed."""
import glob
import json
import os
import time
from collections import deque

import storm


class SentenceSpout(storm.Spout):
    def initialize(self, conf, context):
        name, task = context["componentid"], context["taskid"]
        out = conf.get("peers.out", "out")
        tasks = sorted(int(t) for t, c in context["task->component"].items() if c == name)
        with open(conf["peers.sentences"], encoding="utf-8") as f:
            mine = [s for i, s in enumerate(json.load(f)) if i % len(tasks) == tasks.index(task)]
        self.text = dict((sid, sentence) for sid, sentence in mine)
        self.acked = set()
        for path in glob.glob(os.path.join(out, "acked-%s-*.jsonl" % name)):
            with open(path, encoding="utf-8") as f:
                self.acked.update(json.loads(line) for line in f if line.endswith("\n"))
        self.todo = deque(sid for sid, _ in mine if sid not in self.acked)
        self.queued = set(self.todo)
        self.sleep = float(conf.get("peers.spout.sleep", 0))
        self.acked_log = open(os.path.join(out, "acked-%s-%d.jsonl" % (name, task)), "a",
                              encoding="utf-8", buffering=1)
        self.failed_log = open(os.path.join(out, "failed-%s-%d.jsonl" % (name, task)), "a",
                               encoding="utf-8", buffering=1)
        storm.logInfo("%s: %d sentences to emit, %d acked before" %
                      (name, len(self.todo), len(self.acked)))

    def nextTuple(self):
        while self.todo:
            sid = self.todo.popleft()
            self.queued.discard(sid)
            if sid not in self.acked:
                if self.sleep:
                    time.sleep(self.sleep)
                storm.emit([sid, self.text[sid]], id=sid)
                return

    def ack(self, sid):
        self.acked.add(sid)
        self.acked_log.write(json.dumps(sid) + "\n")

    def fail(self, sid):
        self.failed_log.write(json.dumps(sid) + "\n")
        if sid in self.text and sid not in self.acked and sid not in self.queued:
            self.todo.append(sid)
            self.queued.add(sid)


SentenceSpout().run()
