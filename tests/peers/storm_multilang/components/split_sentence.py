"""storm-starter's split-sentence bolt on Apache Storm's own storm.py (storm.BasicBolt: emits are
anchored to the input, which is acked when process returns).

[sid, sentence] -> [word, sid, index] per word on the default stream; when `peers.direct.target`
names a component, each word also goes on the direct stream `bylen` to the task of that component
chosen by the word's length: sorted(tasks)[len(word) % len(tasks)]."""
import time

import storm


class SplitSentence(storm.BasicBolt):
    def initialize(self, conf, context):
        target = conf.get("peers.direct.target")
        self.targets = sorted(int(t) for t, c in context["task->component"].items()
                              if c == target) if target else []
        self.sleep = float(conf.get("peers.split.sleep", 0))

    def process(self, tup):
        sid, sentence = tup.values
        if self.sleep:
            time.sleep(self.sleep)
        for index, word in enumerate(sentence.split(" ")):
            storm.emit([word, sid, index])
            if self.targets:
                storm.emitDirect(self.targets[len(word) % len(self.targets)], [word, sid, index],
                                 stream="bylen")


SplitSentence().run()
