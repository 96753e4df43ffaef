#!/bin/sh
# hostile_cli.sh - directory sysroots built to attack the reader: symlinks
# that aim outside the root (absolute, climbing, through other links, at
# /proc/self), loops and 45-link chains, FIFOs at every file the probes read
# (a read would block for ever: there is no watchdog at the quick level) and
# device nodes (as root), a
# root check that followed proc/ or the manifest out of the root, a
# 1 GiB sparse file, a 1000-level directory tree and directories of 20000
# entries. Each case runs `check --sysroot DIR` under `timeout` and, outside
# the sanitizer build, a 4 GiB `ulimit -v`; each has an expected exit code,
# and a marker planted outside the root must never reach the report.
# PCI config space (pcie.atomics) is the case where a library used to be
# handed a host path: a config symlink to a file outside the root must give
# the verdict of the file inside. Snapshot tarballs: tests/snapshot.sh;
# FIFOs as user-named input files: tests/hostile_inputs.sh.
# Ends with "N passed, M failed". RVD and OUT come from the environment.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=hostile_cli
. tests/lib.sh
H=$OUT/hostile_cli
rm -rf "$H" && mkdir -p "$H"
H=$(cd "$H" && pwd) # absolute: the trees link to it
FIX=tests/fixtures/rx7800xt-hot-edge/root
GPU_DIR=sys/devices/pci0000:00/0000:00:03.1/0000:2d:00.0/0000:2e:00.0/0000:2f:00.0
MARK=RVD-OUTSIDE-MARKER

# the outside world a tree must never reach: a text marker, and a config
# space that changes the pcie.atomics verdict (no capability list)
mkdir -p "$H/outside"
printf '%s quiet splash amdgpu.%s=1\n' "$MARK" "$MARK" >"$H/outside/secret"
python3 - "$FIX/$GPU_DIR/config" "$H/outside/config" <<'EOF'
import sys
c = bytearray(open(sys.argv[1], "rb").read())
c[6] &= ~0x10  # PCI_STATUS_CAP_LIST off: no PCI Express capability
open(sys.argv[2], "wb").write(c)
EOF
mkfifo "$H/outside/fifo"

