"""Emits words from a fixed text, forever, with message ids so every word is tracked: a word
whose tuple tree fails or times out is emitted again (ReliableSpout)."""
import itertools

from sparse_multilang import ReliableSpout

TEXT = """the quick brown fox jumps over the lazy dog and the dog sleeps while the fox
runs through the brown field where the quick river meets the lazy afternoon"""


class WordSpout(ReliableSpout):
    max_retries = 5

    def initialize(self, conf, context):
        self.words = itertools.cycle(TEXT.split())
        self.ids = itertools.count()

    def next_tuple(self):
        # need_task_ids=False: nothing here uses the task ids the tuple went to, and asking for
        # them (Storm's default) makes every emit wait for the runtime's answer.
        self.emit([next(self.words)], tup_id=next(self.ids), need_task_ids=False)


if __name__ == "__main__":
    WordSpout().run()
