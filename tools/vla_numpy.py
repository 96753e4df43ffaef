#!/usr/bin/python3
"""vla_numpy.py - an independent NumPy implementation of the reference VLA
pass (docs/VLA.md), used to cross-check the doctor's CPU fp32 pass.

It reads the preset YAML, the safetensors file the doctor wrote with
--save-weights (parsed here with struct + numpy), derives the inputs (images,
text tokens, initial noise) from the seed with the same counter RNG, runs the
pass in float64 and prints the actions. With --compare BENCH.json it prints
max|a - b| / max|b| against the doctor's actions and exits 1 above --tol.

Only Debian's python3-numpy and python3-yaml are needed.
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import yaml

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


# ---- the counter RNG (docs/VLA.md "Synthetic weights and inputs") --------

def _mix_int(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _mix_arr(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def rng_key(seed, name):
    h = 0xcbf29ce484222325
    for c in name.encode():
        h = ((h ^ c) * 0x100000001b3) & MASK
    return _mix_int((seed ^ h) & MASK)


def rng_bits(key, j):
    j = np.asarray(j, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _mix_arr(np.uint64(key) + (j + np.uint64(1)) * np.uint64(GOLDEN))


def rng_uniform(seed, name, n):
    b = rng_bits(rng_key(seed, name), np.arange(n, dtype=np.uint64))
    return (b >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def rng_normal(seed, name, n):
    key = rng_key(seed, name)
    i = np.arange(n, dtype=np.uint64)
    u1 = ((rng_bits(key, 2 * i) >> np.uint64(11)).astype(np.float64) + 0.5) * 2.0 ** -53
    u2 = (rng_bits(key, 2 * i + 1) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * math.pi * u2)


# ---- safetensors ---------------------------------------------------------

def load_safetensors(path):
    with open(path, "rb") as f:
        buf = f.read()
    (hlen,) = struct.unpack("<Q", buf[:8])
    header = json.loads(buf[8:8 + hlen].decode("utf-8"))
    data = memoryview(buf)[8 + hlen:]
    meta = header.pop("__metadata__", {})
    out = {}
    for name, t in header.items():
        b, e = t["data_offsets"]
        raw = data[b:e]
        if t["dtype"] == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif t["dtype"] == "F16":
            a = np.frombuffer(raw, dtype="<f2").astype(np.float32)
        elif t["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise SystemExit("%s: tensor %s: unsupported dtype %s" % (path, name, t["dtype"]))
        out[name] = a.reshape(t["shape"]).astype(np.float64)
    return out, meta


# ---- building blocks ------------------------------------------------------

def layernorm(x, w, b, eps=1e-6):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def rmsnorm(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def silu(x):
    return x / (1.0 + np.exp(-x))


def act_fn(name):
    return silu if name == "swiglu" else gelu_tanh


def rope(x, pos, theta):
    """x [T, heads, hd], rotate-half convention"""
    hd = x.shape[-1]
    half = hd // 2
    inv = theta ** (-2.0 * np.arange(half) / hd)
    ang = np.asarray(pos, dtype=np.float64)[:, None] * inv[None, :]
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)


def attention(q, k, v):
    """q [Tq, H, hd], k/v [Tk, KV, hd]; grouped-query: head h uses kv h // (H/KV)"""
    H, KV, hd = q.shape[1], k.shape[1], q.shape[2]
    k = np.repeat(k, H // KV, axis=1)
    v = np.repeat(v, H // KV, axis=1)
    s = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(hd)
    s = np.exp(s - s.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    return np.einsum("hqk,khd->qhd", s, v).reshape(q.shape[0], H * hd)


def interp_matrix(g0, g1):
    """1-D bilinear resampling matrix [g1, g0], half-pixel centres, clamped"""
    r = np.zeros((g1, g0))
    for o in range(g1):
        src = max((o + 0.5) * g0 / g1 - 0.5, 0.0)
        i0 = int(math.floor(src))
        i1 = min(i0 + 1, g0 - 1)
        lam = src - i0
        r[o, i0] += 1.0 - lam
        r[o, i1] += lam
    return r


def gated_mlp(h, gate_up, down, act):
    F = gate_up.shape[0] // 2
    gu = h @ gate_up.T
    return (act_fn(act)(gu[:, :F]) * gu[:, F:]) @ down.T


# ---- the pass ----------------------------------------------------------------

class Pass:
    def __init__(self, cfg, W, image):
        self.c, self.W, self.image = cfg, W, image

    def vision(self, images):
        v, W = self.c["vision"], self.W
        p, S, width = v["patch"], self.image, v["width"]
        g, g0, m = S // p, v["image"] // p, v.get("merge", 1)
        # a stride-p convolution without padding: floor(S/p) patches per side,
        # floored to whole m x m merge blocks; the remainder pixels are dropped
        g -= g % m
        heads = v["heads"]
        hd = width // heads
        R = interp_matrix(g0, g)
        pos = np.einsum("ai,bj,ijd->abd", R, R, W["vision.pos_embed"].reshape(g0, g0, width))
        pos = pos.reshape(g * g, width)
        out = []
        for img in images:
            x = img[:, :g * p, :g * p].reshape(3, g, p, g, p).transpose(1, 3, 0, 2, 4).reshape(g * g, 3 * p * p)
            x = x @ W["vision.patch_embed.weight"].T + W["vision.patch_embed.bias"] + pos
            for i in range(v["depth"]):
                pre = "vision.blocks.%d." % i
                h = layernorm(x, W[pre + "norm1.weight"], W[pre + "norm1.bias"])
                qkv = h @ W[pre + "attn.qkv.weight"].T + W[pre + "attn.qkv.bias"]
                q, k, vv = (qkv[:, j * width:(j + 1) * width].reshape(-1, heads, hd)
                            for j in range(3))
                x = x + attention(q, k, vv) @ W[pre + "attn.o.weight"].T + W[pre + "attn.o.bias"]
                h = layernorm(x, W[pre + "norm2.weight"], W[pre + "norm2.bias"])
                if v["mlp_act"] == "swiglu":
                    gu = h @ W[pre + "mlp.gate_up.weight"].T + W[pre + "mlp.gate_up.bias"]
                    M = gu.shape[1] // 2
                    y = (silu(gu[:, :M]) * gu[:, M:]) @ W[pre + "mlp.down.weight"].T
                    x = x + y + W[pre + "mlp.down.bias"]
                else:
                    y = gelu_tanh(h @ W[pre + "mlp.fc1.weight"].T + W[pre + "mlp.fc1.bias"])
                    x = x + y @ W[pre + "mlp.fc2.weight"].T + W[pre + "mlp.fc2.bias"]
            x = layernorm(x, W["vision.norm.weight"], W["vision.norm.bias"])
            if m > 1:
                x = x.reshape(g // m, m, g // m, m, width).transpose(0, 2, 1, 3, 4)
                x = x.reshape((g // m) ** 2, m * m * width)
            out.append(x @ W["vision.proj.weight"].T + W["vision.proj.bias"])
        return np.concatenate(out, axis=0)

    def layer(self, tower, l, x, pos, cache):
        """one decoder layer; cache[l] holds the prefix (k, v) or is filled here"""
        c, W = self.c, self.W
        t = c[tower]
        H, KV, hd = t["heads"], t["kv_heads"], t["head_dim"]
        eps, theta = float(c["backbone"].get("norm_eps", 1e-6)), float(c["backbone"]["rope_theta"])
        pre = "%s.layers.%d." % (tower, l)
        h = rmsnorm(x, W[pre + "attn_norm.weight"], eps)
        q = rope((h @ W[pre + "attn.q.weight"].T).reshape(-1, H, hd), pos, theta)
        kv = h @ W[pre + "attn.kv.weight"].T
        k = rope(kv[:, :KV * hd].reshape(-1, KV, hd), pos, theta)
        v = kv[:, KV * hd:].reshape(-1, KV, hd)
        if tower == "backbone":
            cache.append((k, v))
        else:
            k = np.concatenate([cache[l][0], k])
            v = np.concatenate([cache[l][1], v])
        x = x + attention(q, k, v) @ W[pre + "attn.o.weight"].T
        h = rmsnorm(x, W[pre + "mlp_norm.weight"], eps)
        moe = t.get("moe")
        if not moe:
            return x + gated_mlp(h, W[pre + "mlp.gate_up.weight"], W[pre + "mlp.down.weight"],
                                 t["mlp_act"])
        logits = h @ W[pre + "moe.router.weight"].T
        if moe["router"] == "sigmoid":
            score = 1.0 / (1.0 + np.exp(-logits))
        else:
            score = np.exp(logits - logits.max(-1, keepdims=True))
            score /= score.sum(-1, keepdims=True)
        y = np.zeros_like(x)
        gu_all, down_all = W[pre + "moe.experts.gate_up.weight"], W[pre + "moe.experts.down.weight"]
        for ti in range(x.shape[0]):
            top = np.argsort(-score[ti], kind="stable")[:moe["top_k"]]
            wts = score[ti, top] / score[ti, top].sum()
            for e, we in zip(top, wts):
                y[ti] += we * gated_mlp(h[ti:ti + 1], gu_all[e], down_all[e], t["mlp_act"])[0]
        if moe.get("shared_mlp", 0):
            y += gated_mlp(h, W[pre + "moe.shared.gate_up.weight"], W[pre + "moe.shared.down.weight"],
                           t["mlp_act"])
        return x + y

    def run(self, images, tokens, noise):
        c, W = self.c, self.W
        D = c["backbone"]["width"]
        prefix = np.concatenate([self.vision(images),
                                 W["backbone.embed.weight"][tokens] * np.float32(math.sqrt(D))])
        P = prefix.shape[0]
        cache = []
        x = prefix
        for l in range(c["backbone"]["layers"]):
            x = self.layer("backbone", l, x, np.arange(P), cache)
        a, E = c["action"], c["expert"]["width"]
        steps, chunk = a["steps"], a["chunk"]
        half = E // 2
        period = 4e-3 * (4.0 / 4e-3) ** np.linspace(0.0, 1.0, half)
        # the time grid and dt are fp32 (openpi accumulates t += dt in fp32)
        dt32 = np.float32(-1.0) / np.float32(steps)
        t32 = np.float32(1.0)
        xt = noise.astype(np.float64)
        eps = float(c["backbone"].get("norm_eps", 1e-6))
        for _ in range(steps):
            ang = float(t32) * 2.0 * math.pi / period
            temb = np.concatenate([np.sin(ang), np.cos(ang)])
            ae = xt @ W["expert.action_in.weight"].T + W["expert.action_in.bias"]
            h = np.concatenate([ae, np.tile(temb, (chunk, 1))], axis=1)
            h = silu(h @ W["expert.time_in.weight"].T + W["expert.time_in.bias"])
            h = h @ W["expert.time_out.weight"].T + W["expert.time_out.bias"]
            for l in range(c["expert"]["layers"]):
                h = self.layer("expert", l, h, P + np.arange(chunk), cache)
            h = rmsnorm(h, W["expert.final_norm.weight"], eps)
            vel = h @ W["expert.action_out.weight"].T + W["expert.action_out.bias"]
            xt = xt + float(dt32) * vel
            t32 = np.float32(t32 + dt32)
        return np.clip(xt * W["action.std"] + W["action.mean"], W["action.low"], W["action.high"])


def find_preset(name, models):
    if name.endswith(".yaml") or "/" in name:
        return name
    here = os.path.dirname(os.path.abspath(__file__))
    for d in ([models] if models else []) + [os.path.join(here, "..", "models")]:
        p = os.path.join(d, name + ".yaml")
        if os.path.exists(p):
            return p
    raise SystemExit("vla_numpy: no preset %s" % name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", required=True, help="safetensors file (bench --save-weights)")
    ap.add_argument("--preset", help="preset name or .yaml (default: from the file's metadata)")
    ap.add_argument("--models", help="directory of preset files")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--image-size", type=int)
    ap.add_argument("--compare", help="bench --json output to compare the actions with")
    ap.add_argument("--tol", type=float, default=1e-5)
    ap.add_argument("--check-rng", action="store_true",
                    help="also regenerate the synthetic weights here and compare with the file")
    args = ap.parse_args()

    W, meta = load_safetensors(args.weights)
    with open(find_preset(args.preset or meta.get("preset", ""), args.models)) as f:
        cfg = yaml.safe_load(f)
    v, a = cfg["vision"], cfg["action"]
    image = args.image_size or v["image"]
    seed = args.seed
    cams = v["cameras"]
    images = (-1.0 + 2.0 * rng_uniform(seed, "input.images", cams * 3 * image * image))
    images = images.astype(np.float32).astype(np.float64).reshape(cams, 3, image, image)
    key = rng_key(seed, "input.tokens")
    tokens = (rng_bits(key, np.arange(a["text_tokens"], dtype=np.uint64))
              % np.uint64(cfg["backbone"]["vocab"])).astype(np.int64)
    noise = rng_normal(seed, "input.noise", a["chunk"] * a["dim"]).astype(np.float32)
    noise = noise.reshape(a["chunk"], a["dim"])

    if args.check_rng:
        worst = 0.0
        for name, t in W.items():
            if name.startswith("action."):
                continue
            fan_in = t.shape[-1]
            if name.endswith("norm.weight") or name.endswith("norm1.weight") or \
               name.endswith("norm2.weight") or name.endswith("_norm.weight"):
                mean, scale = 1.0, 0.02
            elif name == "vision.pos_embed":
                mean, scale = 0.0, 0.2
            elif name.endswith(".bias"):
                mean, scale = 0.0, 0.02
            else:
                mean, scale = 0.0, 1.0 / math.sqrt(fan_in)
            ref = (mean + scale * rng_normal(seed, name, t.size)).astype(np.float32)
            worst = max(worst, float(np.abs(ref.reshape(t.shape) - t).max()))
        print("rng: max |python - file| over all synthetic tensors = %.3g" % worst)
        if worst > 1e-6:
            print("FAIL: the Python RNG does not reproduce the doctor's weights")
            return 1

    actions = Pass(cfg, W, image).run(images, tokens, noise)
    np.set_printoptions(precision=5, suppress=True, linewidth=120)
    print("actions (first 3 rows, first 8 dims):")
    print(actions[:3, :8])
    if args.compare:
        with open(args.compare) as f:
            doc = np.array(json.load(f)["actions"], dtype=np.float64)
        rel = float(np.abs(doc - actions).max() / np.abs(actions).max())
        print("agreement: max|doctor - numpy| / max|numpy| = %.3g (tolerance %g)" % (rel, args.tol))
        return 0 if rel <= args.tol else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
