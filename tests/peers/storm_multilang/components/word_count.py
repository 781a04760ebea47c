"""A counting bolt on Apache Storm's own storm.py (storm.Bolt, acking by hand).

Input [word, sid, index]. Each tuple is appended to <peers.out>/counted-<component>-<task>.jsonl
before it is acked, so a restarted task rebuilds its state from that journal and an acked tuple is
never lost. Counts are kept per word twice: `count`, the distinct (sid, index) pairs, exact under
at-least-once replays, and `deliveries`, every tuple received. The counts are written to
<peers.out>/counts-<component>-<task>.json on every tick tuple and when the bolt stops (stdin
closed or SIGTERM)."""
import json
import os
import signal
import sys

import storm


class WordCount(storm.Bolt):
    def initialize(self, conf, context):
        name, task = context["componentid"], context["taskid"]
        out = conf.get("peers.out", "out")
        self.counts_path = os.path.join(out, "counts-%s-%d.json" % (name, task))
        journal = os.path.join(out, "counted-%s-%d.jsonl" % (name, task))
        self.keys, self.deliveries = {}, {}
        if os.path.exists(journal):
            with open(journal, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n"):
                        self.count(*json.loads(line))
        self.journal = open(journal, "a", encoding="utf-8", buffering=1)

    def count(self, word, sid, index):
        self.keys.setdefault(word, set()).add((sid, index))
        self.deliveries[word] = self.deliveries.get(word, 0) + 1

    def process(self, tup):
        if tup.component == "__system" and tup.stream == "__tick":
            self.write_counts()
        else:
            word, sid, index = tup.values
            self.journal.write(json.dumps([word, sid, index]) + "\n")
            self.count(word, sid, index)
        storm.ack(tup)

    def write_counts(self):
        if not hasattr(self, "keys"):
            return
        counts = {w: {"count": len(k), "deliveries": self.deliveries[w]}
                  for w, k in self.keys.items()}
        tmp = "%s.%d.tmp" % (self.counts_path, os.getpid())
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(counts, f, ensure_ascii=False, sort_keys=True)
        os.replace(tmp, self.counts_path)


bolt = WordCount()
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
try:
    bolt.run()  # returns when stdin closes (storm.py reports that as an error first)
finally:
    bolt.write_counts()
