"""pystorm.spout as sparse provides it."""

from sparse_multilang.pystorm_api import ReliableSpout, Spout  # noqa: F401
