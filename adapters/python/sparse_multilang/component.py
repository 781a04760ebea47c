"""The base of every component: handshake, logging, error reporting, emitting."""

import logging
import os
import sys
import threading
import traceback

from . import stdio
from .logs import MultilangLogHandler, log_level_number
from .protocol import (HostGone, MessageWriter, ProtocolError, SerializerUnavailable,
                       open_reader)

__all__ = ["Component"]

_MAX_LOG_BACKLOG = 1000
# Protocol level number -> logging level, for Component.log_level.
_PYTHON_LEVELS = {0: 5, 1: logging.DEBUG, 2: logging.INFO, 3: logging.WARNING, 4: logging.ERROR}


class Component:
    """Base class of Bolt and Spout. Subclasses implement ``_loop`` and ``_await_task_ids``.

    ``run()`` takes over the process's stdin/stdout (see ``stdio``), performs the handshake,
    calls ``initialize(conf, context)`` and then serves the host until it closes stdin.
    Pass ``input_stream``/``output_stream`` (binary file objects) to speak the protocol on
    other streams; the process's stdio is then left alone.
    """

    #: Level of ``self.logger``: a name (trace, debug, info, warn, error) or a number 0..4.
    log_level = "info"

    def __init__(self, input_stream=None, output_stream=None):
        self.conf = {}
        self.context = {}
        self.task_id = None
        self.component_name = None
        self.pid = os.getpid()
        self._input_stream = input_stream
        self._output_stream = output_stream
        self._reader = None
        self._writer = None
        self._connected = False
        self._log_backlog = []
        self._emit_lock = threading.Lock()  # one reply-awaiting emit at a time
        self._protocol_thread = None  # the thread that reads the protocol (and may hold output)
        self.logger = self._make_logger()

    # ----------------------------------------------------------------- hooks
    def initialize(self, conf, context):
        """Called once after the handshake, before the first tuple or command."""

    # ----------------------------------------------------------------- public API
    @property
    def serializer(self):
        """The format the host speaks: "json" or "msgpack" (None before the handshake)."""
        return self._reader.serializer.name if self._reader is not None else None

    def log(self, msg, level="info"):
        """Sends a ``log`` command. ``level``: trace, debug, info, warn, error, or 0..4."""
        message = {"command": "log", "msg": str(msg), "level": log_level_number(level)}
        if not self._connected:
            if len(self._log_backlog) < _MAX_LOG_BACKLOG:
                self._log_backlog.append(message)
            return
        self._send(message)

    def report_error(self, msg):
        """Sends an ``error`` command: reported as this component's error; it keeps running."""
        if not self._connected:
            sys.stderr.write("error: %s\n" % msg)
            return
        self._send({"command": "error", "msg": str(msg)})

    def emit(self, values, stream=None, anchors=None, direct_task=None, need_task_ids=True):
        """Emits a tuple. Returns the receiving task ids, or None for a direct emit or
        ``need_task_ids=False``. Subclasses refine the arguments."""
        message = self._emit_message(values, stream, direct_task, need_task_ids)
        if anchors is not None:
            message["anchors"] = list(anchors)
        return self._send_emit(message)

    def run(self):
        """Serves the host until it closes stdin (returns), or exits the process on a fatal
        error: 1 when ``initialize`` raised or the host broke the protocol."""
        try:
            self._connect()
            self._start()
            try:
                self.initialize(self.conf, self.context)
            except Exception:
                self.report_error("initialize() failed:\n" + traceback.format_exc())
                raise SystemExit(1)
            self._writer.flush()  # what initialize() logged
            self._loop()
        except HostGone:
            pass
        except SerializerUnavailable as exc:
            # Nothing goes to the host: this process cannot write the host's format.
            sys.stderr.write("sparse_multilang: %s\n" % exc)
            raise SystemExit(1)
        except ProtocolError as exc:
            sys.stderr.write("sparse_multilang: protocol error: %s\n" % exc)
            if self._connected:  # before the handshake, stderr is all there is
                try:
                    self.report_error("protocol error: %s" % exc)
                except (Exception, HostGone):
                    pass
            raise SystemExit(1)
        except KeyboardInterrupt:
            raise SystemExit(130)
        finally:
            self._disconnect()

    # ----------------------------------------------------------------- for subclasses
    def _start(self):
        """Called after the handshake, before ``initialize``."""

    def _loop(self):
        raise NotImplementedError

    def _await_task_ids(self):
        """Returns the next task-id reply (a list of ints); raises HostGone at end of input."""
        raise NotImplementedError

    def _send(self, message):
        if self._writer is None:
            raise RuntimeError("%s is not connected to a host: call run() first"
                               % type(self).__name__)
        # What the protocol thread writes answers what it read: it may wait for the rest of the
        # burst (flushed before the next blocking read). Other threads' messages go out at once.
        self._writer.send(message, hold=threading.get_ident() == self._protocol_thread)

    def _emit_message(self, values, stream, direct_task, need_task_ids):
        if isinstance(values, tuple):
            values = list(values)
        elif not isinstance(values, list):
            raise TypeError("emit() values must be a list or tuple, not %s"
                            % type(values).__name__)
        if stream is None:
            stream = "default"
        elif not isinstance(stream, str):
            raise TypeError("emit() stream must be a str, not %s" % type(stream).__name__)
        message = {"command": "emit", "stream": stream, "tuple": values}
        if direct_task is not None:
            if isinstance(direct_task, bool) or not isinstance(direct_task, int):
                raise TypeError("emit() direct_task must be an int")
            if direct_task == 0:
                # Storm reads task 0 as "not direct" and would then send a task-id reply.
                raise ValueError("emit() direct_task must not be 0")
            message["task"] = int(direct_task)
        if direct_task is not None or not need_task_ids:
            message["need_task_ids"] = False
        return message

    def _send_emit(self, message):
        if message.get("need_task_ids", True) is not False:
            with self._emit_lock:  # replies come in emit order: keep write+wait together
                self._send(message)
                return self._await_task_ids()
        self._send(message)
        return None

    # ----------------------------------------------------------------- internals
    def _make_logger(self):
        cls = type(self)
        logger = logging.getLogger("sparse_multilang.components.%s.%s"
                                   % (cls.__module__, cls.__qualname__))
        logger.propagate = False
        logger.setLevel(_PYTHON_LEVELS[log_level_number(self.log_level)])
        for handler in list(logger.handlers):
            if isinstance(handler, MultilangLogHandler):
                logger.removeHandler(handler)
        logger.addHandler(MultilangLogHandler(self.log))
        return logger

    def _connect(self):
        if self._input_stream is None or self._output_stream is None:
            stdin, stdout = stdio.take_over_stdio()
            self._input_stream = self._input_stream or stdin
            self._output_stream = self._output_stream or stdout
        self._writer = MessageWriter(self._output_stream)
        self._protocol_thread = threading.get_ident()
        # The first message tells the host's format; the writer answers in it from then on.
        reader = open_reader(self._input_stream, before_wait=self._writer.flush)
        if reader is None:
            raise HostGone("stdin closed before the handshake")
        self._writer.use(reader.serializer)
        self._reader = reader
        self._handshake()

    def _handshake(self):
        setup = self._reader.read_message()
        if setup is None:
            raise HostGone("stdin closed before the handshake")
        if not isinstance(setup, dict) or "pidDir" not in setup:
            raise ProtocolError("expected the handshake {pidDir, conf, context}, got %.200r"
                                % (setup,))
        self.conf = setup.get("conf") or {}
        self.context = setup.get("context") or {}
        self.task_id = self.context.get("taskid")
        self.component_name = self.context.get("componentid")
        pid_file_problem = self._write_pid_file(setup.get("pidDir"))
        self._send({"pid": self.pid})
        self._connected = True
        backlog, self._log_backlog = self._log_backlog, []
        for message in backlog:
            self._send(message)
        sink = stdio.print_sink()
        if sink is not None:
            sink.attach(self.log)
        if pid_file_problem:
            self.log(pid_file_problem, "warn")
        self._writer.flush()  # the host waits for the pid; initialize() may take a while

    def _write_pid_file(self, pid_dir):
        if not pid_dir:
            return None
        path = os.path.join(pid_dir, str(self.pid))
        try:
            with open(path, "w"):
                pass
        except OSError as exc:
            return "could not create the pid file %s: %s" % (path, exc)
        return None

    def _disconnect(self):
        if self._writer is not None:
            try:
                self._writer.flush()
            except HostGone:
                pass
        sink = stdio.print_sink()
        if sink is not None:
            sink.flush()
            sink.detach()
        self._connected = False
