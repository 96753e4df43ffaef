#!/usr/bin/python3
"""corrupt.py GOOD.safetensors OUTDIR - write one corrupt variant of a good
safetensors file per fault, each consistent except for that fault, and list
"file expected-substring" lines on stdout for tests/vla.sh."""
import json
import os
import struct
import sys

good, out = sys.argv[1], sys.argv[2]
buf = open(good, "rb").read()
(hlen,) = struct.unpack("<Q", buf[:8])
header = json.loads(buf[8:8 + hlen])
data = buf[8 + hlen:]
meta = header.pop("__metadata__")
names = list(header)


def pack(hdr_bytes, payload):
    return struct.pack("<Q", len(hdr_bytes)) + hdr_bytes + payload


def rebuild(tensors, chunks):
    """a consistent file from (name, dtype, shape) and the bytes of each"""
    hdr, at = {"__metadata__": meta}, 0
    for (name, dtype, shape), c in zip(tensors, chunks):
        hdr[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + len(c)]}
        at += len(c)
    return json.dumps(hdr).encode(), b"".join(chunks)


ts, cs = [], []
for n in names:
    b, e = header[n]["data_offsets"]
    ts.append((n, header[n]["dtype"], header[n]["shape"]))
    cs.append(data[b:e])


def write(name, blob, expect):
    path = os.path.join(out, name + ".safetensors")
    with open(path, "wb") as f:
        f.write(blob)
    print(path, expect)


def edited(name, **changes):
    h = dict(header, __metadata__=meta)
    h[name] = dict(header[name], **changes)
    return pack(json.dumps(h).encode(), data)


write("short", buf[:5], "too short")
write("truncated-header", buf[:8 + hlen // 2], "beyond the end of the file")
write("hlen-beyond-file", struct.pack("<Q", len(buf) + 4096) + buf[8:], "beyond the end of the file")
victim = names[3]
write("offsets-beyond",
      edited(victim, data_offsets=[header[victim]["data_offsets"][0], len(data) + 64]), victim)
b5 = header[names[5]]["data_offsets"][0]
b6, e6 = header[names[6]]["data_offsets"]
write("overlap", edited(names[6], data_offsets=[b5 + 4, b5 + 4 + e6 - b6]), "overlaps")
write("bad-dtype", edited(victim, dtype="F64"), "'F64'")
missing = "backbone.layers.2.attn.kv.weight"
keep = [i for i, n in enumerate(names) if n != missing]
write("missing", pack(*rebuild([ts[i] for i in keep], [cs[i] for i in keep])), missing)
shaped = "vision.patch_embed.weight"
ts2 = [(n, d, list(reversed(s)) if n == shaped else s) for n, d, s in ts]
write("misshaped", pack(*rebuild(ts2, cs)), shaped)
hdr, payload = rebuild(ts, cs)
write("non-utf8", pack(hdr.replace(b'"vision.pos_embed"', b'"vision.pos\xff_embed"'), payload),
      "UTF-8")
nested = {}
for _ in range(64):
    nested = {"x": nested}
deep = hdr.replace(b'{"__metadata__": ',
                   b'{"deep": ' + json.dumps(nested).encode() + b', "__metadata__": ', 1)
write("deep-json", pack(deep, payload), "nesting")
write("bad-json", pack(b'{"a": [1, 2,}   ', payload), "not valid JSON")
write("size-mismatch", pack(*rebuild(ts, cs[:-1] + [cs[-1] + b"\0\0\0\0"])), ts[-1][0])
