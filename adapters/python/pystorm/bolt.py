"""pystorm.bolt as sparse provides it."""

from sparse_multilang.pystorm_api import BatchingBolt, Bolt, TicklessBatchingBolt  # noqa: F401
