"""Loaded with ``python3 -m sparse_multilang.run run_target:Echo``; prints at import time."""

from sparse_multilang import Bolt

print("printed while importing")


class Echo(Bolt):
    def process(self, tup):
        self.emit(tup.values, need_task_ids=False)


class NotAComponent:
    pass
