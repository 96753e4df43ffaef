#!/bin/sh
# a ROCm torch's answer (tests/torch_probe.sh): torch.version.hip set,
# AOTriton attention, rocBLAS Tensile GEMMs (no hipBLASLt), TunableOp off,
# graph capture failing, torch.compile failing, a host copy in the pass
cat <<'J'
{"torch": "2.9.1+rocm6.4", "hip": "6.4.43483", "cuda": "", "driver": "60443483", "tunableop": false, "gpu_count": 1,
 "device": {"index": 0, "name": "AMD Instinct MI300X", "arch": "gfx942:sramecc+:xnack-", "pci": "0000:03:00.0"},
 "blas_preferred": "Cublas", "compile": {"ok": false, "error": "RuntimeError: triton has no backend for gfx942", "triton": "3.4.0"},
 "kernels": ["attn_fwd", "Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI16x16x1_SN_1LDSB1", "Memcpy HtoD (Pageable -> Device)"],
 "numerics": {"cosine": 0.9999, "max_error": 0.05, "max_abs_fp32": 2.0},
 "weights_dtype": "bf16", "preset": "pi0",
 "latency": {"eager": {"vision_ms": 30, "prefix_ms": 40, "step_ms": 9, "post_ms": 0.2, "total_ms": 190}},
 "graph_error": "RuntimeError: operation not permitted when stream is capturing", "peak_memory_bytes": 19000000000}
J
