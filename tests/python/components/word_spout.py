"""A spout that does something different on each of its first five next commands."""

import json

from sparse_multilang import Spout


class WordSpout(Spout):
    def initialize(self, conf, context):
        self.calls = 0

    def next_tuple(self):
        self.calls += 1
        if self.calls == 1:
            task_ids = self.emit(["alpha"], tup_id=1)
            self.log("task ids %s" % json.dumps(task_ids))
        elif self.calls == 2:
            result = self.emit(["beta"], tup_id={"offset": 2}, stream="words",
                               need_task_ids=False)
            direct = self.emit(["gamma"], direct_task=7)
            self.log("returned %r %r" % (result, direct))
        elif self.calls == 3:
            raise RuntimeError("next_tuple exploded")
        elif self.calls == 4:
            self.emit(["delta"], need_task_ids=False)
        # later calls emit nothing

    def ack(self, tup_id):
        self.log("acked %s" % json.dumps(tup_id))

    def fail(self, tup_id):
        self.log("failed %s" % json.dumps(tup_id))

    def activate(self):
        self.log("activated")

    def deactivate(self):
        self.log("deactivated")


if __name__ == "__main__":
    WordSpout().run()
