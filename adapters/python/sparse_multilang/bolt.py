"""Bolts: asynchronous components that receive tuples."""

import queue
import threading
import traceback

from .component import Component
from .protocol import HostGone, ProtocolError
from .tuples import Tuple

__all__ = ["Bolt"]

_END_OF_INPUT = object()


class _Inbox:
    """A thread that reads every message from the host.

    It answers heartbeats itself, at once, so that a long ``process`` call does not make the
    host declare the bolt dead. Task-id replies (JSON arrays) and tuples (JSON objects) go to
    two queues. When input ends, each queue receives ``_END_OF_INPUT`` (or the exception that
    ended it) after everything read before.
    """

    def __init__(self, reader, answer_heartbeat):
        self._reader = reader
        self._answer_heartbeat = answer_heartbeat
        self.tuples = queue.Queue()
        self.task_ids = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="sparse-multilang-inbox",
                                        daemon=True)

    def start(self):
        self._thread.start()

    def _run(self):
        end = _END_OF_INPUT
        try:
            while True:
                message = self._reader.read_message()
                if message is None:
                    break
                if isinstance(message, list):
                    self.task_ids.put(message)
                elif message.get("stream") == "__heartbeat":
                    self._answer_heartbeat()
                else:
                    self.tuples.put(message)
        except (Exception, HostGone) as exc:
            end = exc
        self.tuples.put(end)
        self.task_ids.put(end)


def _take(q):
    item = q.get()
    if item is _END_OF_INPUT:
        q.put(item)  # keep later takers from blocking forever
        raise HostGone("host closed the component's stdin")
    if isinstance(item, BaseException):
        q.put(item)
        raise item
    return item


def _tuple_id(tup):
    return tup.id if isinstance(tup, Tuple) else tup


class Bolt(Component):
    """Receives tuples in ``process(tup)``.

    ``auto_ack``: ack each tuple after ``process`` returns. ``auto_fail``: when ``process``
    raises, report the traceback and fail the tuple (the bolt keeps running either way).
    ``auto_anchor``: emits made during ``process`` are anchored to the tuple unless ``anchors``
    is given. A tuple the user acked or failed during ``process`` is not acked/failed again.
    Tick tuples go to ``process_tick(freq)`` and are acked like others.
    """

    auto_ack = True
    auto_anchor = True
    auto_fail = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._inbox = None
        self._main_thread = None
        self._current_anchors = None  # ids emits are anchored to, during a callback
        self._settled = set()  # ids acked or failed by the user during a callback

    # ----------------------------------------------------------------- hooks
    def process(self, tup):
        raise NotImplementedError("%s must implement process(tup)" % type(self).__name__)

    def process_tick(self, freq):
        """Called for each tick tuple with its frequency in seconds. Default: nothing."""

    # ----------------------------------------------------------------- public API
    def emit(self, values, stream=None, anchors=None, direct_task=None, need_task_ids=True):
        """Emits ``values`` (a list) on ``stream`` (default "default").

        ``anchors``: tuples or tuple ids; None means the current tuple(s) when ``auto_anchor``
        (only on the thread that runs ``process``). ``direct_task``: emit directly to that
        task. Returns the list of receiving task ids, or None for a direct emit or when
        ``need_task_ids`` is false.
        """
        message = self._emit_message(values, stream, direct_task, need_task_ids)
        if anchors is None and self.auto_anchor and self._on_main_thread():
            anchors = self._current_anchors
        if anchors is not None:
            if isinstance(anchors, (str, Tuple)):
                anchors = [anchors]
            message["anchors"] = [_tuple_id(anchor) for anchor in anchors]
        return self._send_emit(message)

    def ack(self, tup):
        """Acks a tuple (a Tuple or its id)."""
        tup_id = _tuple_id(tup)
        self._settled.add(tup_id)
        self._send({"command": "ack", "id": tup_id})

    def fail(self, tup):
        """Fails a tuple (a Tuple or its id)."""
        tup_id = _tuple_id(tup)
        self._settled.add(tup_id)
        self._send({"command": "fail", "id": tup_id})

    # ----------------------------------------------------------------- the loop
    def _start(self):
        self._main_thread = threading.get_ident()
        self._inbox = _Inbox(self._reader, lambda: self._send({"command": "sync"}))
        self._inbox.start()

    def _loop(self):
        while True:
            try:
                message = _take(self._inbox.tuples)
            except HostGone:
                return
            if not isinstance(message, dict):
                raise ProtocolError("unexpected message %.200r" % (message,))
            tup = Tuple.from_message(message)
            if tup.is_tick:
                self._handle_tick(tup)
            else:
                self._handle_tuple(tup)

    def _await_task_ids(self):
        reply = _take(self._inbox.task_ids)
        return [int(task) for task in reply]

    def _handle_tuple(self, tup):
        self._run_callback([tup], self.process, tup)

    def _handle_tick(self, tup):
        freq = tup.values[0] if tup.values else None
        self._run_callback([tup], self.process_tick, freq, anchored=False)

    def _run_callback(self, tuples, callback, *args, anchored=True):
        """Runs ``callback(*args)`` on behalf of ``tuples``: anchors emits to them, reports an
        exception, then acks (or fails) those the callback did not ack or fail itself."""
        self._current_anchors = [t.id for t in tuples] if anchored else None
        self._settled = set()
        try:
            callback(*args)
        except Exception:
            self.report_error(traceback.format_exc())
            if self.auto_fail:
                self._settle(tuples, self.fail)
        else:
            if self.auto_ack:
                self._settle(tuples, self.ack)
        finally:
            self._current_anchors = None

    def _settle(self, tuples, how):
        settled = self._settled
        for tup in tuples:
            if tup.id not in settled:
                how(tup)

    def _on_main_thread(self):
        return threading.get_ident() == self._main_thread
