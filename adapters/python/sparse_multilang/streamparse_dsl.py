"""streamparse's topology DSL and component classes, standard library only.

sparse uses it in two places:

* to read ``topologies/*.py`` of a streamparse project (streamparse_topology.py evaluates the
  file with these classes standing in for streamparse's, and prints the topology as JSON);
* as the ``streamparse`` module components import when the real package is not installed
  (the ``streamparse`` folder next to sparse_multilang re-exports this module).

The facts follow streamparse 5: a ``Topology`` subclass holds specs as class attributes (the
attribute name is the component name unless ``name=`` is given); ``Bolt.spec(name, inputs,
par, config)`` and ``Spout.spec(name, par, config)`` run ``streamparse_run module.Class``;
``ShellBolt.spec``/``ShellSpout.spec`` take ``command`` and ``script`` (arguments separated by
spaces); ``inputs`` is a list of specs or ``spec["stream"]`` (shuffle, or direct when the
spec's default stream is direct) or a dict of those to groupings; ``par`` is an int or a dict
of environment name to int; ``outputs`` are field names (the default stream) or ``Stream``s.
A spec remembers the file and line it was made on, for error messages.
"""

import os
import sys

from . import pystorm_api

__all__ = ["BatchingBolt", "Bolt", "ComponentSpec", "GlobalStreamId", "Grouping", "JavaBolt",
           "JavaSpout", "ReliableSpout", "ShellBolt", "ShellSpout", "Spout", "Stream",
           "StormHandler", "TicklessBatchingBolt", "Topology", "Tuple"]

_HERE = os.path.dirname(os.path.abspath(__file__))


def _caller_location():
    """(file, line) of the nearest frame outside sparse's own modules: where a spec was made."""
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_HERE + os.sep):
            return path, frame.f_lineno
        frame = frame.f_back
    return None, 0


class Stream:
    """An output stream: ``fields``, ``name`` (default "default"), ``direct``."""

    def __init__(self, fields=None, name="default", direct=False):
        if fields is None:
            fields = []
        elif isinstance(fields, (list, tuple)):
            fields = list(fields)
            for field in fields:
                if not isinstance(field, str):
                    raise TypeError("All field names must be strings; given: %r" % (field,))
        else:
            raise TypeError("Stream fields must be a list, tuple, or None; given: %r" % (fields,))
        if not isinstance(name, str):
            raise TypeError("Stream name must be a string; given: %r" % (name,))
        if not isinstance(direct, bool):
            raise TypeError('"direct" must be either True or False; given: %r' % (direct,))
        self.fields = fields
        self.name = name
        self.direct = direct


class _Grouping:
    """One grouping: ``kind`` as sparse names it, ``fields`` for a fields grouping."""

    __slots__ = ("kind", "fields")

    def __init__(self, kind, fields=None):
        self.kind = kind
        self.fields = fields

    def __repr__(self):
        return "fields(%r)" % (self.fields,) if self.kind == "fields" else self.kind.upper()


class Grouping:
    """How a stream's tuples are spread over a bolt's tasks (Storm's groupings)."""

    __slots__ = ()

    SHUFFLE = _Grouping("shuffle")
    GLOBAL = _Grouping("global")
    DIRECT = _Grouping("direct")
    ALL = _Grouping("all")
    NONE = _Grouping("none")
    LOCAL_OR_SHUFFLE = _Grouping("local_or_shuffle")

    @classmethod
    def fields(cls, *fields):
        if len(fields) == 1 and isinstance(fields[0], (list, tuple)):
            fields = list(fields[0])
        else:
            fields = list(fields)
        if not fields:
            raise ValueError("List cannot be empty for fields grouping")
        return _Grouping("fields", fields)

    @classmethod
    def custom_object(cls, java_class_name, arg_list):
        raise ValueError("Grouping.custom_object(%r): custom groupings are Java classes, which "
                         "sparse cannot run; use fields, shuffle, all, global, direct or "
                         "local_or_shuffle" % (java_class_name,))

    @classmethod
    def custom_serialized(cls, java_serialized):
        raise ValueError("Grouping.custom_serialized: custom groupings are Java classes, which "
                         "sparse cannot run")


class GlobalStreamId:
    """A component's stream, as an input: ``spec["stream"]``."""

    def __init__(self, componentId=None, streamId="default"):
        self.componentId = componentId
        self.streamId = streamId


