#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/<target>/ (committed; rerun after changing this).

Every seed is made here, by hand or from a few lines of code: small valid inputs of each parser
and a few near misses. Files are named by what they hold. Crashing inputs that the fuzzers found
are added by hand as fuzz/corpus/<target>/crash-*, and this script leaves them alone.
Stdlib only.
"""
import io
import os
import struct
import sys
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# --- multilang framing: first byte = the limit (1 + b % 64), then what a child writes ---------
FRAMES = {
    "sync": '{"command":"sync"}\nend\n',
    "two": '{"command":"ack","id":"1"}\nend\n{"command":"sync"}\nend\n',
    "crlf": '{"command":\r\n"sync"}\r\nend\r\n',
    "cr_only": '{"a":1}\rend\r',
    "multiline": '{\n "command": "emit",\n "tuple": [1]\n}\nend\n',
    "end_with_space": "end \nend\n",
    "empty_message": "end\nend\n",
    "partial": '{"command":"sy',
}
for name, text in FRAMES.items():
    write("framing", name, b"\x3f" + text.encode())
write("framing", "tight_limit", b"\x08" + b"12345678\nend\n123456789\nend\n")

# --- message bodies ---------------------------------------------------------------------------
MESSAGES = {
    "emit_bolt": '{"command":"emit","anchors":["1","2"],"stream":"s","tuple":["a",1,null]}',
    "emit_spout": '{"command":"emit","id":{"k":[1]},"tuple":[true,false,1.5e3],"need_task_ids":false}',
    "emit_direct": '{"command":"emit","task":3,"tuple":[]}',
    "ack": '{"command":"ack","id":"123"}',
    "fail_number_id": '{"command":"fail","id":42}',
    "log": '{"command":"log","msg":"hello \\u00e9","level":"warn"}',
    "error": '{"command":"error","msg":{"trace":[1,2]}}',
    "metrics": '{"command":"metrics","name":"m","params":[1,{"a":2}]}',
    "pid": '{"pid":1234}',
    "sync": '{"command":"sync"}',
    "trailing": '{"command":"sync"} x',
    "unknown": '{"command":"nope","extra":[{}]}',
}
for name, text in MESSAGES.items():
    write("messages", name, text)

# --- tuples -----------------------------------------------------------------------------------
TUPLES = {
    "simple": '["word",1,2.5,true,false,null]',
    "nested": '[{"a":[1,{"b":"c"}]},[[]],{}]',
    "unicode": '["caf\\u00e9","café","\\ud83d\\ude00","a\\/b"]',
    "numbers": '[0,-0,1e308,-1.5E-10,123456789012345678901234567890]',
    "blanks": ' [ 1 , "x" ,\n\t{ "k" : [ ] } ] ',
    "empty": "[]",
    "bad_literal": "[tru]",
    "lone_surrogate": '["\\ud800"]',
    "nan": "[NaN]",
    "deep": "[" * 600 + "]" * 600,
    "bad_utf8": b'["\xc3\x28"]'.decode("latin-1"),
}
for name, text in TUPLES.items():
    write("tuple", name, text.encode("latin-1") if name == "bad_utf8" else text.encode())


# --- MessagePack: first byte odd = the component speaks MessagePack, even = JSON ---------------
def pack(v):
    if v is None:
        return b"\xc0"
    if v is True:
        return b"\xc3"
    if v is False:
        return b"\xc2"
    if isinstance(v, int):
        if 0 <= v < 128:
            return bytes([v])
        if -32 <= v < 0:
            return struct.pack("b", v)
        if v >= 0:
            return b"\xcf" + struct.pack(">Q", v)
        return b"\xd3" + struct.pack(">q", v)
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode()
        return (bytes([0xA0 | len(b)]) if len(b) < 32 else b"\xd9" + bytes([len(b)])) + b
    if isinstance(v, bytes):
        return b"\xc4" + bytes([len(v)]) + v
    if isinstance(v, list):
        return bytes([0x90 | len(v)]) + b"".join(pack(x) for x in v)
    if isinstance(v, dict):
        return bytes([0x80 | len(v)]) + b"".join(pack(k) + pack(x) for k, x in v.items())
    raise TypeError(v)


MSGPACK = {
    "emit": {"command": "emit", "tuple": ["word", 1, -5, 2.5, None, True], "anchors": ["1"]},
    "ack": {"command": "ack", "id": "7"},
    "log": {"command": "log", "msg": "caf\u00e9", "level": 2},
    "nested": {"command": "emit", "tuple": [{"a": [[1], {"b": []}]}, 2**63, -(2**63)]},
    "binary": {"command": "emit", "tuple": [b"\x00\x01raw"]},
    "int_key": {1: "one", "command": "sync"},
}
for name, value in MSGPACK.items():
    write("msgpack", name, b"\x01" + pack(value))
write("msgpack", "two_messages", b"\x01" + pack({"command": "sync"}) + pack({"pid": 1}))
write("msgpack", "task_ids_array", b"\x01" + pack([1, 2, 3]))
write("msgpack", "ext_value", b"\x01" + bytes([0x81]) + pack("t") + b"\xd4\x01\x00")
write("msgpack", "float32", b"\x01\x81" + pack("f") + b"\xca" + struct.pack(">f", 1.5))
write("msgpack", "truncated", b"\x01" + pack({"command": "emit", "tuple": [1, 2]})[:-2])
write("msgpack", "json_to_msgpack_component", b"\x01" + b'{"command":"sync"}\nend\n')
write("msgpack", "json", b"\x00" + b'{"command":"sync"}\nend\n')
write("msgpack", "msgpack_to_json_component", b"\x00" + pack({"command": "sync"}))

# --- topologies: sparse's form and Flux's ---------------------------------------------------
TOPOLOGIES = {
    "sparse_wordcount.yaml": """name: wordcount
