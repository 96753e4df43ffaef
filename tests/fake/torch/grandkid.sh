#!/bin/sh
# answers, exits, and leaves a grandchild holding stdout open
# (tests/torch_probe.sh): the doctor takes the answer at the exit
sleep 300 &
exec sh "$(dirname "$0")/cuda.sh"
