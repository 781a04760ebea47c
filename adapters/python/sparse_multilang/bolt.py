"""Bolts: asynchronous components that receive tuples."""

import collections
import threading
import traceback

from .component import Component
from .protocol import HostGone, ProtocolError
from .tuples import Tuple
from .watchdog import Watchdog

__all__ = ["Bolt"]

_SYNC = {"command": "sync"}


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
        self._stash = collections.deque()  # tuples read while waiting for task ids
        self._busy = False  # main thread inside initialize() or a callback
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
        if (not need_task_ids and direct_task is None and anchors is None
                and type(values) is list and (stream is None or type(stream) is str)):
            # The emit a bolt makes most (once per tuple in a pipeline), written from the
            # format's template: the same bytes as the general path below gives it.
            writer = self._writer
            if writer is not None and threading.get_ident() == self._main_thread:
                writer.send_emit("default" if stream is None else stream, values,
                                 self._current_anchors if self.auto_anchor else None, hold=True)
                return None
        message = self._emit_message(values, stream, direct_task, need_task_ids)
        on_main_thread = threading.get_ident() == self._main_thread
        if anchors is None:
            if self.auto_anchor and on_main_thread:
                anchors = self._current_anchors  # already a list of ids
                if anchors is not None:
                    message["anchors"] = anchors
        else:
            if isinstance(anchors, (str, Tuple)):
                anchors = [anchors]
            message["anchors"] = [_tuple_id(anchor) for anchor in anchors]
        # Only the main thread reads the protocol; emits from other threads get no task ids.
        if not on_main_thread:
            message["need_task_ids"] = False
        elif "need_task_ids" not in message:
            return super()._send_emit(message)
        writer = self._writer
        if writer is None:  # not connected: _send says so
            return super()._send_emit(message)
        # The common case, inlined (it runs once per emit): no reply to wait for.
        writer.send(message, hold=on_main_thread)
        return None

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
        self._own_ack = type(self).ack is Bolt.ack
        # A subclass that wraps _run_callback (the pystorm API's exit_on_exception) must see every
        # tuple go through it: the inlined path below is only for the plain case.
        self._own_run_callback = type(self)._run_callback is Bolt._run_callback
        self._main_thread = threading.get_ident()
        self._busy = True  # initialize() runs next
        Watchdog(self, keep_alive=True).start()

    def _loop(self):
        self._busy = False
        stash = self._stash
        read = self._reader.read_message
        send = self._writer.send
        from_message = Tuple.from_message
        while True:
            # Inlined _next_tuple_message: this loop runs once per tuple.
            if stash:
                message = stash.popleft()
            else:
                message = read()
                if message is None:
                    return
                if not isinstance(message, dict):
                    raise ProtocolError("unexpected message %.200r" % (message,))
                if message.get("stream") == "__heartbeat":
                    send(_SYNC, hold=True)
                    continue
            tup = from_message(message)
            if tup.is_tick:
                self._handle_tick(tup)
            else:
                self._handle_tuple(tup)

    def _read(self):
        """The next message that is not a heartbeat (answered here); HostGone at EOF."""
        while True:
            message = self._reader.read_message()
            if message is None:
                raise HostGone("host closed the component's stdin")
            if isinstance(message, dict) and message.get("stream") == "__heartbeat":
                self._send(_SYNC)
                continue
            return message

    def _await_task_ids(self):
        # Replies come in emit order, interleaved with tuples: keep the tuples for later.
        while True:
            message = self._read()
            if isinstance(message, list):
                return [int(task) for task in message]
            self._stash.append(message)

    def _send_emit(self, message):
        # Only the main thread reads the protocol; emits from other threads get no task ids.
        if not self._on_main_thread():
            message["need_task_ids"] = False
        return super()._send_emit(message)

    def _handle_tuple(self, tup):
        if not self._own_run_callback:
            self._run_callback([tup], self.process, tup)
            return
        # _run_callback([tup], self.process, tup), inlined: it runs once per tuple.
        tup_id = tup.id
        self._current_anchors = [tup_id]
        settled = self._settled
        if settled:
            self._settled = settled = set()
        self._busy = True
        try:
            self.process(tup)
        except Exception:
            self.report_error(traceback.format_exc())
            if self.auto_fail and tup_id not in settled:
                self.fail(tup)
        else:
            if self.auto_ack and tup_id not in settled:
                if self._own_ack:  # ack() not overridden: what it would send, sent directly
                    self._writer.send_ack(tup_id, hold=True)
                else:
                    self.ack(tup)
        finally:
            self._current_anchors = None
            self._busy = False

    def _handle_tick(self, tup):
        freq = tup.values[0] if tup.values else None
        self._run_callback([tup], self.process_tick, freq, anchored=False)

    def _run_callback(self, tuples, callback, *args, anchored=True):
        """Runs ``callback(*args)`` on behalf of ``tuples``: anchors emits to them, reports an
        exception, then acks (or fails) those the callback did not ack or fail itself."""
        self._current_anchors = [t.id for t in tuples] if anchored else None
        if self._settled:
            self._settled = set()
        self._busy = True
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
            self._busy = False

    def _settle(self, tuples, how):
        settled = self._settled
        for tup in tuples:
            if tup.id not in settled:
                how(tup)

    def _on_main_thread(self):
        return threading.get_ident() == self._main_thread
