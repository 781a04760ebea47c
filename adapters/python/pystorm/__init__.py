"""The sparse stand-in for pystorm (see sparse_multilang/compat.py): the real package when the
interpreter has it, else pystorm's component API on sparse_multilang."""

from sparse_multilang.compat import load_real as _load_real

if _load_real(__name__, __file__) is None:
    from sparse_multilang.pystorm_api import (  # noqa: F401
        BatchingBolt, Bolt, Component, ReliableSpout, Spout, StormHandler,
        TicklessBatchingBolt, Tuple)

    __version__ = "4.0.0+sparse"
