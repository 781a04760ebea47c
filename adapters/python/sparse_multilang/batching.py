"""BatchingBolt: processes tuples in groups."""

import traceback

from .bolt import Bolt

__all__ = ["BatchingBolt"]


class BatchingBolt(Bolt):
    """Groups incoming tuples by ``group_key(tup)`` and calls ``process_batch(key, tuples)``
    when a group holds ``batch_size`` tuples, and for every group on each tick tuple (set
    ``topology.tick.tuple.freq.secs`` for the component so partial batches are not held
    forever).

    With ``auto_ack`` the whole batch is acked after ``process_batch`` returns; with
    ``auto_fail`` it is failed when it raises. Emits in ``process_batch`` are anchored to
    the batch's tuples (``auto_anchor``). Override ``process_tick(freq)`` for extra work on
    ticks; it runs after the flush. Do not override ``process``.
    """

    batch_size = 100

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._batches = {}  # key -> list of tuples, in arrival order of the keys

    def group_key(self, tup):
        """The batch a tuple belongs to. Default: one batch for everything."""
        return None

    def process_batch(self, key, tuples):
        raise NotImplementedError("%s must implement process_batch(key, tuples)"
                                  % type(self).__name__)

    def process(self, tup):
        raise TypeError("BatchingBolt does not call process(); implement process_batch()")

    def _handle_tuple(self, tup):
        try:
            key = self.group_key(tup)
            batch = self._batches.setdefault(key, [])
        except Exception:  # includes an unhashable key
            self.report_error("group_key() failed:\n" + traceback.format_exc())
            if self.auto_fail:
                self.fail(tup)
            return
        batch.append(tup)
        if len(batch) >= max(1, self.batch_size):
            self._flush(key)

    def _handle_tick(self, tup):
        for key in list(self._batches):
            self._flush(key)
        super()._handle_tick(tup)

    def _flush(self, key):
        tuples = self._batches.pop(key)
        self._run_callback(tuples, self.process_batch, key, tuples)
