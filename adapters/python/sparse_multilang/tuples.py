"""The tuple a bolt receives."""

from collections import namedtuple

__all__ = ["Tuple"]


class Tuple(namedtuple("Tuple", "id component stream task values")):
    """A tuple received by a bolt: ``id`` (the host's string id, echoed in ack/fail),
    ``component`` and ``stream`` it came from, source ``task`` and ``values`` (a list)."""

    __slots__ = ()

    @property
    def is_tick(self):
        return self.component == "__system" and self.stream == "__tick"

    @property
    def is_heartbeat(self):
        return self.task == -1 and self.stream == "__heartbeat"

    @classmethod
    def from_message(cls, message):
        return cls(
            message.get("id"),
            message.get("comp"),
            message.get("stream"),
            message.get("task"),
            message.get("tuple", []),
        )
