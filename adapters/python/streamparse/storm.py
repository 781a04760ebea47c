"""streamparse.storm as sparse provides it."""

from sparse_multilang.streamparse_dsl import (  # noqa: F401
    BatchingBolt, Bolt, JavaBolt, JavaSpout, ReliableSpout, ShellBolt, ShellSpout, Spout,
    StormHandler, TicklessBatchingBolt, Tuple)
