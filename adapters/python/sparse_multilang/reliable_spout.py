"""ReliableSpout: a spout that replays failed tuples."""

import collections
import json

from .spout import Spout

__all__ = ["ReliableSpout"]


def _key(tup_id):
    # Ids come back from the host decoded anew (possibly lists or dicts): key them by a
    # canonical encoding.
    try:
        return json.dumps(tup_id, sort_keys=True, separators=(",", ":"))
    except TypeError:
        # Not a JSON value (bytes, or map keys of mixed types: possible under MessagePack,
        # which keeps map order): the repr, with tuples as the lists they come back as.
        return repr(_as_decoded(tup_id))


def _as_decoded(value):
    if isinstance(value, (list, tuple)):
        return [_as_decoded(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_decoded(item) for key, item in value.items()}
    return value


class _Pending:
    __slots__ = ("tup_id", "values", "stream", "direct_task", "failures")

    def __init__(self, tup_id, values, stream, direct_task):
        self.tup_id = tup_id
        self.values = values
        self.stream = stream
        self.direct_task = direct_task
        self.failures = 0


class ReliableSpout(Spout):
    """Remembers every emitted tuple until it is acked, and replays it when it fails.

    Every ``emit`` needs a ``tup_id``. On ``fail`` the tuple is queued and re-emitted with
    the same id, values and stream on the next ``next`` command, before ``next_tuple`` is
    asked for new data (one replay per ``next``, so ``topology.max.spout.pending`` holds).
    After ``max_retries`` replays a further failure gives up: an error is logged, the tuple
    is forgotten and ``on_give_up(tup_id, values)`` is called. ``ack`` forgets the tuple.
    The ``ack``/``fail`` hooks are still called, after the bookkeeping, for notification.
    """

    max_retries = 3

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._pending = {}
        self._replays = collections.deque()  # keys of failed tuples to re-emit

    def on_give_up(self, tup_id, values):
        """A tuple failed ``max_retries`` replays too many. Default: nothing more."""

    @property
    def pending_count(self):
        """Tuples emitted and neither acked nor given up yet."""
        return len(self._pending)

    def emit(self, values, tup_id=None, stream=None, direct_task=None, need_task_ids=True):
        if tup_id is None:
            raise ValueError("ReliableSpout.emit() needs a tup_id")
        key = _key(tup_id)
        task_ids = super().emit(values, tup_id=tup_id, stream=stream, direct_task=direct_task,
                                need_task_ids=need_task_ids)
        self._pending[key] = _Pending(tup_id, list(values), stream, direct_task)
        return task_ids

    def _on_next(self):
        while self._replays:
            pending = self._pending.get(self._replays.popleft())
            if pending is not None:  # skip tuples acked since they failed
                self._replay(pending)
                return
        self.next_tuple()

    def _replay(self, pending):
        Spout.emit(self, pending.values, tup_id=pending.tup_id, stream=pending.stream,
                   direct_task=pending.direct_task, need_task_ids=False)

    def _on_ack(self, tup_id):
        self._pending.pop(_key(tup_id), None)
        self.ack(tup_id)

    def _on_fail(self, tup_id):
        key = _key(tup_id)
        pending = self._pending.get(key)
        if pending is not None:
            pending.failures += 1
            if pending.failures > self.max_retries:
                del self._pending[key]
                self.log("giving up on tuple %s after %d replays" % (key, self.max_retries),
                         "error")
                self.on_give_up(pending.tup_id, pending.values)
            else:
                self._replays.append(key)
        self.fail(tup_id)
