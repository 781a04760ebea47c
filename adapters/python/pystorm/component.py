"""pystorm.component as sparse provides it."""

from sparse_multilang.pystorm_api import Component, StormHandler, Tuple  # noqa: F401
