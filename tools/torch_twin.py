#!/usr/bin/env python3
"""torch_twin.py - `make bench`'s PyTorch twin: the same file the torch probe
runs (probes/torch_probe.py, installed and built into the binary), kept here
so tools/vla_bench.sh and its users keep their command line."""
import os
import runpy
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.argv[0] = os.path.join(here, "..", "probes", "torch_probe.py")
runpy.run_path(sys.argv[0], run_name="__main__")
