#!/bin/sh
# a torch that fails with one huge stderr line (tests/torch_probe.sh): the
# reason keeps about 500 bytes of it
head -c 3000000 /dev/zero | tr '\0' 'x' >&2
echo >&2
exit 1
