"""Spouts: synchronous components that emit on demand."""

import collections
import threading
import traceback

from .component import Component
from .protocol import HostGone
from .watchdog import Watchdog

__all__ = ["Spout"]

_SYNC = {"command": "sync"}
_HOOK_NAMES = {"next": "next_tuple()", "ack": "ack()", "fail": "fail()",
               "activate": "activate()", "deactivate": "deactivate()"}


class Spout(Component):
    """Answers each host command (next, ack, fail, activate, deactivate) by running the
    matching hook and then sending exactly one ``sync``. An exception in a hook is reported
    as an error and the spout keeps running."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._deferred = collections.deque()  # commands read while awaiting a task-id reply

    # ----------------------------------------------------------------- hooks
    def next_tuple(self):
        """Emit zero or more tuples. Called for each ``next`` command."""

    def ack(self, tup_id):
        """The tuple tree of the tuple emitted with ``tup_id`` completed."""

    def fail(self, tup_id):
        """The tuple emitted with ``tup_id`` failed or timed out."""

    def activate(self):
        """The topology was activated."""

    def deactivate(self):
        """The topology was deactivated: ``next`` will not be sent until reactivated."""

    # ----------------------------------------------------------------- public API
    def emit(self, values, tup_id=None, stream=None, direct_task=None, need_task_ids=True):
        """Emits ``values`` (a list) on ``stream`` (default "default").

        ``tup_id``: the message id (any value the host's format carries: a JSON value, or
        for MessagePack also bytes) echoed back in ``ack``/``fail``; None
        emits an unreliable tuple. ``direct_task``: emit directly to that task. Returns the
        receiving task ids, or None for a direct emit or when ``need_task_ids`` is false.
        """
        message = self._emit_message(values, stream, direct_task, need_task_ids)
        if tup_id is not None:
            message["id"] = tup_id
        writer = self._writer
        if writer is not None and "need_task_ids" in message:
            # No reply to wait for (the common case, inlined: it runs once per tuple). Output
            # of the protocol thread may be held (see protocol.py), as in Component._send.
            writer.send(message, hold=threading.get_ident() == self._protocol_thread)
            return None
        return self._send_emit(message)

    # ----------------------------------------------------------------- the loop
    def _loop(self):
        handlers = {
            "ack": lambda message: self._on_ack(message.get("id")),
            "fail": lambda message: self._on_fail(message.get("id")),
            "activate": lambda message: self.activate(),
            "deactivate": lambda message: self.deactivate(),
        }
        deferred = self._deferred
        read = self._reader.read_message
        send = self._writer.send
        while True:
            message = deferred.popleft() if deferred else read()
            if message is None:
                return
            if isinstance(message, list):
                self.log("ignoring a task-id reply no emit was waiting for: %r" % (message,),
                         "warn")
                continue
            command = message.get("command")
            # `next` first, without a handler lookup: it comes once per tuple.
            if command == "next":
                try:
                    self._on_next()
                except Exception:
                    self.report_error("next_tuple() failed:\n%s" % traceback.format_exc())
            elif message.get("stream") == "__heartbeat":
                send(_SYNC, hold=True)
                continue
            else:
                handler = handlers.get(command)
                if handler is None:
                    self.log("ignoring unknown command %r" % (command,), "warn")
                else:
                    try:
                        handler(message)
                    except Exception:
                        self.report_error("%s failed:\n%s" % (_HOOK_NAMES[command],
                                                              traceback.format_exc()))
            # This loop is the protocol thread: its output may be held (see protocol.py).
            send(_SYNC, hold=True)

    def _start(self):
        # Answers held for a burst of commands go out while a slow hook runs (see watchdog.py).
        Watchdog(self).start()

    def _on_next(self):
        self.next_tuple()

    def _on_ack(self, tup_id):
        self.ack(tup_id)

    def _on_fail(self, tup_id):
        self.fail(tup_id)

    def _await_task_ids(self):
        # The host writes the reply right after the emit; anything else is kept for later.
        while True:
            message = self._reader.read_message()
            if message is None:
                raise HostGone("host closed the component's stdin")
            if isinstance(message, list):
                return [int(task) for task in message]
            self._deferred.append(message)
