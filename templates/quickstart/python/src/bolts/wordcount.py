"""Counts words. Emits [word, count] for every word, and logs the most common words on each
tick tuple (topology.tick.tuple.freq.secs in the topology)."""
from collections import Counter

from sparse_multilang import Bolt


class WordCountBolt(Bolt):
    def initialize(self, conf, context):
        self.counts = Counter()

    def process(self, tup):
        word = tup.values[0]
        self.counts[word] += 1
        # Anchored to tup and acked after process() returns (auto_anchor, auto_ack).
        self.emit([word, self.counts[word]], need_task_ids=False)

    def process_tick(self, freq):
        top = ", ".join("%s=%d" % wc for wc in self.counts.most_common(5))
        self.logger.info("%d words counted; top: %s", sum(self.counts.values()), top)


if __name__ == "__main__":
    WordCountBolt().run()
