"""pystorm's component API on top of sparse_multilang, for projects written for pystorm or
streamparse when neither package is installed (the ``pystorm`` and ``streamparse`` modules
sparse puts on the path re-export these classes; see compat.py).

What carries over from pystorm (its documented behaviour, not its code):

* ``emit(tup, ...)`` returns task ids only when asked (``need_task_ids`` defaults to False);
* a bolt's ``process_tick(tup)`` gets the tick tuple itself;
* ``tup.values`` is a namedtuple of the declared output fields of the source stream;
* ``storm_conf``, ``topology_name``, ``debug``, ``raise_exception``, ``report_metric``,
  ``send_message``;
* an exception in ``process``/``next_tuple``/... is reported, the tuple failed (``auto_fail``),
  and the process exits when ``exit_on_exception`` (the default), as pystorm's do;
* ``ReliableSpout`` re-emits a failed tuple at once, up to ``max_fails`` times, then acks it;
* ``BatchingBolt`` flushes every ``ticks_between_batches`` tick tuples (set
  ``topology.tick.tuple.freq.secs``); ``TicklessBatchingBolt`` every ``secs_between_batches``
  seconds, from a timer thread.

The host's format (JSON or MessagePack) is detected from the handshake, so the ``serializer``
argument is accepted and not needed.
"""

import collections
import logging
import os
import re
import sys
import threading
import time
import traceback

from . import batching, bolt, component, spout
from .protocol import HostGone
from .tuples import Tuple

__all__ = ["BatchingBolt", "Bolt", "Component", "ReliableSpout", "Spout", "StormHandler",
           "TicklessBatchingBolt", "Tuple"]

_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]")


class StormHandler(logging.Handler):
    """A logging handler that sends records to the host as ``log`` commands (pystorm's name).
    Give it the component: ``StormHandler(self)``."""

    def __init__(self, component_or_serializer=None):
        super().__init__()
        self._component = component_or_serializer

    def emit(self, record):
        if self._component is None or not hasattr(self._component, "log"):
            return
        level = {logging.DEBUG: "debug", logging.INFO: "info", logging.WARNING: "warn",
                 logging.ERROR: "error", logging.CRITICAL: "error"}.get(record.levelno, "info")
        self._component.log(self.format(record), level)


_running = None  # the component whose run() is serving the host (for streamparse.storm)


def running_component():
    """The component this process runs (after its handshake), or None."""
    return _running


class _PystormComponent:
    """The parts of pystorm's Component that sparse_multilang names differently."""

    exit_on_exception = True

    def _start(self):
        global _running
        _running = self
        super()._start()

    def __init__(self, input_stream=None, output_stream=None, rdb_signal=None,
                 serializer="json"):
        # pystorm's defaults are the text stdio; sparse_multilang takes binary stdio over itself.
        if input_stream is sys.stdin or input_stream is getattr(sys, "__stdin__", None):
            input_stream = None
        if output_stream is sys.stdout or output_stream is getattr(sys, "__stdout__", None):
            output_stream = None
        super().__init__(input_stream, output_stream)
        self.requested_serializer = serializer

    @property
    def storm_conf(self):
        return self.conf

    @property
    def topology_name(self):
        return self.conf.get("topology.name", "")

    @property
    def debug(self):
        return bool(self.conf.get("topology.debug", False))

    def log(self, message, level=None):
        super().log(message, level or "info")

    def send_message(self, message):
        self._send(message)

    def raise_exception(self, exception, tup=None):
        """Reports ``exception`` (with the tuple it happened on) as this component's error."""
        if tup is not None:
            message = "Python %s raised while processing Tuple %r\n%s" % (
                type(exception).__name__, tup, traceback.format_exc())
        else:
            message = "Python %s raised\n%s" % (type(exception).__name__,
                                                traceback.format_exc())
        self.report_error(message)

    def report_metric(self, name, value):
        self._send({"command": "metrics", "name": name, "params": value})

    def _fatal(self, what):
        """Reports the exception being handled; exits when ``exit_on_exception``."""
        self.report_error("%s failed:\n%s" % (what, traceback.format_exc()))
        if self.exit_on_exception:
            self._writer.flush()
            raise SystemExit(1)


