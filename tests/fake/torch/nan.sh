#!/bin/sh
# an answer whose bf16 output was NaN (tests/torch_probe.sh): torch_probe.py
# writes null and names the path in "nonfinite"; and numbers out of range
cat <<'J'
{"torch": "2.11.0+rocm7.0", "hip": "7.0.1", "cuda": null, "driver": "", "tunableop": false, "gpu_count": 1e300,
 "device": {"index": 0, "name": "AMD Instinct MI300X", "arch": "gfx942", "pci": "0000:05:00.0"},
 "blas_preferred": "Cublaslt", "compile": {"ok": true, "error": "", "triton": "3.5.0"},
 "kernels": [],
 "numerics": {"cosine": null, "max_error": null, "max_abs_fp32": 2.1},
 "nonfinite": ["numerics.cosine", "numerics.max_error"],
 "weights_dtype": "bf16", "preset": "pi0",
 "latency": {"eager": {"vision_ms": 10, "prefix_ms": 12, "step_ms": 3, "post_ms": 0.1, "total_ms": 80}},
 "graph_error": "", "peak_memory_bytes": -1e300}
J
