"""streamparse.spout as sparse provides it."""

from sparse_multilang.streamparse_dsl import JavaSpout, ReliableSpout, ShellSpout, Spout  # noqa: F401