class ComponentSpec:
    """A component in a topology: what ``X.spec(...)`` returns."""

    kind = None  # "spout" or "bolt"

    def __init__(self, component_cls, name=None, command=None, script=None, inputs=None,
                 par=1, config=None, outputs=None, java_class=None):
        self.file, self.line = _caller_location()
        self.component_cls = component_cls
        self.name = name
        self.command = command
        self.script = script
        self.java_class = java_class
        self.par = self._par(component_cls, par)
        self.config = self._config(component_cls, config)
        self.outputs = self._outputs(component_cls, outputs)
        self.inputs = self._inputs(inputs)
        if java_class is None:
            if not command:
                raise ValueError("command is required")
            if script is None:
                raise TypeError("script must not be None.  If your command does not take "
                                "arguments, specify the empty string for script.")

    @staticmethod
    def _par(component_cls, par):
        if par is None:
            par = getattr(component_cls, "par", 1)
        if isinstance(par, dict):
            for env, hint in par.items():
                if not (isinstance(env, str) and isinstance(hint, int)):
                    raise TypeError("If par is a dict, it must map from environment names to "
                                    "integers. Given: %r: %r" % (env, hint))
                if hint < 1:
                    raise ValueError("Parallelism hint for stage %s must be an integer greater "
                                     "than 0. Given: %r" % (env, hint))
        elif isinstance(par, bool) or not isinstance(par, int):
            raise TypeError("Parallelism hint must be an integer greater than 0. Given: %r"
                            % (par,))
        elif par < 1:
            raise ValueError("Parallelism hint must be an integer greater than 0. Given: %r"
                             % (par,))
        return par

    @staticmethod
    def _config(component_cls, config):
        if config is None:
            config = getattr(component_cls, "config", None)
        if config is None:
            return {}
        if not isinstance(config, dict):
            raise TypeError("Config must either be a dict or None.  Given: %r" % (config,))
        return dict(config)

    @staticmethod
    def _outputs(component_cls, outputs):
        if outputs is None:
            outputs = getattr(component_cls, "outputs", None)
        if outputs is None:
            outputs = []
        if not isinstance(outputs, (list, tuple)):
            raise TypeError("Outputs must either be a list of strings or a list of Streams.  "
                            "Given: %r" % (outputs,))
        streams = {}
        for output in outputs:
            if isinstance(output, Stream):
                streams[output.name] = Stream(output.fields, output.name, output.direct)
            elif isinstance(output, str):
                streams.setdefault("default", Stream([], "default")).fields.append(output)
            else:
                raise TypeError("Outputs must either be a list of strings or a list of "
                                "Streams.  Invalid entry: %r" % (output,))
        return streams

    def _inputs(self, inputs):
        """A list of (GlobalStreamId, grouping) in the order given."""
        if inputs is None:
            return []
        if isinstance(inputs, (ComponentSpec, GlobalStreamId)):
            inputs = [inputs]
        result = []
        if isinstance(inputs, dict):
            for key, grouping in inputs.items():
                if isinstance(key, ComponentSpec):
                    key = key["default"]
                if not isinstance(key, GlobalStreamId):
                    raise TypeError("If inputs is a dict, it is expected to map from "
                                    "spec['stream'] or specs to Groupings.  Given key: %r"
                                    % (key,))
                if not isinstance(grouping, _Grouping):
                    raise TypeError("If inputs is a dict, its values must be Groupings (e.g. "
                                    "Grouping.fields('word')).  Given: %r" % (grouping,))
                result.append((key, grouping))
        elif isinstance(inputs, (list, tuple)):
            for spec in inputs:
                if isinstance(spec, ComponentSpec):
                    default = spec.outputs.get("default")
                    grouping = Grouping.DIRECT if default is not None and default.direct \
                        else Grouping.SHUFFLE
                    result.append((GlobalStreamId(spec, "default"), grouping))
                elif isinstance(spec, GlobalStreamId):
                    result.append((spec, Grouping.SHUFFLE))
                else:
                    raise TypeError("Inputs must be specs or spec['stream'].  Given: %r"
                                    % (spec,))
        else:
            raise TypeError("Inputs must either be a list, dict, or None.  Given: %r"
                            % (inputs,))
        return result

    def __getitem__(self, stream):
        if stream not in self.outputs:
            raise KeyError("Invalid stream for %s: %r. Valid streams are: %s"
                           % (self.name or self.component_cls.__name__, stream,
                              list(self.outputs)))
        return GlobalStreamId(self, stream)

    # Specs are dict keys in ``inputs={spec: grouping}``.
    __hash__ = object.__hash__


class ShellBoltSpec(ComponentSpec):
    kind = "bolt"


class ShellSpoutSpec(ComponentSpec):
    kind = "spout"


class JavaBoltSpec(ShellBoltSpec):
    pass


class JavaSpoutSpec(ShellSpoutSpec):
    pass


def _spec_error(spec, message):
    """A ValueError that names where ``spec`` was made (streamparse_topology reports it)."""
    error = ValueError(message)
    error.sparse_location = (spec.file, spec.line)
    return error


