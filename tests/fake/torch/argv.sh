#!/bin/sh
# names the script it was given, and whether that file is there (tests/torch_probe.sh)
[ -f "$1" ] && there=yes || there=no
echo "{\"torch\": \"x\", \"hip\": \"\", \"cuda\": \"\", \"gpu_count\": 0, \"error\": \"script $1 $there\"}"