class Component(_PystormComponent, component.Component):
    """pystorm's Component (base of Bolt and Spout)."""


class Bolt(_PystormComponent, bolt.Bolt):
    """pystorm's Bolt: ``process(tup)``, ``process_tick(tup)``; ``auto_ack``,
    ``auto_anchor``, ``auto_fail``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._value_types = {}  # (source, stream) -> namedtuple of its declared fields

    def process_tick(self, tup):
        """Called for each tick tuple (the tuple itself, as in pystorm). Default: nothing."""

    def emit(self, tup, stream=None, anchors=None, direct_task=None, need_task_ids=False):
        return super().emit(tup, stream=stream, anchors=anchors, direct_task=direct_task,
                            need_task_ids=need_task_ids)

    def _start(self):
        super()._start()
        fields = self.context.get("source->stream->fields") or {}
        for source, streams in fields.items():
            for stream, names in (streams or {}).items():
                type_name = (_IDENTIFIER.sub("_", source.title())
                             + _IDENTIFIER.sub("_", stream.title()) + "Tuple")
                try:
                    self._value_types[(source, stream)] = collections.namedtuple(
                        type_name, names)
                except (TypeError, ValueError):
                    pass  # field names Python cannot use as attributes: plain tuples

    def _typed(self, tup):
        value_type = self._value_types.get((tup.component, tup.stream))
        values = tup.values
        if value_type is not None and len(values) == len(value_type._fields):
            return tup._replace(values=value_type(*values))
        return tup._replace(values=tuple(values))

    def _handle_tuple(self, tup):
        super()._handle_tuple(self._typed(tup))

    def _handle_tick(self, tup):
        self._run_callback([tup], self.process_tick, tup, anchored=False)

    def _run_callback(self, tuples, callback, *args, anchored=True):
        failed = []

        def call(*call_args):
            try:
                return callback(*call_args)
            except Exception:
                failed.append(True)
                raise

        super()._run_callback(tuples, call, *args, anchored=anchored)
        if failed and self.exit_on_exception:
            self._writer.flush()
            raise SystemExit(1)


class BatchingBolt(Bolt, batching.BatchingBolt):
    """pystorm's BatchingBolt: ``group_key(tup)``, ``process_batch(key, tups)``; every
    ``ticks_between_batches`` tick tuples all batches are processed."""

    ticks_between_batches = 1
    batch_size = float("inf")  # pystorm batches by ticks only

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._ticks = 0

    def process(self, tup):
        raise TypeError("BatchingBolt does not call process(); implement process_batch()")

    def process_batches(self):
        for key in list(self._batches):
            self._flush(key)

    def _handle_tuple(self, tup):
        batching.BatchingBolt._handle_tuple(self, self._typed(tup))

    def _handle_tick(self, tup):
        self._ticks += 1
        if self._ticks >= max(1, int(self.ticks_between_batches)):
            self._ticks = 0
            self.process_batches()
        Bolt._handle_tick(self, tup)


class TicklessBatchingBolt(BatchingBolt):
    """pystorm's TicklessBatchingBolt: batches are processed every ``secs_between_batches``
    seconds by a timer thread, whether or not tick tuples arrive."""

    secs_between_batches = 2

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._batch_lock = threading.RLock()
        self._timer_anchors = threading.local()

    def _start(self):
        super()._start()
        threading.Thread(target=self._timer, name="sparse-tickless-batches", daemon=True).start()

    def _timer(self):
        while True:
            time.sleep(max(0.01, float(self.secs_between_batches)))
            try:
                with self._batch_lock:
                    self._flush_from_timer()
            except (HostGone, SystemExit):
                return
            except Exception:
                return

    def _flush_from_timer(self):
        for key in list(self._batches):
            tuples = self._batches.pop(key)
            self._timer_anchors.ids = [t.id for t in tuples]
            try:
                self.process_batch(key, tuples)
            except Exception:
                self.report_error("process_batch() failed:\n" + traceback.format_exc())
                if self.auto_fail:
                    for t in tuples:
                        self.fail(t)
                if self.exit_on_exception:
                    self._writer.flush()
                    os._exit(1)  # pystorm's worker thread ends the process the same way
                continue
            finally:
                self._timer_anchors.ids = None
            if self.auto_ack:
                for t in tuples:
                    self.ack(t)

    def emit(self, tup, stream=None, anchors=None, direct_task=None, need_task_ids=False):
        timer_ids = getattr(self._timer_anchors, "ids", None)
        if anchors is None and timer_ids is not None and self.auto_anchor:
            anchors = timer_ids
        return super().emit(tup, stream=stream, anchors=anchors, direct_task=direct_task,
                            need_task_ids=need_task_ids)

    def _handle_tuple(self, tup):
        with self._batch_lock:
            self._batches.setdefault(self.group_key(tup), []).append(self._typed(tup))

    def _handle_tick(self, tup):
        Bolt._handle_tick(self, tup)


class Spout(_PystormComponent, spout.Spout):
    """pystorm's Spout: ``next_tuple``, ``ack(tup_id)``, ``fail(tup_id)``, ``activate``,
    ``deactivate``."""

    def emit(self, tup, tup_id=None, stream=None, direct_task=None, need_task_ids=False):
        return super().emit(tup, tup_id=tup_id, stream=stream, direct_task=direct_task,
                            need_task_ids=need_task_ids)

    def _guard(self, what, hook, *args):
        try:
            hook(*args)
        except Exception:
            self._fatal(what)

    def _on_next(self):
        self._guard("next_tuple()", self.next_tuple)

    def _on_ack(self, tup_id):
        self._guard("ack()", self.ack, tup_id)

    def _on_fail(self, tup_id):
        self._guard("fail()", self.fail, tup_id)


class ReliableSpout(Spout):
    """pystorm's ReliableSpout: every emit needs a ``tup_id``; a failed tuple is emitted again
    at once, up to ``max_fails`` times, after which it is acked (given up). Subclasses that
    override ``ack``/``fail`` call the base method."""

    max_fails = 3

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.failed_tuples = collections.Counter()
        self.unacked_tuples = {}

    def ack(self, tup_id):
        self.failed_tuples.pop(tup_id, None)
        if self.unacked_tuples.pop(tup_id, None) is None:
            self.logger.error("Received ack for unknown tuple ID: %r", tup_id)

    def fail(self, tup_id):
        saved = self.unacked_tuples.get(tup_id)
        if saved is None:
            self.logger.error("Received fail for unknown tuple ID: %r", tup_id)
            return
        tup, stream, direct_task, need_task_ids = saved
        if self.failed_tuples[tup_id] < self.max_fails:
            self.emit(tup, tup_id=tup_id, stream=stream, direct_task=direct_task,
                      need_task_ids=need_task_ids)
            self.failed_tuples[tup_id] += 1
        else:
            self.logger.info("Acking tuple ID %r after it exceeded retry limit (%r)", tup_id,
                             self.max_fails)
            self.ack(tup_id)

    def emit(self, tup, tup_id=None, stream=None, direct_task=None, need_task_ids=False):
        if tup_id is None:
            raise ValueError("You must provide a tuple ID when emitting with a ReliableSpout "
                             "in order for the tuple to be tracked.")
        self.unacked_tuples[tup_id] = (tup, stream, direct_task, need_task_ids)
        return super().emit(tup, tup_id=tup_id, stream=stream, direct_task=direct_task,
                            need_task_ids=need_task_ids)
