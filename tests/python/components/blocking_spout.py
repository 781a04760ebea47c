"""A spout whose second next_tuple() blocks until the file named by conf["test.release"]
exists (at most 30 s): the test creates it only once the first next's answer has arrived."""

import os
import time

from sparse_multilang import Spout


class BlockingSpout(Spout):
    def initialize(self, conf, context):
        self.release = conf["test.release"]
        self.calls = 0

    def next_tuple(self):
        self.calls += 1
        if self.calls == 2:
            deadline = time.monotonic() + 30
            while not os.path.exists(self.release) and time.monotonic() < deadline:
                time.sleep(0.01)
        self.emit(["call %d" % self.calls], tup_id=self.calls, need_task_ids=False)


if __name__ == "__main__":
    BlockingSpout().run()
