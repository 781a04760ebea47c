"""Reads the Clojure topology files of streamparse 2 and earlier (``topologies/NAME.clj``) into
the same JSON that streamparse_topology.py prints for a Python topology.

Only the shapes streamparse's quickstarts wrote are read; anything else is an error naming the
file and line, never a guess:

    (ns NAME (:use ...) ...)                     ignored, as are (require ...) and (use ...)
    (def NAME [SPOUTS BOLTS])                    a topology: a vector of two maps
    (defn NAME [options] [SPOUTS BOLTS])         the same, `options` passed to the specs below

SPOUTS and BOLTS map a component id (a string) to a spec:

    (shell-spout-spec COMMAND OUTPUTS [:p N])
    (shell-bolt-spec INPUTS COMMAND OUTPUTS [:p N])
    (python-spout-spec options "module.Class" OUTPUTS [:p N])
    (python-bolt-spec options INPUTS "module.Class" OUTPUTS [:p N])

COMMAND is a vector of strings (the argv, run in src/), OUTPUTS a vector of field names (the
default stream), INPUTS a map from a component id to :shuffle, :global, :all or a vector of
field names (fields grouping). A python spec runs ``streamparse_run [-s SERIALIZER]
module.Class``, as streamparse 2 did. The topology is named after the file.

The reader knows strings, keywords, symbols, integers, vectors, lists, maps, `;` comments and
commas; its nesting is bounded, so no input makes it crash or recurse without end.
"""

import os

_MAX_DEPTH = 64
_MAX_PARALLELISM = 100000  # far above any machine; keeps the number an exact integer in JSON
_DELIMS = {"(": ")", "[": "]", "{": "}"}


class CljError(Exception):
    def __init__(self, message, line):
        super().__init__(message)
        self.line = line


class Form:
    """A read form: kind is list, vector, map, string, keyword, symbol or int."""

    def __init__(self, kind, value, line):
        self.kind, self.value, self.line = kind, value, line

    def describe(self):
        if self.kind in ("list", "vector", "map"):
            return "a " + self.kind
        if self.kind == "string":
            return "the string %s" % _quote(self.value)
        if self.kind == "keyword":
            return ":" + self.value
        return "`%s`" % self.value


