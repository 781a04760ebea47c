"""streamparse.dsl as sparse provides it (Grouping, Stream, Topology)."""

from sparse_multilang.streamparse_dsl import Grouping, Stream, Topology  # noqa: F401
