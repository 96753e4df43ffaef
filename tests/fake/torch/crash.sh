#!/bin/sh
# a torch that crashes on import (tests/torch_probe.sh)
echo 'Traceback (most recent call last):' >&2
echo 'ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory' >&2
exit 1
