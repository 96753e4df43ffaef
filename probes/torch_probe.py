#!/usr/bin/env python3
"""torch_probe.py - the reference VLA pass (docs/VLA.md) in PyTorch, loading the
same safetensors file the doctor writes with `bench --save-weights F`.

Two uses: `make bench` runs it as tools/torch_twin.py (the command line
below); the full level's torch probe (probes/probe_torch.c) writes this file
from the binary and runs it with --probe under the user's own interpreter,
reading one JSON object on stdout (the probe mode at the end of this file).

It runs the preset in fp32 and in bf16 (or fp16), eager and as one CUDA graph
of the whole pass, and cross-checks its actions against the doctor's bench
JSON records of the same weights and seed (fp32 against fp32 tight, bf16
against bf16 within stated bounds). Per-stage times: eager from CUDA events
between stages; graph from one graph per stage (replayed and timed alone) and
the whole pass as one graph for the total.

    torch_twin.py --preset models/pi0.yaml --weights w.safetensors \
        --doctor fp32=doctor-fp32.json --doctor bf16=doctor-bf16.json \
        --dtype bf16 --runs 20 --json twin.json

The bf16 model is deployment-like: weights and the residual stream in bf16,
norms' variance, softmax (inside SDPA), RoPE, the time grid, dt and x_t in
fp32. It is what a careful PyTorch user writes (the fair peer of issue 11):
bf16 weights resident on the device, fused QKV projections (one GEMM per
layer), fused gate/up, F.scaled_dot_product_attention with enable_gqa (no
repeated K/V), RoPE tables made once, F.rms_norm/F.layer_norm; timed eager,
as CUDA graphs (torch.cuda.graphs), and with torch.compile'd blocks (one
compiled vision block and one decoder layer, weights passed as arguments so
every layer reuses the compiled code) captured as CUDA graphs too. A compile
failure is reported in the JSON ("compile": {"error": ...}), not hidden.
Needs torch and numpy only (PyYAML if present; else a small reader).
"""
import argparse
import json
import math
import os
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

# ---- presets ---------------------------------------------------------------



