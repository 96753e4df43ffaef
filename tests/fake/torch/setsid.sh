#!/bin/sh
# starts a descendant in a session of its own, then hangs
# (tests/torch_probe.sh): a SIGTERM to the doctor ends both
setsid sh -c 'echo $$ >"$RVD_TEST_PIDFILE.tmp" && mv "$RVD_TEST_PIDFILE.tmp" "$RVD_TEST_PIDFILE" && exec sleep 300' \
    </dev/null >/dev/null 2>&1 &
echo $$ >"$RVD_TEST_PIDFILE.parent"
exec sleep 300
