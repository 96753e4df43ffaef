#!/bin/sh
# an answer that is not JSON (tests/torch_probe.sh)
echo 'torch 2.11 says hello'