def finite(o, path, bad):
    """o with every NaN and infinity as None, its path added to bad: the
    doctor reads strict JSON, and json.dumps writes NaN (issue 30)"""
    if isinstance(o, float) and not math.isfinite(o):
        bad.append(path)
        return None
    if isinstance(o, dict):
        return {k: finite(v, path + "." + k if path else k, bad) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [finite(v, path, bad) for v in o]
    return o


def dumps(out, **kw):
    """the answer as strict JSON, "nonfinite" naming what was not finite"""
    bad = []
    o = finite(out, "", bad)
    if bad:
        o["nonfinite"] = sorted(set(bad))
    return json.dumps(o, allow_nan=False, **kw)

def _scalar(s):
    s = s.strip()
    if s.startswith("[") and s.endswith("]"):
        return [_scalar(x) for x in s[1:-1].split(",") if x.strip()]
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    return s.strip("\"'")


def read_yaml(path):
    """Block mappings, scalars and flow lists (the presets' subset)."""
    try:
        import yaml  # noqa: PLC0415

        with open(path) as f:
            return yaml.safe_load(f)
    except ImportError:
        pass
    lines = []
    for raw in open(path):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if lines and lines[-1].count("[") > lines[-1].count("]"):
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    root = {}
    stack = [(-1, root)]
    for line in lines:
        ind = len(line) - len(line.lstrip())
        key, _, val = line.strip().partition(":")
        while stack[-1][0] >= ind:
            stack.pop()
        if val.strip():
            stack[-1][1][key] = _scalar(val)
        else:
            d = {}
            stack[-1][1][key] = d
            stack.append((ind, d))
    return root


def load_preset(name):
    if os.path.exists(name):
        return read_yaml(name)
    here = os.path.dirname(os.path.abspath(__file__))
    return read_yaml(os.path.join(here, "..", "models", name + ".yaml"))


# ---- the counter RNG (src/vla/rng.c) for the inputs ------------------------

M64 = (1 << 64) - 1


def _mix_int(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def rng_key(seed, name):
    h = 0xCBF29CE484222325
    for b in name.encode():
        h = ((h ^ b) * 0x100000001B3) & M64
    return _mix_int((seed ^ h) & M64)


def rng_bits(key, j):
    with np.errstate(over="ignore"):
        z = np.uint64(key) + (j.astype(np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def rng_uniform(seed, name, n):
    b = rng_bits(rng_key(seed, name), np.arange(n, dtype=np.uint64))
    return (b >> np.uint64(11)).astype(np.float64) * 2.0**-53


def rng_normal(seed, name, n):
    k = rng_key(seed, name)
    i = np.arange(n, dtype=np.uint64)
    u1 = ((rng_bits(k, 2 * i) >> np.uint64(11)).astype(np.float64) + 0.5) * 2.0**-53
    u2 = (rng_bits(k, 2 * i + np.uint64(1)) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * u2)


# ---- safetensors ------------------------------------------------------------

_DT = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}


def load_safetensors(path, device):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        hdr = json.loads(f.read(n))
    mm = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, e in hdr.items():
        if name == "__metadata__":
            continue
        b, en = e["data_offsets"]
        a = np.frombuffer(mm[b:en], dtype=_DT[e["dtype"]]).reshape(e["shape"])
        if e["dtype"] == "BF16":
            t = torch.from_numpy(a.astype(np.int32) << 16).view(torch.float32)
        else:
            t = torch.from_numpy(a.astype(np.float32))
        out[name] = t.to(device)
    return out


# ---- the pass --------------------------------------------------------------


class Twin:
    def __init__(self, p, W, dtype, image, device):
        self.p, self.dt, self.dev = p, dtype, device
        # GEMM weights and their biases resident in the compute dtype (cast once);
        # norm parameters, action statistics and tables stay fp32
        self.W = {k: (v.to(dtype) if (v.dim() >= 2 or (k.endswith(".bias") and "norm" not in k))
                      and not k.startswith("action.") else v.float())
                  for k, v in W.items()}
        # pos table and embedding used as fp32 sources, cast on use
        self.W["vision.pos_embed"] = W["vision.pos_embed"].float()
        v, b = p["vision"], p["backbone"]
        self.image = image
        self.grid = image // v["patch"]
        self.tok_cam = (self.grid // v.get("merge", 1)) ** 2
        self.P = v["cameras"] * self.tok_cam + p["action"]["text_tokens"]
        self.theta = float(b.get("rope_theta", 10000))
        self.eps = float(b.get("norm_eps", 1e-6))
        # device constants made before any graph capture (no H2D copy inside one)
        self.inv = {}
        for t in ("backbone", "expert"):
            hd = p[t]["head_dim"]
            self.inv[hd] = torch.tensor([self.theta ** (-2.0 * i / hd) for i in range(hd // 2)],
                                        dtype=torch.float64, device=device)
        steps = p["action"]["steps"]
        self.dt_c = torch.tensor(-1.0 / steps, dtype=torch.float32, device=device)
        self.t_c = torch.tensor(1.0, dtype=torch.float32, device=device)
        # RoPE tables for every position the pass uses, made once (fp32)
        npos = self.P + p["action"]["chunk"]
        self.cs = {}
        for hd, inv in self.inv.items():
            ang = torch.arange(npos, dtype=torch.float64, device=device)[:, None] * inv
            self.cs[hd] = (ang.cos().float().contiguous(), ang.sin().float().contiguous())
        # fused QKV: one [q; k; v] weight per decoder layer (the separate ones dropped)
        for t in ("backbone", "expert"):
            for l in range(p[t]["layers"]):
                pre = "%s.layers.%d.attn." % (t, l)
                self.W[pre + "qkv.weight"] = torch.cat([self.W.pop(pre + "q.weight"),
                                                        self.W.pop(pre + "kv.weight")]).contiguous()
        self.vblock = self._vblock
        self.dlayer = self._dlayer

    def compile(self, mode="default"):
        """torch.compile the two repeated blocks (weights are arguments, so
        one compiled graph serves every layer of a tower); mode is
        torch.compile's (max-autotune-no-cudagraphs: Triton/cuBLAS GEMM
        autotuning, leaving the CUDA graph to bench()'s whole-pass capture)"""
        kw = {} if mode == "default" else {"mode": mode}
        self.vblock = torch.compile(self._vblock, dynamic=False, **kw)
        self.dlayer = torch.compile(self._dlayer, dynamic=False, **kw)

    # fp32 where the models keep it
    def rms(self, x, w):
        return F.rms_norm(x.float(), (x.shape[-1],), w, self.eps).to(self.dt)

    def ln(self, x, w, b):
        return F.layer_norm(x.float(), (x.shape[-1],), w.float(), b.float(), 1e-6).to(self.dt)

    def lin(self, x, name, bias=True):
        w = self.W[name + ".weight"]
        bb = self.W.get(name + ".bias") if bias else None
        return F.linear(x, w, bb.to(self.dt) if bb is not None else None)

    def rope(self, x, cos, sin, heads, hd):
        """rotate-half on [T, heads * hd] with the tables' rows of this call"""
        T = x.shape[0]
        half = hd // 2
        c, s_ = cos[:, None, :], sin[:, None, :]
        xf = x.float().view(T, heads, hd)
        a, b_ = xf[..., :half], xf[..., half:]
        return torch.cat([a * c - b_ * s_, b_ * c + a * s_], -1).view(T, heads * hd).to(self.dt)

    @staticmethod
    def act(x, name):
        return F.gelu(x, approximate="tanh") if name in ("geglu", "gelu_tanh") else F.silu(x)

    def attn(self, q, k, v, H, KV, hd):
        q = q.view(1, -1, H, hd).transpose(1, 2)
        k = k.view(1, -1, KV, hd).transpose(1, 2)
        v = v.view(1, -1, KV, hd).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v, enable_gqa=KV != H)
        return o.transpose(1, 2).reshape(-1, H * hd)

    def _vblock(self, x, ws):
        """one ViT block; ws: norm1 w/b, qkv w/b, o w/b, norm2 w/b, mlp in w/b, mlp out w/b"""
        v = self.p["vision"]
        C, g, Wd, H = v["cameras"], self.grid, v["width"], v["heads"]
        hd = Wd // H
        n1w, n1b, qw, qb, ow, ob, n2w, n2b, f1w, f1b, f2w, f2b = ws
        h = self.ln(x, n1w, n1b)
        qkv = F.linear(h, qw, qb.to(self.dt)).view(C, g * g, 3, H, hd)
        q, k, vv = (qkv[:, :, j].transpose(1, 2) for j in range(3))
        o = F.scaled_dot_product_attention(q, k, vv).transpose(1, 2).reshape(C * g * g, Wd)
        x = x + F.linear(o, ow, ob.to(self.dt))
        h = self.ln(x, n2w, n2b)
        if v["mlp_act"] == "swiglu":
            gu = F.linear(h, f1w, f1b.to(self.dt))
            M = gu.shape[-1] // 2
            return x + F.linear(F.silu(gu[:, :M]) * gu[:, M:], f2w, f2b.to(self.dt))
        return x + F.linear(F.gelu(F.linear(h, f1w, f1b.to(self.dt)), approximate="tanh"), f2w,
                            f2b.to(self.dt))

    def vision(self, images):
        p, v = self.p, self.p["vision"]
        W = self.W
        C, S, pt, g = v["cameras"], self.image, v["patch"], self.grid
        Wd, m = v["width"], v.get("merge", 1)
        x = images.view(C, 3, g, pt, g, pt).permute(0, 2, 4, 1, 3, 5).reshape(C * g * g, 3 * pt * pt)
        x = self.lin(x.to(self.dt), "vision.patch_embed")
        g0 = v["image"] // pt
        pos = W["vision.pos_embed"]
        if g0 != g:
            pos = F.interpolate(pos.view(1, g0, g0, Wd).permute(0, 3, 1, 2), size=(g, g),
                                mode="bilinear", align_corners=False).permute(0, 2, 3, 1)
        x = (x.view(C, g * g, Wd) + pos.reshape(1, g * g, Wd).to(self.dt)).view(C * g * g, Wd)
        for i in range(v["depth"]):
            pre = "vision.blocks.%d." % i
            names = ["norm1.weight", "norm1.bias", "attn.qkv.weight", "attn.qkv.bias",
                     "attn.o.weight", "attn.o.bias", "norm2.weight", "norm2.bias"]
            names += (["mlp.gate_up.weight", "mlp.gate_up.bias", "mlp.down.weight", "mlp.down.bias"]
                      if v["mlp_act"] == "swiglu" else
                      ["mlp.fc1.weight", "mlp.fc1.bias", "mlp.fc2.weight", "mlp.fc2.bias"])
            x = self.vblock(x, tuple(W[pre + n] for n in names))
        x = self.ln(x, W["vision.norm.weight"], W["vision.norm.bias"])
        if m > 1:
            go = g // m
            x = x.view(C, go, m, go, m, Wd).permute(0, 1, 3, 2, 4, 5).reshape(C * go * go, m * m * Wd)
        return self.lin(x, "vision.proj")

    def layer(self, tower, l, x, pos0, kv_cache):
        p = self.p[tower]
        W = self.W
        pre = "%s.layers.%d." % (tower, l)
        cos, sin = self.cs[p["head_dim"]]
        T = x.shape[0]
        cos, sin = cos[pos0:pos0 + T], sin[pos0:pos0 + T]
        kc, vc = kv_cache if kv_cache is not None else (None, None)
        if "moe" in p:  # the routed MoE stays eager (data-dependent expert choice)
            return self._attn_block(tower, x, W[pre + "attn_norm.weight"], W[pre + "attn.qkv.weight"],
                                    W[pre + "attn.o.weight"], cos, sin, kc, vc, pre)
        x, k, v = self.dlayer(x, (W[pre + "attn_norm.weight"], W[pre + "attn.qkv.weight"],
                                  W[pre + "attn.o.weight"], W[pre + "mlp_norm.weight"],
                                  W[pre + "mlp.gate_up.weight"], W[pre + "mlp.down.weight"]),
                              cos, sin, kc, vc, tower)
        return x, (k, v)

    def _qkv_attn(self, p, x, nw, qkvw, ow, cos, sin, kc, vc):
        H, KV, hd = p["heads"], p["kv_heads"], p["head_dim"]
        h = self.rms(x, nw)
        qkv = F.linear(h, qkvw)
        q = self.rope(qkv[:, :H * hd], cos, sin, H, hd)
        k = self.rope(qkv[:, H * hd:(H + KV) * hd], cos, sin, KV, hd)
        v = qkv[:, (H + KV) * hd:]
        if kc is not None:
            k = torch.cat([kc, k])
            v = torch.cat([vc, v])
        return x + F.linear(self.attn(q, k, v, H, KV, hd), ow), k, v

    def _dlayer(self, x, ws, cos, sin, kc, vc, tower):
        """one dense decoder layer: fused QKV, RoPE, SDPA (GQA), fused gate/up"""
        p = self.p[tower]
        nw, qkvw, ow, mw, guw, dw = ws
        x, k, v = self._qkv_attn(p, x, nw, qkvw, ow, cos, sin, kc, vc)
        h = self.rms(x, mw)
        gu = F.linear(h, guw)
        Fm = gu.shape[-1] // 2
        return x + F.linear(self.act(gu[:, :Fm], p["mlp_act"]) * gu[:, Fm:], dw), k, v

    def _attn_block(self, tower, x, nw, qkvw, ow, cos, sin, kc, vc, pre):
        p = self.p[tower]
        x, k, v = self._qkv_attn(p, x, nw, qkvw, ow, cos, sin, kc, vc)
        h = self.rms(x, self.W[pre + "mlp_norm.weight"])
        return x + self.moe(h, pre, p), (k, v)

    def moe(self, h, pre, p):
        W = self.W
        mo = p["moe"]
        X, k = mo["experts"], mo["top_k"]
        logits = F.linear(h, W[pre + "moe.router.weight"]).float()
        s = torch.sigmoid(logits) if mo.get("router", "sigmoid") == "sigmoid" else logits.softmax(-1)
        top, idx = s.topk(k, -1)
        wd = torch.zeros_like(s).scatter(-1, idx, top / top.sum(-1, keepdim=True))
        gu = torch.einsum("td,xmd->xtm", h, W[pre + "moe.experts.gate_up.weight"])
        M = gu.shape[-1] // 2
        a = self.act(gu[..., :M], p["mlp_act"]) * gu[..., M:]
        eo = torch.einsum("xtm,xdm->xtd", a, W[pre + "moe.experts.down.weight"])
        out = (eo.float() * wd.t()[:, :, None]).sum(0).to(self.dt)
        if mo.get("shared_mlp"):
            gu = F.linear(h, W[pre + "moe.shared.gate_up.weight"])
            S = gu.shape[-1] // 2
            out = out + F.linear(self.act(gu[:, :S], p["mlp_act"]) * gu[:, S:],
                                 W[pre + "moe.shared.down.weight"])
        return out

    def prefix(self, img_tokens, tokens):
        b = self.p["backbone"]
        D = b["width"]
        emb = self.W["backbone.embed.weight"][tokens].float() * math.sqrt(D)
        x = torch.cat([img_tokens, emb.to(self.dt)])
        cache = []
        for l in range(b["layers"]):
            x, kv = self.layer("backbone", l, x, 0, None)
            cache.append(kv)
        return cache

    def step(self, cache, x_t, t):
        e = self.p["expert"]
        E = e["width"]
        half = E // 2
        i = torch.arange(half, dtype=torch.float64, device=self.dev)
        period = 4e-3 * (4.0 / 4e-3) ** (i / (half - 1))
        a = t.double() * (2 * math.pi / period)
        temb = torch.cat([a.sin(), a.cos()]).float()
        ae = self.lin(x_t.to(self.dt), "expert.action_in")
        cat = torch.cat([ae, temb.to(self.dt).expand(ae.shape[0], E)], -1)
        h = self.lin(F.silu(self.lin(cat, "expert.time_in")), "expert.time_out")
        for l in range(e["layers"]):
            h, _ = self.layer("expert", l, h, self.P, cache[l])
        vel = self.lin(self.rms(h, self.W["expert.final_norm.weight"]), "expert.action_out")
        return vel.float()

    def post(self, x):
        W = self.W
        return torch.minimum(torch.maximum(x * W["action.std"] + W["action.mean"], W["action.low"]),
                             W["action.high"])

    def forward(self, images, tokens, noise, events=None):
        steps = self.p["action"]["steps"]
        ev = events or [None] * (steps + 4)
        if ev[0] is not None:
            ev[0].record()
        img = self.vision(images)
        if ev[1] is not None:
            ev[1].record()
        cache = self.prefix(img, tokens)
        if ev[2] is not None:
            ev[2].record()
        x = noise.clone()
        dt = self.dt_c
        t = self.t_c.clone()
        for s in range(steps):
            x = x + dt * self.step(cache, x, t)
            t = t + dt
            if ev[3 + s] is not None:
                ev[3 + s].record()
        out = self.post(x)
        if ev[3 + steps] is not None:
            ev[3 + steps].record()
        return out, x


def inputs(p, image, seed, device):
    v, a = p["vision"], p["action"]
    C = v["cameras"]
    n = C * 3 * image * image
    images = torch.tensor(-1 + 2 * rng_uniform(seed, "input.images", n), dtype=torch.float32)
    key = rng_key(seed, "input.tokens")
    toks = rng_bits(key, np.arange(a["text_tokens"], dtype=np.uint64)) % np.uint64(p["backbone"]["vocab"])
    noise = torch.tensor(rng_normal(seed, "input.noise", a["chunk"] * a["dim"]), dtype=torch.float32)
    return (images.view(C, 3, image, image).to(device), torch.tensor(toks.astype(np.int64)).to(device),
            noise.view(a["chunk"], a["dim"]).to(device))


def pct(v, q):
    v = sorted(v)
    i = max(0, min(len(v) - 1, math.ceil(q * len(v)) - 1))
    return v[i]


def stage_names(steps):
    return ["vision", "prefix"] + ["step %d" % i for i in range(steps)] + ["post"]


def bench(tw, ins, runs):
    """eager per-stage (events) and graph per-stage + whole-pass graph"""
    steps = tw.p["action"]["steps"]
    ns = steps + 3
    res = {"eager": {}, "graph": {}}
    with torch.no_grad():
        for _ in range(2):
            tw.forward(*ins)
        torch.cuda.synchronize()
        per = [[] for _ in range(ns + 1)]
        for _ in range(runs):
            ev = [torch.cuda.Event(enable_timing=True) for _ in range(ns + 1)]
            t0 = time.perf_counter()
            tw.forward(*ins, events=ev)
            torch.cuda.synchronize()
            tot = time.perf_counter() - t0
            for s in range(ns):
                per[s].append(ev[s].elapsed_time(ev[s + 1]))
            per[ns].append(tot * 1e3)
        res["eager"] = [(pct(x, 0.5), pct(x, 0.9), pct(x, 0.99)) for x in per]
        # one graph of the whole pass
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                tw.forward(*ins)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(g):
                g_out, g_x = tw.forward(*ins)
        except Exception as e:  # noqa: BLE001 - a capture failure is a finding
            res["graph_error"] = "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0])
            torch.cuda.synchronize()
            return res
        g.replay()
        torch.cuda.synchronize()
        tot = []
        for _ in range(runs):
            t0 = time.perf_counter()
            g.replay()
            torch.cuda.synchronize()
            tot.append((time.perf_counter() - t0) * 1e3)
        # per-stage graphs: vision, prefix, one step, post (each replayed alone)
        images, tokens, noise = ins
        stage_ms = []
        sv = {}

        def cap(fn):
            st = torch.cuda.Stream()
            st.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(st):
                fn()
            torch.cuda.current_stream().wait_stream(st)
            gg = torch.cuda.CUDAGraph()
            with torch.cuda.graph(gg):
                fn()
            return gg

        def f_vis():
            sv["img"] = tw.vision(images)

        def f_pre():
            sv["cache"] = tw.prefix(sv["img"], tokens)

        t1 = tw.t_c

        def f_step():
            sv["v"] = tw.step(sv["cache"], noise, t1)

        def f_post():
            sv["o"] = tw.post(noise)

        graphs = [cap(f) for f in (f_vis, f_pre, f_step, f_post)]
        for gg in graphs:
            times = []
            for _ in range(runs):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                gg.replay()
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b))
            stage_ms.append((pct(times, 0.5), pct(times, 0.9), pct(times, 0.99)))
        rows = [stage_ms[0], stage_ms[1]] + [stage_ms[2]] * steps + [stage_ms[3]]
        rows.append((pct(tot, 0.5), pct(tot, 0.9), pct(tot, 0.99)))
        res["graph"] = rows
        res["graph_actions"] = g_out.float().cpu().numpy()
        del g, graphs
    return res


def bench_compiled(tw, ins, runs, eager_actions, check, name, mode="default"):
    """the same pass with torch.compile'd blocks: timed with stream launches
    and as CUDA graphs; any failure is reported, never hidden"""
    t0 = time.perf_counter()
    try:
        tw.compile(mode)
        with torch.no_grad():
            act, _ = tw.forward(*ins)  # compiles here
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - t0
        print("torch.compile (%s mode): %.1f s" % (mode, compile_s), file=sys.stderr, flush=True)
        cos, err = compare(act.float().cpu().numpy(), eager_actions)
        check["torch compile vs torch eager " + name] = {"cosine": cos, "max_abs_error": err}
        res = bench(tw, ins, runs)
        if "graph_actions" in res:
            gcos, gerr = compare(res.pop("graph_actions"), eager_actions)
            check["torch compile graph vs torch eager " + name] = {"cosine": gcos,
                                                                   "max_abs_error": gerr}
        res["compile_s"] = compile_s
        res["mode"] = ("torch.compile(%s mode, dynamic=False) of the vision block and the dense"
                       " decoder layer" % mode)
        return res
    except Exception as e:  # noqa: BLE001 - reported in the JSON
        tw.vblock, tw.dlayer = tw._vblock, tw._dlayer
        return {"error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")}


def compare(a, b):
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    cos = float(a @ b / math.sqrt((a @ a) * (b @ b))) if (a @ a) > 0 and (b @ b) > 0 else float("nan")
    return cos, float(np.max(np.abs(a - b)))


def main():
    if "--probe" in sys.argv[1:]:
        return probe_main()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", required=True)
    ap.add_argument("--weights", required=True)
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    ap.add_argument("--doctor", action="append", default=[], help="DTYPE=bench.json of the doctor")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--image", type=int, default=0)
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-bench", action="store_true", help="cross-check only")
    ap.add_argument("--no-compile", action="store_true", help="skip the torch.compile column")
    ap.add_argument("--compile-mode", default="default",
                    choices=["default", "max-autotune", "max-autotune-no-cudagraphs"],
                    help="torch.compile's mode for the compiled column")
    a = ap.parse_args()
    dev = "cuda"
    p = load_preset(a.preset)
    image = a.image or p["vision"]["image"]
    t0 = time.perf_counter()
    W = load_safetensors(a.weights, dev)
    load_s = time.perf_counter() - t0
    ins = inputs(p, image, a.seed, dev)
    doctor = {}
    for d in a.doctor:
        k, _, f = d.partition("=")
        doctor[k] = json.load(open(f))
    out = {"preset": p["name"], "torch": torch.__version__, "device": torch.cuda.get_device_name(),
           "weights": a.weights, "load_s": load_s, "runs": a.runs, "check": {}}
    red = torch.bfloat16 if a.dtype == "bf16" else torch.float16
    actions = {}
    for name, dt in (("fp32", torch.float32), (a.dtype, red)):
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        tw = Twin(p, W, dt, image, dev)
        with torch.no_grad():
            act, _ = tw.forward(*ins)
        actions[name] = act.float().cpu().numpy()
        if name in doctor:
            cos, err = compare(actions[name], doctor[name]["actions"])
            out["check"][name + " torch vs doctor " + name] = {"cosine": cos, "max_abs_error": err}
        if name != "fp32" and not a.no_bench:
            torch.cuda.reset_peak_memory_stats()
            out["bench"] = bench(tw, ins, a.runs)
            out["bench"]["peak_memory_bytes"] = torch.cuda.max_memory_allocated()
            if "graph_actions" in out["bench"]:
                gcos, gerr = compare(out["bench"].pop("graph_actions"), actions[name])
                out["check"]["torch graph vs torch eager " + name] = {"cosine": gcos,
                                                                     "max_abs_error": gerr}
            if not a.no_compile:
                out["compile"] = bench_compiled(tw, ins, a.runs, actions[name], out["check"], name,
                                                a.compile_mode)
        del tw
        torch.cuda.empty_cache()
    cos, err = compare(actions[a.dtype], actions["fp32"])
    out["check"]["torch %s vs torch fp32" % a.dtype] = {"cosine": cos, "max_abs_error": err}
    out["max_abs_action_fp32"] = float(np.max(np.abs(actions["fp32"])))
    out["stages"] = stage_names(p["action"]["steps"]) + ["total"]
    js = dumps(out, indent=1)
    if a.json:
        open(a.json, "w").write(js + "\n")
    print(js)




# ---- probe mode (probes/probe_torch.c) -------------------------------------
# One JSON object on stdout; every field the C side reads may be absent, and
# it then says why that fact is unknown. Raw kernel names are reported, the
# C side classifies them (src/vla/torch_kernels.c), so one classifier, with
# unit tests, serves CUDA and ROCm answers.

_INIT_STD = {"bias": 0.02, "zero": 0.02, "pos": 0.2}


def synthetic_weights(layout, device, seed):
    """the doctor's layout (names, shapes, init kinds) filled on the device
    with the doctor's scales; values differ from the doctor's (torch's RNG),
    which is why numerics against the doctor use the shared small preset"""
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    W = {}
    for t in layout["tensors"]:
        shape, init = t["shape"], t["init"]
        if init == "stats":
            W[t["name"]] = torch.tensor(t["values"], dtype=torch.float32, device=device)
            continue
        x = torch.randn(shape, generator=g, device=device, dtype=torch.float32)
        if init in ("linear", "embed"):
            x *= 1.0 / math.sqrt(shape[-1])
        elif init == "norm":
            x = 1.0 + 0.02 * x
        else:
            x *= _INIT_STD[init]
        W[t["name"]] = x
    return W


def driver_version(hip):
    """the driver's version as its runtime reports it (cuDriverGetVersion /
    hipDriverGetVersion), through the library torch already loaded"""
    import ctypes  # noqa: PLC0415

    lib = ctypes.CDLL("libamdhip64.so" if hip else "libcuda.so.1")
    v = ctypes.c_int(0)
    rc = (lib.hipDriverGetVersion if hip else lib.cuDriverGetVersion)(ctypes.byref(v))
    if rc != 0:
        raise RuntimeError("driver version call returned %d" % rc)
    return str(v.value)


def kernel_names(prof):
    """the GPU kernels (and copies) that ran; the aten:: operators are CPU
    side and would name a backend torch only considered"""
    names = set()
    for e in prof.key_averages():
        if e.key.startswith("aten::"):
            continue
        dt = getattr(e, "self_device_time_total", None)
        if dt is None:
            dt = getattr(e, "self_cuda_time_total", 0)
        if dt and dt > 0:
            names.add(e.key[:240])
    return sorted(names)


def profiled(fn):
    from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return kernel_names(prof)


def stage_p50(rows, steps):
    """bench() rows (vision, prefix, steps..., post, total) -> p50 ms per stage"""
    return {"vision_ms": rows[0][0], "prefix_ms": rows[1][0],
            "step_ms": max(r[0] for r in rows[2:2 + steps]), "post_ms": rows[2 + steps][0],
            "total_ms": rows[-1][0]}


def tiny_compile(dev, timeout_s):
    """torch.compile of one small function: Triton present and compiling for this target"""
    import signal  # noqa: PLC0415

    out = {"triton": ""}
    try:
        import triton  # noqa: PLC0415

        out["triton"] = triton.__version__
    except Exception as e:  # noqa: BLE001
        out["ok"] = False
        out["error"] = "triton does not import: %s: %s" % (type(e).__name__, e)
        return out

    def alarm(_s, _f):
        raise TimeoutError("torch.compile took more than %d s" % timeout_s)

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(timeout_s)
    try:
        f = torch.compile(lambda x: torch.sin(x) * 2 + 1, dynamic=False)
        x = torch.randn(1024, device=dev)
        ok = torch.allclose(f(x), torch.sin(x) * 2 + 1, atol=1e-5)
        out["ok"] = bool(ok)
        out["error"] = "" if ok else "the compiled result differs from eager"
    except Exception as e:  # noqa: BLE001
        out["ok"] = False
        out["error"] = "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return out


def probe_main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", action="store_true")
    ap.add_argument("--preset", required=True)
    ap.add_argument("--layout", required=True, help="the doctor's weight layout (JSON)")
    ap.add_argument("--shared-preset", default=None)
    ap.add_argument("--shared-weights", default=None)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--compile-timeout", type=int, default=120)
    ap.add_argument("--no-compile", action="store_true")
    a = ap.parse_args()
    out = {"torch": torch.__version__, "hip": torch.version.hip or "",
           "cuda": torch.version.cuda or ""}
    try:
        out["driver"] = driver_version(out["hip"] != "")
    except Exception as e:  # noqa: BLE001
        out["driver_error"] = "%s: %s" % (type(e).__name__, e)
    out["tunableop"] = bool(torch.cuda.tunable.is_enabled()) if hasattr(torch.cuda, "tunable") else None
    if not torch.cuda.is_available():
        out["gpu_count"] = 0
        out["error"] = "torch.cuda.is_available() is False (torch %s, %s)" % (
            torch.__version__, "HIP " + out["hip"] if out["hip"] else
            "CUDA " + out["cuda"] if out["cuda"] else "CPU-only build")
        print(dumps(out))
        return 0
    out["gpu_count"] = torch.cuda.device_count()
    i = torch.cuda.current_device()
    pr = torch.cuda.get_device_properties(i)
    # gcnArchName is the gfx target on ROCm; on CUDA it repeats the name
    d = {"index": i, "name": pr.name, "arch": pr.gcnArchName if out["hip"] else
         "sm_%d%d" % (pr.major, pr.minor), "total_memory": pr.total_memory}
    if hasattr(pr, "pci_bus_id"):
        d["pci"] = "%04x:%02x:%02x.0" % (getattr(pr, "pci_domain_id", 0), pr.pci_bus_id,
                                          getattr(pr, "pci_device_id", 0))
    out["device"] = d
    try:
        out["blas_preferred"] = str(torch.backends.cuda.preferred_blas_library()).split(".")[-1]
    except Exception as e:  # noqa: BLE001
        out["blas_preferred_error"] = str(e)
    print(json.dumps({"stage": "device"}), file=sys.stderr, flush=True)
    dev = "cuda"
    out["compile"] = ({"ok": False, "error": "--no-compile"} if a.no_compile
                      else tiny_compile(dev, a.compile_timeout))
    p = load_preset(a.preset)
    image = p["vision"]["image"]
    W = synthetic_weights(json.load(open(a.layout)), dev, 0)
    ins = inputs(p, image, 0, dev)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    steps = p["action"]["steps"]
    with torch.no_grad():
        tw = Twin(p, W, torch.float32, image, dev)
        a32 = tw.forward(*ins)[0].float().cpu().numpy()
        del tw
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        tw = Twin(p, W, torch.bfloat16, image, dev)
        a16 = tw.forward(*ins)[0].float().cpu().numpy()
        out["kernels"] = profiled(lambda: tw.forward(*ins))
    cos, err = compare(a16, a32)
    out["numerics"] = {"cosine": cos, "max_error": err,
                       "max_abs_fp32": float(np.max(np.abs(a32)))}
    out["weights_dtype"] = "bf16"
    out["preset"] = p["name"]
    res = bench(tw, ins, a.runs)
    out["peak_memory_bytes"] = torch.cuda.max_memory_allocated()
    out["latency"] = {"eager": stage_p50(res["eager"], steps)}
    if "graph" in res and res["graph"]:
        out["latency"]["graph"] = stage_p50(res["graph"], steps)
    out["graph_error"] = res.get("graph_error", "")
    if out["compile"].get("ok"):
        c = bench_compiled(tw, ins, a.runs, a16, {}, "bf16")
        if "error" in c:
            out["compile"]["pass_error"] = c["error"]
        else:
            out["latency"]["compiled"] = stage_p50(c.get("graph") or c["eager"], steps)
            out["compile"]["compile_s"] = c["compile_s"]
    del tw, W
    torch.cuda.empty_cache()
    if a.shared_preset and a.shared_weights:
        sp = load_preset(a.shared_preset)
        sw = load_safetensors(a.shared_weights, dev)
        sins = inputs(sp, sp["vision"]["image"], 0, dev)
        with torch.no_grad():
            tw = Twin(sp, sw, torch.float32, sp["vision"]["image"], dev)
            out["shared"] = {"preset": sp["name"],
                             "actions": tw.forward(*sins)[0].float().cpu().numpy().ravel().tolist()}
    print(dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
