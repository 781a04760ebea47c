"""Log levels of the multilang ``log`` command and a logging handler that sends them."""

import logging

__all__ = ["LOG_LEVELS", "log_level_number", "MultilangLogHandler"]

# Storm's levels: 0 TRACE, 1 DEBUG, 2 INFO, 3 WARN, 4 ERROR.
LOG_LEVELS = {
    "trace": 0,
    "debug": 1,
    "info": 2,
    "warn": 3,
    "warning": 3,
    "error": 4,
    "critical": 4,
}


def log_level_number(level):
    """Maps a level name (any case) or a number 0..4 to the protocol's level number."""
    if isinstance(level, bool):
        raise TypeError("log level must be a name or an int, not a bool")
    if isinstance(level, int):
        if 0 <= level <= 4:
            return level
        raise ValueError("log level %d is outside 0..4" % level)
    if isinstance(level, str):
        try:
            return LOG_LEVELS[level.strip().lower()]
        except KeyError:
            raise ValueError("unknown log level %r (one of %s)"
                             % (level, ", ".join(sorted(LOG_LEVELS)))) from None
    raise TypeError("log level must be a name or an int, not %s" % type(level).__name__)


def python_level_number(levelno):
    """Maps a ``logging`` level (DEBUG=10, ...) to the protocol's level number."""
    if levelno >= logging.ERROR:
        return 4
    if levelno >= logging.WARNING:
        return 3
    if levelno >= logging.INFO:
        return 2
    if levelno >= logging.DEBUG:
        return 1
    return 0


class MultilangLogHandler(logging.Handler):
    """Sends every record as a ``log`` command through ``send_log(msg, level_number)``."""

    def __init__(self, send_log):
        super().__init__()
        self._send_log = send_log

    def emit(self, record):
        try:
            self._send_log(self.format(record), python_level_number(record.levelno))
        except Exception:
            self.handleError(record)
