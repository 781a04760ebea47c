"""A thread that keeps a component's output moving while its main thread is inside a callback.

It flushes output the main thread held back (see protocol.HOLD_SECONDS) once it is that old, so
the answers to earlier commands do not wait for a slow ``process`` or ``next_tuple`` call behind
them: the host would see nothing from a spout that is working, and take it for stuck.

With ``keep_alive`` (bolts): while the main thread is inside ``initialize`` or a callback
(``component._busy``) and has written nothing for ``period`` seconds, it also writes
``{"command": "sync"}``. The host counts any message from a bolt as a sign of life (Storm's
ShellBolt does too), so a long ``process`` call is not mistaken for a dead process, while a truly
stuck one (or one whose main thread never returns to the protocol) still stops answering
heartbeats in time. A spout must not: each of its syncs answers one command.

The thread only writes, through the shared writer's lock; all reading stays on the main thread,
so the hot path has no thread hand-off.
"""

import threading
import time

from .protocol import HOLD_SECONDS, HostGone

__all__ = ["Watchdog"]

_SYNC = {"command": "sync"}


class Watchdog:
    def __init__(self, component, keep_alive=False, period=1.0):
        self._component = component
        self._keep_alive = keep_alive
        self._period = period
        self._thread = threading.Thread(target=self._run, name="sparse-multilang-watchdog",
                                        daemon=True)

    def start(self):
        self._thread.start()

    def _run(self):
        component = self._component
        while True:
            time.sleep(HOLD_SECONDS)
            writer = component._writer
            if writer is None:
                continue
            try:
                held_since = writer.held_since
                if held_since is not None and time.monotonic() - held_since >= HOLD_SECONDS:
                    writer.flush()
                if (self._keep_alive and component._busy
                        and time.monotonic() - writer.last_write >= self._period):
                    component._send(_SYNC)
            except (Exception, HostGone):
                return
