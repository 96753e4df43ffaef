#!/bin/sh
# a CUDA torch's answer (tests/torch_probe.sh): flash attention, cuBLASLt
cat <<'J'
{"torch": "2.11.0+cu130", "hip": "", "cuda": "13.0", "driver": "13000", "tunableop": false, "gpu_count": 1,
 "device": {"index": 0, "name": "NVIDIA H200", "arch": "sm_90", "pci": "0000:19:00.0"},
 "blas_preferred": "Cublas", "compile": {"ok": true, "error": "", "triton": "3.5.0"},
 "kernels": ["pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128>>", "nvjet_tst_128x64_64x8_2x1_v_bz_TNT", "void at::native::vectorized_elementwise_kernel"],
 "numerics": {"cosine": 0.99996, "max_error": 0.033, "max_abs_fp32": 2.1},
 "weights_dtype": "bf16", "preset": "pi0",
 "latency": {"eager": {"vision_ms": 10, "prefix_ms": 12, "step_ms": 3, "post_ms": 0.1, "total_ms": 80},
             "graph": {"vision_ms": 5, "prefix_ms": 8, "step_ms": 1, "post_ms": 0.05, "total_ms": 25},
             "compiled": {"vision_ms": 4, "prefix_ms": 6, "step_ms": 0.9, "post_ms": 0.05, "total_ms": 21}},
 "graph_error": "", "peak_memory_bytes": 19000000000}
J
