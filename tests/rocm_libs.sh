#!/bin/sh
# rocm_libs.sh - rocm.lib_deps and rocm.torch_lib_set on sysroot machines built
# here from tiny ELF stand-ins (cc -shared, with the DT_NEEDED, DT_RUNPATH and
# DT_RPATH each case needs): one ROCm install that resolves (through a real
# ld.so.cache written by ldconfig -C, and through ld.so.conf without one), a
# missing dependency, two ROCm installs mixed, a PyTorch wheel whose torch/lib
# RUNPATH $ORIGIN wins over a system ROCm, and a wheel without its own HIP.
# Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
W="$OUT/rocm_libs"
rm -rf "$W" && mkdir -p "$W"
NAME=rocm_libs
. tests/lib.sh

if ! command -v cc >/dev/null 2>&1; then
    echo "SKIP rocm_libs: no C compiler to build the ELF stand-ins"
    echo "0 passed, 0 failed"
    exit 0
fi

# so ROOT/PATH SONAME [ld flags...]: a shared object with that soname
so() {
    out=$1$2
    soname=$3
    shift 3
    mkdir -p "$(dirname "$out")"
    echo "int f_$(echo "$soname" | tr -c 'a-zA-Z0-9\n' _)(void){return 0;}" >"$W/x.c"
    cc -shared -fPIC -nostdlib -Wl,--no-as-needed -o "$out" "$W/x.c" -Wl,-soname,"$soname" "$@" || bad "cc $out"
}
# machine NAME: an empty sysroot with the directories a probe run needs
machine() {
    R="$W/$1/root"
    mkdir -p "$R/proc" "$R/sys" "$R/etc" "$R/opt" "$R/.snapshot"
    : >"$R/.snapshot/environ"
}
run() { # run NAME: check --only rocm.lib_deps on it
    "$RVD" --sysroot "$W/$1/root" --no-color --only rocm.lib_deps --json "$W/$1.json" \
        >"$W/$1.txt" 2>"$W/$1.err"
    echo $?
}
L="-L$W/lib"

# ---- 1. one ROCm 6.2 install, found through ld.so.conf (no cache) ----------
machine good
R="$W/good/root"
so "$R" /opt/rocm-6.2.0/lib/libhsa-runtime64.so.1 libhsa-runtime64.so.1
so "$R" /opt/rocm-6.2.0/lib/libamdhip64.so.6 libamdhip64.so.6 \
    "$R/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1" -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
ln -s libamdhip64.so.6 "$R/opt/rocm-6.2.0/lib/libamdhip64.so"
ln -s rocm-6.2.0 "$R/opt/rocm"
mkdir -p "$R/etc/ld.so.conf.d"
echo "include /etc/ld.so.conf.d/*.conf" >"$R/etc/ld.so.conf"
echo "/opt/rocm/lib" >"$R/etc/ld.so.conf.d/rocm.conf"
rc=$(run good)
if [ "$rc" = 0 ] && [ "$(status rocm.lib_deps "$W/good.json")" = pass ]; then ok; else bad "good: exit $rc, $(status rocm.lib_deps "$W/good.json")"; fi
case $(fact rocm.lib_deps.roots "$W/good.json") in
"hip: /opt/rocm/lib/libamdhip64.so (ld.so.conf)") ok ;;
*) bad "good roots: $(fact rocm.lib_deps.roots "$W/good.json")" ;;
esac
[ "$(fact rocm.lib_deps.checked "$W/good.json")" = 1 ] && ok || bad "good: checked $(fact rocm.lib_deps.checked "$W/good.json")"

# the same through a binary ld.so.cache that ldconfig writes (no ld.so.conf)
if command -v ldconfig >/dev/null 2>&1 || [ -x /sbin/ldconfig ]; then
    LDC=$(command -v ldconfig || echo /sbin/ldconfig)
    echo "$R/opt/rocm-6.2.0/lib" >"$W/conf"
    if "$LDC" -C "$R/etc/ld.so.cache" -f "$W/conf" 2>"$W/ldconfig.err"; then
        rm -rf "$R/etc/ld.so.conf" "$R/etc/ld.so.conf.d"
        # ldconfig wrote host paths: the cache names files as the target sees them
        rc=$(run good)
        case $(fact rocm.lib_deps.roots "$W/good.json") in
        "hip: $R/opt/rocm-6.2.0/lib/libamdhip64.so (ld.so.cache)") bad "cache path escaped the root" ;;
        *) ok ;;
        esac
        [ "$rc" = 0 ] && ok || bad "good with cache: exit $rc"
    else
        echo "SKIP rocm_libs: ldconfig -C cannot write a cache here: $(head -1 "$W/ldconfig.err")"
    fi