sanitizer_report() { grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$1"; }

newtree() { # newtree NAME: a fresh copy of the fixture machine, its path on stdout
    rm -rf "$H/$1"
    cp -R "$FIX" "$H/$1"
    printf '%s\n' "$H/$1"
}

# run NAME ROOT SECONDS WANT...: one check run; WANT are the accepted exit codes
run() {
    name=$1 root=$2 secs=$3
    shift 3
    (
        [ -n "${ASAN_OPTIONS:-}" ] || ulimit -v 4194304
        [ -z "${RUN_TMPDIR:-}" ] || export TMPDIR="$RUN_TMPDIR"
        exec timeout -k 5 "$secs" "$RVD" check --no-color --sysroot "$root" --json "$H/$name.json"
    ) >"$H/$name.out" 2>"$H/$name.err"
    rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        bad "$name: did not finish within $secs s"
        return 1
    fi
    if sanitizer_report "$H/$name.err"; then
        bad "$name: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error' "$H/$name.err")"
        return 1
    fi
    for w in "$@"; do
        if [ "$rc" -eq "$w" ]; then
            if grep -qs "$MARK" "$H/$name.out" "$H/$name.err" "$H/$name.json"; then
                bad "$name: the report shows a file from outside the root"
                return 1
            fi
            ok
            return 0
        fi
    done
    bad "$name: exit $rc, want one of $*: $(head -3 "$H/$name.err" | tr '\n' '|')"
    return 1
}

# the fixture as it is: the reference verdict
base=$(newtree base)
run base "$base" 60 0 1
expect "base: pcie.atomics passes" "$H/base.json" 'c["pcie.atomics"]["status"] == "pass"'

# ---- PCI config space through a link out of the root --------------------
# absolute: the in-root reader finds <root>$H/outside/config (the real
# config); the host path would be $H/outside/config (no PCIe capability)
t=$(newtree config-abs)
mkdir -p "$t$H/outside"
mv "$t/$GPU_DIR/config" "$t$H/outside/config"
ln -s "$H/outside/config" "$t/$GPU_DIR/config"
if run config-abs "$t" 60 0 1; then
    expect "config-abs: the verdict of the config inside the root" "$H/config-abs.json" \
        'c["pcie.atomics"]["status"] == "pass" and f["gpu.0.atomics.path_ok"] is True'
fi
# through a link to the root's parent: `top -> <depth of ..>` then top/..
t=$(newtree config-via-link)
ups=$(printf '%s' "$GPU_DIR" | sed 's/[^/]*/../g')
ln -s "$ups" "$t/$GPU_DIR/top"
mkdir -p "$t/escape" "$H/escape"
mv "$t/$GPU_DIR/config" "$t/escape/config"
cp "$H/outside/config" "$H/escape/config" # where the host lands: $H is the root's parent
ln -s "top/../escape/config" "$t/$GPU_DIR/config"
if run config-via-link "$t" 60 0 1; then
    expect "config-via-link: the verdict of the config inside the root" \
        "$H/config-via-link.json" 'c["pcie.atomics"]["status"] == "pass"'
fi
# a FIFO outside, a regular file at the same path inside: never opened
t=$(newtree config-fifo)
mkdir -p "$t$H/outside"
mv "$t/$GPU_DIR/config" "$t$H/outside/fifo"
ln -s "$H/outside/fifo" "$t/$GPU_DIR/config"
if run config-fifo "$t" 20 0 1; then
    expect "config-fifo: the verdict of the config inside the root" "$H/config-fifo.json" \
        'c["pcie.atomics"]["status"] == "pass"'
fi
# the config itself a FIFO, and a 1 GiB sparse config: unknown, with why
t=$(newtree config-is-fifo)
rm "$t/$GPU_DIR/config" && mkfifo "$t/$GPU_DIR/config"
if run config-is-fifo "$t" 20 0 1; then
    expect "config-is-fifo: atomics unknown" "$H/config-is-fifo.json" \
        'c["pcie.atomics"]["status"] == "skip" and f["gpu.0.atomics.path_ok"] is None and "config: Operation not permitted" in c["pcie.atomics"]["summary"]'
fi
t=$(newtree config-huge)
truncate -s 1G "$t/$GPU_DIR/config"
if run config-huge "$t" 30 0 1; then
    expect "config-huge: atomics unknown" "$H/config-huge.json" \
        'c["pcie.atomics"]["status"] == "skip" and "config: File too large" in c["pcie.atomics"]["summary"]'
fi

# the same tree as a snapshot tarball: unpacked into $TMPDIR/rocm-vla-
# doctor-snapshot.XXXXXX, `top/..` is $TMPDIR for the kernel. A FIFO waits
# there (a run that opened it would hang), then a config that changes the
# verdict; the archive must be refused before anything reads it
t=$H/config-via-link
printf 'tool rocm-vla-doctor 0.1.0\ncollected 2026-11-30T00:00:00Z\n' >"$t/.snapshot/meta"
python3 - "$t" "$H/config-via-link.tar.gz" <<'EOF2'
import sys, tarfile
with tarfile.open(sys.argv[2], "w:gz", format=tarfile.USTAR_FORMAT) as tf:
    tf.add(sys.argv[1], arcname=".")
EOF2
for kind in fifo file; do
    rm -rf "$H/tartmp-$kind" && mkdir -p "$H/tartmp-$kind/escape"
    if [ $kind = fifo ]; then mkfifo "$H/tartmp-$kind/escape/config"; else
        cp "$H/outside/config" "$H/tartmp-$kind/escape/config"
    fi
    RUN_TMPDIR=$H/tartmp-$kind
    run config-tar-$kind "$H/config-via-link.tar.gz" 20 2
    RUN_TMPDIR=
    if grep -q "leaves the snapshot through the symlink '$GPU_DIR/top'" "$H/config-tar-$kind.err"; then
        ok
    else
        bad "config-tar-$kind: not refused for the link: $(head -2 "$H/config-tar-$kind.err")"
    fi
    left=$(ls -A "$H/tartmp-$kind" | grep -v '^escape$')
    if [ -z "$left" ]; then ok; else bad "config-tar-$kind: left $left in its TMPDIR"; fi
done

# ---- symlink tricks -------------------------------------------------------
t=$(newtree links-out)
ln -sf "$H/outside/secret" "$t/proc/cmdline"
rm -f "$t/etc/os-release"
ln -s "$(printf '%s' "$H/links-out/etc" | sed 's/[^/]*/../g')$H/outside/secret" "$t/etc/os-release"
ln -sfn /etc/shadow "$t/etc/shadow-link"
rm -rf "$t/proc/self" && ln -s /proc/self "$t/proc/self"
run links-out "$t" 60 0 1
t=$(newtree links-loops)
rm -rf "$t/sys/module/amdgpu"
ln -s amdgpu-b "$t/sys/module/amdgpu" && ln -s amdgpu "$t/sys/module/amdgpu-b"
rm -f "$t/proc/cmdline" && ln -s cmdline "$t/proc/cmdline"
rm -f "$t/etc/os-release"
i=0
while [ $i -lt 45 ]; do
    ln -s "c$((i + 1))" "$t/etc/c$i"
    i=$((i + 1))
done
echo 'ID=debian' >"$t/etc/c45"
ln -s c0 "$t/etc/os-release" # 46 links: ELOOP, as for the kernel
run links-loops "$t" 60 0 1
expect "links-loops: a chain past 40 links is not followed" "$H/links-loops.json" \
    'f["host.os"] is None'

# the root check sees the tree as the reader does: proc -> /proc is no proc/
# directory, and a manifest reached through a link out of the tree is none
mkdir -p "$H/proc-host/sys" "$H/outside/.snapshot"
ln -s /proc "$H/proc-host/proc"
if run proc-host "$H/proc-host" 20 2; then
    if grep -q "no proc/ directory" "$H/proc-host.err"; then ok; else
        bad "proc-host: the message does not name proc/: $(head -2 "$H/proc-host.err")"
    fi
fi
printf 'tool rocm-vla-doctor 0.1.0\ncollected 2026-11-30T00:00:00Z\n' >"$H/outside/.snapshot/meta"
mkdir -p "$H/manifest-out"
ln -s "$H/outside/.snapshot" "$H/manifest-out/.snapshot"
run manifest-out "$H/manifest-out" 20 2
# a link to a directory inside the tree is a directory to the reader
t=$(newtree proc-inside)
mv "$t/proc" "$t/proc-real" && ln -s proc-real "$t/proc"
run proc-inside "$t" 60 0 1

# ---- FIFOs at every file a probe reads -----------------------------------
t=$(newtree fifo-everywhere)
(cd "$t" && find . -type f) | while read -r f; do
    rm -f "$t/$f" && mkfifo "$t/$f"
done
for q in dmesg python identity environ devnodes kfd-open vulkan target-binaries rocm-lib-deps read-errors; do
    rm -f "$t/.snapshot/$q" && mkfifo "$t/.snapshot/$q"
done
for f in proc/cmdline etc/os-release sys/module/amdgpu/version; do
    mkdir -p "$(dirname "$t/$f")" && rm -f "$t/$f" && mkfifo "$t/$f"
done
run fifo-everywhere "$t" 20 0 1

# device nodes (root only: mknod): /dev/zero would never end, /dev/tty
# would wait for the terminal; the reader refuses both before a read
if [ "$(id -u)" = 0 ]; then
    t=$(newtree devnodes)
    for f in proc/cmdline "$GPU_DIR/config" .snapshot/python; do
        rm -f "$t/$f" && mknod "$t/$f" c 1 5
    done
    rm -f "$t/.snapshot/dmesg" && mknod "$t/.snapshot/dmesg" c 5 0
    rm -f "$t/etc/os-release" && mknod "$t/etc/os-release" b 7 0
    if run devnodes "$t" 20 0 1; then
        expect "devnodes: config space not read" "$H/devnodes.json" \
            'c["pcie.atomics"]["status"] == "skip" and "config: Operation not permitted" in c["pcie.atomics"]["summary"]'
    fi
else
    echo "SKIP hostile_cli: device nodes need root to make (mknod)"
fi

# ---- sizes ----------------------------------------------------------------
t=$(newtree huge-files)
truncate -s 1G "$t/proc/cmdline"
truncate -s 1G "$t/etc/os-release"
truncate -s 1G "$t/.snapshot/dmesg"
run huge-files "$t" 60 0 1
t=$(newtree deep-tree)
(
    cd "$t/sys/class" || exit 1
    i=0
    while [ $i -lt 1000 ]; do
        mkdir d && cd d || exit 1
        i=$((i + 1))
    done
)
mkdir -p "$t/opt/rocm/lib"
ln -s "../../../sys/class/d" "$t/opt/rocm/lib/libdeep.so"
run deep-tree "$t" 60 0 1
t=$(newtree wide-dirs)
mkdir -p "$t/opt/rocm/lib"
python3 - "$t" <<'EOF'
import os, sys
t = sys.argv[1]
for i in range(20000):
    os.mkdir("%s/sys/bus/pci/devices/x%05d" % (t, i))
    open("%s/sys/class/drm/card%d" % (t, 1000 + i), "w").close()
    open("%s/opt/rocm/lib/librocblas.so.%d" % (t, i), "w").close()
EOF
run wide-dirs "$t" 120 0 1

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