config: {topology.max.spout.pending: 100, topology.debug: false}
spouts:
  - id: words
    command: [python3, spouts/words.py]
    outputs: [word]
bolts:
  - id: count
    command: python3 bolts/count.py
    parallelism: 2
    serializer: msgpack
    streams: {default: [word, count], alerts: {fields: [msg], direct: true}}
    inputs:
      - {from: words, grouping: fields, fields: [word]}
    config: {topology.tick.tuple.freq.secs: 5}
  - id: sink
    builtin: log_info
    inputs:
      - {from: count, stream: alerts, grouping: direct}
      - {from: count, grouping: {type: global}}
      - words
""",
    "flux_shell.yaml": """name: "shell-topology"
config:
  topology.workers: 1
spouts:
  - id: "sentence-spout"
    className: "org.apache.storm.flux.wrappers.spouts.FluxShellSpout"
    constructorArgs:
      - ["node", "randomsentence.js"]
      - ["word"]
    parallelism: 1
bolts:
  - id: "split"
    className: "org.apache.storm.flux.wrappers.bolts.FluxShellBolt"
    constructorArgs:
      - ["python", "splitsentence.py"]
      - {default: [word], other: [a, b]}
    configMethods:
      - name: setNamedStream
        args: [other, [b, c]]
      - name: addComponentConfig
        args: [topology.tick.tuple.freq.secs, 3]
  - id: "count"
    className: "org.apache.storm.testing.TestWordCounter"
streams:
  - name: "spout --> split"
    from: "sentence-spout"
    to: "split"
    grouping: {type: SHUFFLE}
  - from: "split"
    to: "count"
    grouping: {type: FIELDS, args: ["word"], streamId: default}
""",
    "anchors.yaml": """name: x
config: &c {a: [1, 2, &l [x, y]], b: *l}
spouts:
  - id: s
    command: [sh, s.sh]
    outputs: [f]
    config: *c
""",
    "small_alias_bomb.yaml": "name: x\nconfig:\n  a: &a [1, 1, 1]\n  b: &b [*a, *a, *a]\n"
    "  c: &c [*b, *b, *b]\n  d: [*c, *c, *c]\nspouts: []\n",
    "errors.yaml": """name: [x]
spouts: {a: 1}
bolts:
  - id: b
    command: 3
    inputs: [{from: b, grouping: nope}]
    parallelism: -1
    unknown: 1
