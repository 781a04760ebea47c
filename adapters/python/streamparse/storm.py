"""streamparse.storm as sparse provides it: the classes, and the first streamparse API, which
mirrored Storm's storm.py with module-level functions acting on the running component::

    from streamparse import storm

    class Words(storm.Spout):
        def next_tuple(self):
            storm.emit(["word"])

    Words().run()

(streamparse 1.0 removed these functions; they work with sparse's stand-in only.)
"""

import sys

from sparse_multilang import pystorm_api
from sparse_multilang.pystorm_api import running_component
from sparse_multilang.streamparse_dsl import (  # noqa: F401
    BatchingBolt, Bolt, JavaBolt, JavaSpout, ReliableSpout, ShellBolt, ShellSpout, Spout,
    StormHandler, TicklessBatchingBolt, Tuple)

BasicBolt = Bolt  # storm.py's auto-acking bolt; sparse's Bolt acks and anchors by default


def _component(what):
    component = running_component()
    if component is None:
        raise RuntimeError("storm.%s() called before the component's run() connected to the "
                           "host" % what)
    return component


def emit(tup, stream=None, anchors=None, id=None, directTask=None, **kwargs):
    """Emits from the running spout (``id`` = its message id) or bolt."""
    component = _component("emit")
    if isinstance(component, pystorm_api.Spout):
        return component.emit(tup, tup_id=kwargs.pop("tup_id", id), stream=stream,
                              direct_task=kwargs.pop("direct_task", directTask), **kwargs)
    return component.emit(tup, stream=stream, anchors=anchors,
                          direct_task=kwargs.pop("direct_task", directTask), **kwargs)


def emitDirect(task, *args, **kwargs):
    kwargs["directTask"] = task
    return emit(*args, **kwargs)


def ack(tup):
    _component("ack").ack(tup)


def fail(tup):
    _component("fail").fail(tup)


def reportError(msg):
    _component("reportError").report_error(msg)


def log(msg, level=2):
    """Logs through the running component; before it runs, to stderr."""
    component = running_component()
    if component is None:
        sys.stderr.write("%s\n" % msg)
        return
    component.log(msg, level)
