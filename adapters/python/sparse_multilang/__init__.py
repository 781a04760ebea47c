"""sparse_multilang: write Storm multilang components (bolts and spouts) in Python.

Standard library only; speaks JSON (Storm's serializer) and, when the host does and the
``msgpack`` package is installed, MessagePack. Components run under sparse and under Apache
Storm alike::

    from sparse_multilang import Bolt

    class Upper(Bolt):
        def process(self, tup):
            self.emit([tup.values[0].upper()])

    if __name__ == "__main__":
        Upper().run()

or ``python3 -m sparse_multilang.run module:Class``.
"""

from .batching import BatchingBolt
from .bolt import Bolt
from .component import Component
from .logs import LOG_LEVELS
from .protocol import HostGone, ProtocolError, SerializerUnavailable
from .reliable_spout import ReliableSpout
from .spout import Spout
from .tuples import Tuple

__all__ = [
    "BatchingBolt",
    "Bolt",
    "Component",
    "HostGone",
    "LOG_LEVELS",
    "ProtocolError",
    "ReliableSpout",
    "SerializerUnavailable",
    "Spout",
    "Tuple",
]

__version__ = "0.1.0"
