"""The exceptions that end a component's conversation with its host."""

__all__ = ["ProtocolError", "HostGone", "SerializerUnavailable"]


class ProtocolError(Exception):
    """The host sent something that is not a well-formed multilang message."""


class HostGone(BaseException):
    """The host closed our stdin or stdout: the component must stop.

    A BaseException so that user code's ``except Exception`` cannot swallow a shutdown.
    """


class SerializerUnavailable(Exception):
    """The host speaks a format this Python cannot speak (MessagePack without ``msgpack``)."""