streams: []
""",
    "syntax_error.yaml": "name: x\nspouts: [\n",
}
for name, text in TOPOLOGIES.items():
    write("topology", name, text)

# --- Kafka records: option bytes as FuzzedDataProvider reads them, then key and value ---------
# FuzzedDataProvider takes integers from the end of the input and strings from the front, so
# seeds are the record's bytes with a tail of option bytes: key format, value format, field
# count and fields, json_fields count (0 here), and the presence flags.
def record(value, key=b"k", key_format=0, value_format=0, fields=(0, 1, 2, 3, 4)):
    tail = bytes([key_format, value_format, len(fields)]) + bytes(fields) + bytes([0, 1, 1])
    return key + b"\\" + b"\x00" + value + tail[::-1]


write("kafka_record", "string", record(b"hello caf\xc3\xa9"))
write("kafka_record", "json", record(b'{"a": [1, 2.5, "x"], "b": null}', value_format=1))
write("kafka_record", "json_multiline", record(b'{\n "a": 1\r\n}', value_format=1))
write("kafka_record", "base64", record(b"\x00\xff\x10binary", value_format=2))
write("kafka_record", "bad_utf8", record(b"\xc3\x28"))
write("kafka_record", "deep_json", record(b"[" * 600 + b"]" * 600, value_format=1))
write("kafka_record", "control_chars", record(b"a\r\nb\x01\"\\"))

# --- HTTP requests: first byte odd = the server is bound to a loopback address ----------------
REQUESTS = {
    "get_api": "GET /api/v1/topology/wc/component/count?window=600&sys=false HTTP/1.1\r\n"
    "Host: 127.0.0.1:8080\r\n\r\n",
    "get_escaped": "GET /api/v1/topology/a%2Fb/component/caf%C3%A9?q=a+b&x=%zz HTTP/1.1\r\n"
    "Host: localhost\r\nConnection: close\r\n\r\n",
    "head": "HEAD / HTTP/1.0\r\n\r\n",
    "post": "POST /api HTTP/1.1\r\nHost: [::1]:80\r\nContent-Length: 5\r\n\r\nhello",
    "rebinding": "GET /api/v1/cluster/summary HTTP/1.1\r\nHost: evil.example:8080\r\n\r\n",
    "chunked": "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    "incomplete": "GET / HTTP/1.1\r\nHost: 127.0.0.1",
}
for name, text in REQUESTS.items():
    write("http", name, b"\x01" + text.encode())
write("http", "not_loopback", b"\x00" + REQUESTS["rebinding"].encode())

# --- jars: zips made with the zipfile module, fixed timestamps ------------------------------
def jar(entries, compression=zipfile.ZIP_DEFLATED):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o100755 << 16 if name.endswith(".sh") else 0o100644 << 16
            info.compress_type = compression
            z.writestr(info, data)
    return buffer.getvalue()


TOPOLOGY = b"name: x\nspouts:\n  - {id: s, command: [sh, s.sh], outputs: [f]}\n"
SPARSE_JAR = [
    ("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\r\n\r\n"),
    ("resources/_sparse/topology.yaml", TOPOLOGY),
    ("resources/_sparse/launch/s.sh", b"#!/bin/sh\nexec python3 s.py\n"),
    ("resources/s.py", b"print('hi')\n"),
]
write("jar", "sparse.jar", jar(SPARSE_JAR))
write("jar", "stored.jar", jar(SPARSE_JAR, zipfile.ZIP_STORED))
write("jar", "escape.jar", jar(SPARSE_JAR + [("resources/../../evil", b"x")]))
write("jar", "absolute.jar", jar(SPARSE_JAR + [("resources//etc/x", b"x")]))
write("jar", "big_outside.jar", jar(SPARSE_JAR + [("lib/big.bin", b"\0" * 200000)]))
write("jar", "big_inside.jar", jar(SPARSE_JAR + [("resources/big.bin", b"\0" * 100000)]))
write("jar", "dirs.jar", jar([("resources/", b""), ("resources/a/", b"")] + SPARSE_JAR))
write("jar", "no_topology.jar", jar(SPARSE_JAR[:1] + SPARSE_JAR[2:]))

if __name__ == "__main__":
    sys.exit(0)
