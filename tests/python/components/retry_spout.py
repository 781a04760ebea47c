"""A ReliableSpout emitting m1 and m2 once each, replaying failures up to twice."""

import json
import sys

from sparse_multilang import ReliableSpout

BYTES_IDS = sys.argv[1:] == ["--bytes-ids"]  # tuple ids b"m1", b"m2" (MessagePack only)


class RetrySpout(ReliableSpout):
    max_retries = 2

    def initialize(self, conf, context):
        self.next_number = 1

    def next_tuple(self):
        if self.next_number <= 2:
            tup_id = "m%d" % self.next_number
            if BYTES_IDS:
                tup_id = tup_id.encode("ascii")
            self.emit(["message %d" % self.next_number], tup_id=tup_id, need_task_ids=False)
            self.next_number += 1

    def fail(self, tup_id):
        self.log("fail hook %s pending=%d" % (tup_id, self.pending_count))

    def on_give_up(self, tup_id, values):
        self.log("gave up %s %s" % (tup_id, json.dumps(values)))


if __name__ == "__main__":
    RetrySpout().run()
