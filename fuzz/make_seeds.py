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

if __name__ == "__main__":
    sys.exit(0)