fi

# ---- 2. a missing dependency ----------------------------------------------
machine missing
R="$W/missing/root"
so "$W" /lib/libamd_comgr.so.2 libamd_comgr.so.2
so "$R" /opt/rocm-6.2.0/lib/libamdhip64.so libamdhip64.so.6 "$W/lib/libamd_comgr.so.2" \
    -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
ln -s rocm-6.2.0 "$R/opt/rocm"
rc=$(run missing)
if [ "$rc" = 1 ] && [ "$(status rocm.lib_deps "$W/missing.json")" = fail ]; then ok; else bad "missing: exit $rc"; fi
case $(fact rocm.lib_deps.missing "$W/missing.json") in
"libamd_comgr.so.2 (needed by /opt/rocm/lib/libamdhip64.so)") ok ;;
*) bad "missing: $(fact rocm.lib_deps.missing "$W/missing.json")" ;;
esac
grep -q "dependencies the loader cannot find" "$W/missing.txt" && ok || bad "missing: summary"

# ---- 3. two ROCm installs mixed: 6.2's HIP (no RUNPATH) loads 5.7's HSA ---
machine mixed
R="$W/mixed/root"
so "$R" /opt/rocm-5.7.0/lib/libhsa-runtime64.so.1 libhsa-runtime64.so.1
so "$R" /opt/rocm-6.2.0/lib/libhsa-runtime64.so.1 libhsa-runtime64.so.1
so "$R" /opt/rocm-6.2.0/lib/libamdhip64.so libamdhip64.so.6 \
    "$R/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1"
ln -s rocm-6.2.0 "$R/opt/rocm"
printf '/opt/rocm-5.7.0/lib\n/opt/rocm-6.2.0/lib\n' >"$R/etc/ld.so.conf"
rc=$(run mixed)
if [ "$rc" = 1 ] && [ "$(status rocm.lib_deps "$W/mixed.json")" = fail ]; then ok; else bad "mixed: exit $rc"; fi
case $(fact rocm.lib_deps.mixed "$W/mixed.json") in
*"libhsa-runtime64.so.1 -> /opt/rocm-5.7.0/lib/libhsa-runtime64.so.1 (ld.so.conf), outside /opt/rocm-6.2.0") ok ;;
*) bad "mixed: $(fact rocm.lib_deps.mixed "$W/mixed.json")" ;;
esac
# the same HIP with RUNPATH $ORIGIN keeps its own HSA: no mix
so "$R" /opt/rocm-6.2.0/lib/libamdhip64.so libamdhip64.so.6 \
    "$R/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1" -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
rc=$(run mixed)
[ "$rc" = 0 ] && [ "$(fact rocm.lib_deps.mixed "$W/mixed.json")" = "" ] && ok || bad "mixed with RUNPATH: exit $rc"
# DT_RPATH (old tags) of the HIP library wins over ld.so.conf too
so "$R" /opt/rocm-6.2.0/lib/libamdhip64.so libamdhip64.so.6 \
    "$R/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1" -Wl,--disable-new-dtags,-rpath,/opt/rocm-6.2.0/lib
rc=$(run mixed)
[ "$rc" = 0 ] && ok || bad "mixed with RPATH: exit $rc $(fact rocm.lib_deps.mixed "$W/mixed.json")"