class TopologyType(type):
    """Collects the specs of a Topology subclass, names them, and checks them as streamparse
    does: bolts need inputs, spouts outputs, a fields grouping only known fields."""

    def __new__(mcs, classname, bases, class_dict):
        specs = {}
        for attr, spec in list(class_dict.items()):
            if isinstance(spec, ComponentSpec):
                if spec.name is None:
                    spec.name = attr
                if spec.name in specs:
                    raise _spec_error(spec, "Duplicate component name: %s" % spec.name)
                specs[spec.name] = spec
        is_base = classname == "Topology" and not bases
        spouts = [s for s in specs.values() if s.kind == "spout"]
        for spec in specs.values():
            if spec.kind == "bolt" and not spec.inputs:
                raise _spec_error(spec, '%s "%s" requires at least one input, because it is a Bolt.'
                                 % (spec.component_cls.__name__, spec.name))
            if spec.kind == "spout" and not spec.outputs:
                raise _spec_error(spec, '%s "%s" requires at least one output, because it is a Spout'
                                 % (spec.component_cls.__name__, spec.name))
            for stream_id, grouping in spec.inputs:
                source = stream_id.componentId
                if isinstance(source, ComponentSpec):
                    source = source.name
                    stream_id.componentId = source
                if source not in specs:
                    raise _spec_error(spec, "%s takes input from %r, which is not a component of "
                                     "this topology" % (spec.name, source))
                outputs = specs[source].outputs
                if stream_id.streamId not in outputs:
                    raise _spec_error(spec, "%s takes input from stream %r of %s, which declares %s"
                                     % (spec.name, stream_id.streamId, source, list(outputs)))
                if grouping.kind == "fields":
                    valid = set(outputs[stream_id.streamId].fields)
                    for field in grouping.fields:
                        if field not in valid:
                            raise _spec_error(spec, "Field %r specified in grouping is not a valid "
                                             "output field for the %r %r stream."
                                             % (field, source, stream_id.streamId))
        if not is_base and not spouts:
            raise ValueError("A Topology requires at least one Spout")
        config = class_dict.get("config", {})
        if not isinstance(config, dict):
            raise TypeError("Topology config must be a dictionary. Given: %r" % (config,))
        class_dict["config"] = config
        class_dict["specs"] = list(specs.values())
        return type.__new__(mcs, classname, bases, class_dict)


class Topology(metaclass=TopologyType):
    """Base of a topology definition: subclass it with specs as class attributes."""


# ----------------------------------------------------------------- components with spec()
class _Specable:
    outputs = None
    par = 1
    config = None

    @classmethod
    def spec(cls, *args, **kwargs):
        raise TypeError("Specifications should either be bolts or spouts. Given: %r" % (cls,))


def _python_script(cls):
    return "%s.%s" % (cls.__module__, cls.__name__)


class JavaBolt(_Specable):
    @classmethod
    def spec(cls, name=None, serialized_java=None, full_class_name=None, args_list=None,
             inputs=None, par=1, config=None, outputs=None):
        return JavaBoltSpec(cls, name=name, inputs=inputs, par=par, config=config,
                            outputs=outputs, java_class=full_class_name or "serialized Java")


class JavaSpout(_Specable):
    @classmethod
    def spec(cls, name=None, serialized_java=None, full_class_name=None, args_list=None,
             par=1, config=None, outputs=None):
        return JavaSpoutSpec(cls, name=name, par=par, config=config, outputs=outputs,
                             java_class=full_class_name or "serialized Java")


class ShellBolt(_Specable):
    """A bolt run by ``command`` with ``script`` as its arguments."""

    @classmethod
    def spec(cls, name=None, command=None, script=None, inputs=None, par=None, config=None,
             outputs=None):
        return ShellBoltSpec(cls, name=name, command=command, script=script, inputs=inputs,
                             par=par, config=config, outputs=outputs)


class ShellSpout(_Specable):
    """A spout run by ``command`` with ``script`` as its arguments."""

    @classmethod
    def spec(cls, name=None, command=None, script=None, par=None, config=None, outputs=None):
        return ShellSpoutSpec(cls, name=name, command=command, script=script, par=par,
                              config=config, outputs=outputs)


class Bolt(pystorm_api.Bolt, ShellBolt):
    @classmethod
    def spec(cls, name=None, inputs=None, par=None, config=None):
        return ShellBoltSpec(cls, name=name, command="streamparse_run",
                             script=_python_script(cls), inputs=inputs, par=par, config=config,
                             outputs=cls.outputs)


class BatchingBolt(pystorm_api.BatchingBolt, Bolt):
    pass


class TicklessBatchingBolt(pystorm_api.TicklessBatchingBolt, BatchingBolt):
    pass


class Spout(pystorm_api.Spout, ShellSpout):
    @classmethod
    def spec(cls, name=None, par=None, config=None):
        return ShellSpoutSpec(cls, name=name, command="streamparse_run",
                              script=_python_script(cls), par=par, config=config,
                              outputs=cls.outputs)


class ReliableSpout(pystorm_api.ReliableSpout, Spout):
    pass


StormHandler = pystorm_api.StormHandler
Tuple = pystorm_api.Tuple
