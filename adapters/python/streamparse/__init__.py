"""The sparse stand-in for streamparse (see sparse_multilang/compat.py): the real package when
the interpreter has it, else streamparse's DSL and component classes on sparse_multilang."""

from sparse_multilang.compat import load_real as _load_real

if _load_real(__name__, __file__) is None:
    from sparse_multilang.streamparse_dsl import (  # noqa: F401
        BatchingBolt, Bolt, Grouping, JavaBolt, JavaSpout, ReliableSpout, ShellBolt,
        ShellSpout, Spout, StormHandler, Stream, TicklessBatchingBolt, Topology, Tuple)

    __version__ = "5.0.1+sparse"
    VERSION = (5, 0, 1)