# ---- 4. PyTorch wheel: torch/lib's own HIP wins over the system's ----------
# wheel NAME WITH_HIP: a system ROCm 6.2 in ld.so.conf and a torch whose
# libc10_hip.so needs libamdhip64.so with RUNPATH $ORIGIN
wheel() {
    machine "$1"
    R="$W/$1/root"
    T=/venv/lib/python3.11/site-packages/torch
    so "$R" /opt/rocm-6.2.0/lib/libamdhip64.so libamdhip64.so
    echo "/opt/rocm-6.2.0/lib" >"$R/etc/ld.so.conf"
    [ "$2" = 1 ] && so "$R" "$T/lib/libamdhip64.so" libamdhip64.so
    so "$R" "$T/lib/libc10_hip.so" libc10_hip.so "$R/opt/rocm-6.2.0/lib/libamdhip64.so" \
        -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
    printf 'executable=/venv/bin/python3\nversion=3.11.2\nprefix=/venv\ntorch_dir=%s\n' "$T" \
        >"$R/.snapshot/python"
}
wheel both 1
rc=$(run both)
[ "$(fact rocm.torch_lib_set "$W/both.json")" = "wheel:$T/lib" ] && ok || bad "both: lib_set $(fact rocm.torch_lib_set "$W/both.json")"
[ "$(fact rocm.torch_hip_lib "$W/both.json")" = "$T/lib/libamdhip64.so" ] && ok || bad "both: hip $(fact rocm.torch_hip_lib "$W/both.json")"
fact rocm.lib_deps.roots "$W/both.json" | grep -qxF "wheel hip: $T/lib/libamdhip64.so (torch/lib)" && ok || bad "both: roots"
# ROCm from pip: no system install, the wheel's own user space passes
# rocm.install and is named (issue 33)
"$RVD" --sysroot "$W/both/root" --no-color --only rocm.install --json "$W/both-install.json" \
    >"$W/both-install.txt" 2>&1
got=$(/usr/bin/python3 -c 'import json,sys
c=[c for c in json.load(open(sys.argv[1]))["checks"] if c["id"]=="rocm.install"][0]
print(c["status"], c["summary"])' "$W/both-install.json" 2>&1)
[ "$got" = "pass no system ROCm: PyTorch loads its wheel's own ROCm user space from $T/lib (HIP of unknown version)" ] &&
    ok || bad "both: rocm.install $got"
wheel sysonly 0
rc=$(run sysonly)
[ "$(fact rocm.torch_lib_set "$W/sysonly.json")" = "system:/opt/rocm-6.2.0/lib" ] && ok || bad "sysonly: lib_set $(fact rocm.torch_lib_set "$W/sysonly.json")"
[ "$rc" = 0 ] && ok || bad "sysonly: exit $rc"
# no torch at all: the lib set is unknown with the reason
[ "$(fact rocm.torch_lib_set "$W/good.json")" = "<unknown>" ] && ok || bad "good: lib_set $(fact rocm.torch_lib_set "$W/good.json")"

# ---- 5. an ELF that cannot be read is named (warn) -------------------------
machine corrupt
R="$W/corrupt/root"
mkdir -p "$R/opt/rocm-6.2.0/lib"
so "$R" /opt/rocm-6.2.0/lib/libhsa-runtime64.so.1 libhsa-runtime64.so.1
head -c 100 "$R/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1" >"$R/opt/rocm-6.2.0/lib/libamdhip64.so"
printf '/opt/rocm-6.2.0/lib\n' >"$R/etc/ld.so.conf"
rc=$(run corrupt)
# a truncated file is not a usable candidate: the loader (and we) find no HIP
[ "$(status rocm.lib_deps "$W/corrupt.json")" = skip ] && ok || bad "corrupt: $(status rocm.lib_deps "$W/corrupt.json")"

# ---- 6. a hostile ld.so.conf: includes of itself, a glob fan-out, 100000
# directories; bounded (each file read once, 256 directories at most)
machine hostile
R="$W/hostile/root"
so "$R" /opt/rocm-6.2.0/lib/libamdhip64.so libamdhip64.so.6 "$W/lib/libamd_comgr.so.2"
mkdir -p "$R/etc/c"
printf '/opt/rocm-6.2.0/lib\ninclude /etc/ld.so.conf\ninclude /etc/c/*.conf\n' >"$R/etc/ld.so.conf"
i=0
while [ $i -lt 300 ]; do
    printf 'include /etc/c/*.conf\ninclude ../ld.so.conf\n/opt/x%d\n' $i >"$R/etc/c/$i.conf"
    i=$((i + 1))
done
seq 1 100000 | sed 's|^|/nonexistent/d|' >>"$R/etc/c/0.conf"
start=$(date +%s)
rc=$(run hostile)
took=$(($(date +%s) - start))
echo "hostile ld.so.conf: $took s"; [ "$took" -le 20 ] && ok || bad "hostile ld.so.conf took $took s"
[ "$(status rocm.lib_deps "$W/hostile.json")" = fail ] && ok || bad "hostile: $(status rocm.lib_deps "$W/hostile.json") (exit $rc)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