def _quote(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


class _Reader:
    def __init__(self, text):
        self.text, self.pos, self.line = text, 0, 1

    def _skip_space(self):
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c == "\n":
                self.line += 1
            elif c == ";":
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
                continue
            elif not (c.isspace() or c == ","):
                return
            self.pos += 1

    def forms(self):
        out = []
        while True:
            self._skip_space()
            if self.pos >= len(self.text):
                return out
            out.append(self._form(0))

    def _form(self, depth):
        if depth > _MAX_DEPTH:
            raise CljError("forms nested deeper than %d" % _MAX_DEPTH, self.line)
        self._skip_space()
        if self.pos >= len(self.text):
            raise CljError("the file ends inside a form", self.line)
        c, line = self.text[self.pos], self.line
        if c in _DELIMS:
            self.pos += 1
            items = []
            while True:
                self._skip_space()
                if self.pos >= len(self.text):
                    raise CljError("`%s` opened here is never closed" % c, line)
                if self.text[self.pos] == _DELIMS[c]:
                    self.pos += 1
                    break
                if self.text[self.pos] in ")]}":
                    raise CljError("`%s` closes the `%s` opened on line %d"
                                   % (self.text[self.pos], c, line), self.line)
                items.append(self._form(depth + 1))
            if c == "{":
                if len(items) % 2:
                    raise CljError("a map needs an even number of forms (keys and values)",
                                   line)
                return Form("map", list(zip(items[::2], items[1::2])), line)
            return Form("list" if c == "(" else "vector", items, line)
        if c in ")]}":
            raise CljError("`%s` closes nothing" % c, line)
        if c == '"':
            return self._string(line)
        start = self.pos
        while (self.pos < len(self.text) and not self.text[self.pos].isspace()
               and self.text[self.pos] not in '()[]{}",;'):
            self.pos += 1
        token = self.text[start:self.pos]
        if token.startswith(":") and len(token) > 1:
            return Form("keyword", token[1:], line)
        if token.lstrip("+-").isdigit() and token not in ("+", "-"):
            return Form("int", int(token), line)
        if token and (token[0].isalpha() or token[0] in "*+!-_?<>=/."):
            return Form("symbol", token, line)
        raise CljError("`%s` is not something this reader knows (strings, keywords, "
                       "symbols, integers, vectors, lists, maps)" % token[:40], line)

    def _string(self, line):
        self.pos += 1
        out = []
        escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c == '"':
                self.pos += 1
                return Form("string", "".join(out), line)
            if c == "\\":
                nxt = self.text[self.pos + 1:self.pos + 2]
                if nxt not in escapes:
                    raise CljError("unknown escape `\\%s` in a string" % nxt, self.line)
                out.append(escapes[nxt])
                self.pos += 2
                continue
            if c == "\n":
                self.line += 1
            out.append(c)
            self.pos += 1
        raise CljError("a string opened here is never closed", line)


def _expect(form, kind, what):
    if form.kind != kind:
        raise CljError("%s must be %s, not %s" % (what, "a " + kind if kind != "int"
                                                  else "an integer", form.describe()),
                       form.line)
    return form.value


def _strings(form, what):
    items = _expect(form, "vector", what)
    out = []
    for item in items:
        out.append(_expect(item, "string", "each of " + what))
    return out


_GROUPINGS = {"shuffle": "shuffle", "global": "global", "all": "all"}


def _inputs(form, cid):
    inputs = []
    for key, value in _expect(form, "map", "the inputs of `%s`" % cid):
        source = _expect(key, "string", "an input of `%s` (the component it reads)" % cid)
        if value.kind == "keyword":
            if value.value not in _GROUPINGS:
                raise CljError("grouping :%s of `%s`'s input `%s` is not one this reader knows "
                               "(:shuffle, :global, :all, or a vector of fields)"
                               % (value.value, cid, source), value.line)
            inputs.append({"from": source, "stream": "default",
                           "grouping": _GROUPINGS[value.value], "fields": []})
        else:
            fields = _strings(value, "the grouping of `%s`'s input `%s`" % (cid, source))
            if not fields:
                raise CljError("the fields grouping of `%s`'s input `%s` names no field"
                               % (cid, source), value.line)
            inputs.append({"from": source, "stream": "default", "grouping": "fields",
                           "fields": fields})
    if not inputs:
        raise CljError("bolt `%s` has no inputs" % cid, form.line)
    return inputs


def _options(args, cid):
    """The `:p N` after a spec's arguments."""
    parallelism = 1
    if len(args) % 2:
        raise CljError("`%s`: after the spec's arguments only `:p N` may follow" % cid,
                       args[-1].line)
    for key, value in zip(args[::2], args[1::2]):
        if key.kind != "keyword" or key.value != "p":
            raise CljError("`%s`: option %s is not one this reader knows (only :p N)"
                           % (cid, key.describe()), key.line)
        parallelism = _expect(value, "int", ":p of `%s`" % cid)
        if not 1 <= parallelism <= _MAX_PARALLELISM:
            raise CljError(":p of `%s` must be from 1 to %d, not %d"
                           % (cid, _MAX_PARALLELISM, parallelism), value.line)
    return parallelism


# name -> (kind, python?, positional arguments after `options` for python specs)
_SPECS = {
    "shell-spout-spec": ("spout", False, ("command", "outputs")),
    "shell-bolt-spec": ("bolt", False, ("inputs", "command", "outputs")),
    "python-spout-spec": ("spout", True, ("class", "outputs")),
    "python-bolt-spec": ("bolt", True, ("inputs", "class", "outputs")),
}


def _component(cid, form, kind_wanted, options_name, serializer, path):
    items = _expect(form, "list", "the spec of `%s`" % cid)
    if not items or items[0].kind != "symbol" or items[0].value not in _SPECS:
        head = items[0].describe() if items else "nothing"
        raise CljError("the spec of `%s` must be one of %s, not %s"
                       % (cid, ", ".join(sorted(_SPECS)), head), form.line)
    name = items[0].value
    kind, python, params = _SPECS[name]
    if kind != kind_wanted:
        raise CljError("`%s` is in the %ss map but is a %s (%s)"
                       % (cid, kind_wanted, kind, name), form.line)
    args = items[1:]
    if python:
        if options_name is None:
            raise CljError("`%s`: %s needs the options of a (defn NAME [options] ...) "
                           "topology" % (cid, name), form.line)
        if not args or args[0].kind != "symbol" or args[0].value != options_name:
            raise CljError("`%s`: the first argument of %s must be `%s`, the topology's "
                           "options" % (cid, name, options_name), form.line)
        args = args[1:]
    if len(args) < len(params):
        raise CljError("`%s`: %s takes %s" % (cid, name, ", ".join(params)), form.line)
    values = dict(zip(params, args))
    parallelism = _options(args[len(params):], cid)
    if python:
        cls = _expect(values["class"], "string", "the class of `%s`" % cid)
        if "." not in cls or cls.startswith(".") or cls.endswith("."):
            raise CljError("the class of `%s` must read module.Class, not %s"
                           % (cid, _quote(cls)), values["class"].line)
        command = ["streamparse_run"] + (["-s", serializer] if serializer else []) + [cls]
    else:
        command = _strings(values["command"], "the command of `%s`" % cid)
        if not command:
            raise CljError("the command of `%s` is empty" % cid, values["command"].line)
    outputs = _strings(values["outputs"], "the output fields of `%s`" % cid)
    return {
        "id": cid, "kind": kind, "class": name, "line": form.line, "file": path,
        "command": command, "java": None, "parallelism": parallelism, "config": {},
        "streams": [{"id": "default", "fields": outputs, "direct": False}] if outputs else [],
        "inputs": _inputs(values["inputs"], cid) if kind == "bolt" else [],
    }


def _topology(form, options_name, serializer, path):
    parts = _expect(form, "vector", "the topology")
    if len(parts) != 2:
        raise CljError("the topology must be a vector of two maps, spouts then bolts (it has "
                       "%d forms)" % len(parts), form.line)
    components, seen = [], {}
    for part, kind in zip(parts, ("spout", "bolt")):
        for key, spec in _expect(part, "map", "the %ss of the topology" % kind):
            cid = _expect(key, "string", "a %s id" % kind)
            if cid in seen:
                raise CljError("component `%s` is defined twice (first on line %d)"
                               % (cid, seen[cid]), key.line)
            seen[cid] = key.line
            components.append(_component(cid, spec, kind, options_name, serializer, path))
    return components


def _definition(forms):
    """The one (def NAME [...]) or (defn NAME [options] [...]) of the file."""
    found = None
    for form in forms:
        items = form.value if form.kind == "list" else None
        head = items[0].value if items and items[0].kind == "symbol" else None
        if head in ("ns", "require", "use", "import", "comment"):
            continue
        if head not in ("def", "defn"):
            raise CljError("only (ns ...), (def NAME [spouts bolts]) and (defn NAME [options] "
                           "[spouts bolts]) are read here, not %s"
                           % (("(%s ...)" % head) if head else form.describe()), form.line)
        if found is not None:
            raise CljError("a second topology definition (the first is on line %d)"
                           % found[0].line, form.line)
        if len(items) < 2 or items[1].kind != "symbol":
            raise CljError("(%s ...) needs a name" % head, form.line)
        if head == "def":
            if len(items) != 3:
                raise CljError("(def NAME [spouts bolts]) takes a name and the topology",
                               form.line)
            found = (form, None, items[2])
        else:
            rest = items[2:]
            if rest and rest[0].kind == "string":
                rest = rest[1:]  # a docstring
            if len(rest) != 2:
                raise CljError("(defn NAME [options] [spouts bolts]) takes a name, one "
                               "parameter vector and the topology", form.line)
            params = _expect(rest[0], "vector", "the parameters of (defn %s ...)"
                             % items[1].value)
            if len(params) != 1 or params[0].kind != "symbol":
                raise CljError("(defn %s ...) takes one parameter, the options"
                               % items[1].value, rest[0].line)
            found = (form, params[0].value, rest[1])
    if found is None:
        raise CljError("no (def NAME [spouts bolts]) or (defn NAME [options] [spouts bolts]) "
                       "in the file", 1)
    return found


def evaluate(path, env=None, serializer=None):
    """The topology in ``path`` as streamparse_topology.evaluate returns it, or an error."""
    del env  # Clojure topologies have no per-environment parallelism
    path = os.path.abspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[:exc.start].count(b"\n") + 1
            raise CljError("the file is not UTF-8", line)
        _, options_name, body = _definition(_Reader(text).forms())
        return {
            "name": os.path.splitext(os.path.basename(path))[0],
            "class": None, "line": body.line, "config": {},
            "components": _topology(body, options_name, serializer, path),
        }
    except CljError as exc:
        return {"error": str(exc), "file": path, "line": exc.line}
    except OSError as exc:
        return {"error": "cannot read: %s" % exc.strerror, "file": path, "line": 0}
