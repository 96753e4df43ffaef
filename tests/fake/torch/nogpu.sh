#!/bin/sh
# a CPU-only torch (tests/torch_probe.sh)
echo '{"torch": "2.11.0+cpu", "hip": "", "cuda": "", "tunableop": false, "gpu_count": 0, "error": "torch.cuda.is_available() is False (torch 2.11.0+cpu, CPU-only build)"}'
