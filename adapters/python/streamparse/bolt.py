"""streamparse.bolt as sparse provides it."""

from sparse_multilang.streamparse_dsl import (  # noqa: F401
    BatchingBolt, Bolt, JavaBolt, ShellBolt, TicklessBatchingBolt)
