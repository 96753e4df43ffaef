#!/bin/sh
# mk-rocm-lib-stubs.sh - the tiny ELF stand-ins of ROCm libraries in three
# built fixture machines, for rocm.lib_deps and rocm.torch_lib_set (each a
# shared object with only the soname, DT_NEEDED and DT_RUNPATH/DT_RPATH the
# case needs; no code worth the name). Run from the repository root; the
# output is committed, so re-run only to change the cases:
#   mi300x-node        one ROCm 6.2 (ld.so.conf.d) and a ROCm wheel whose
#                      torch/lib RUNPATH $ORIGIN carries its own HIP: pass
#   rx7800xt-override  ROCm 6.1's HIP without RUNPATH, ld.so.conf listing
#                      5.7.1 first: libhsa-runtime64 comes from 5.7.1 (mixed)
#   rx7800xt-hot-edge  ROCm 6.1's HIP needs libamd_comgr.so.2, absent (missing)
set -eu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
so() { # so ROOT PATH SONAME [inputs and ld flags]
    out=$1$2
    soname=$3
    shift 3
    mkdir -p "$(dirname "$out")"
    echo "int f(void){return 0;}" >"$T/x.c"
    cc -shared -fPIC -nostdlib -Wl,--no-as-needed -Wl,-s -Wl,-z,noseparate-code \
        -o "$out" "$T/x.c" -Wl,-soname,"$soname" "$@"
}
F=tests/fixtures

R=$F/mi300x-node/root
so $R /opt/rocm-6.2.0/lib/libhsa-runtime64.so.1 libhsa-runtime64.so.1
so $R /opt/rocm-6.2.0/lib/libamd_comgr.so.2 libamd_comgr.so.2
so $R /opt/rocm-6.2.0/lib/libamdhip64.so.6 libamdhip64.so.6 \
    $R/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1 $R/opt/rocm-6.2.0/lib/libamd_comgr.so.2 \
    -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
ln -sf libamdhip64.so.6 $R/opt/rocm-6.2.0/lib/libamdhip64.so
mkdir -p $R/etc/ld.so.conf.d
echo "include /etc/ld.so.conf.d/*.conf" >$R/etc/ld.so.conf
echo "/opt/rocm/lib" >$R/etc/ld.so.conf.d/10-rocm.conf
TL=$R/home/ops/venv/lib/python3.10/site-packages/torch/lib
so "" $TL/libhsa-runtime64.so libhsa-runtime64.so
so "" $TL/libamdhip64.so libamdhip64.so $TL/libhsa-runtime64.so \
    -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
so "" $TL/libc10_hip.so libc10_hip.so $TL/libamdhip64.so -Wl,--enable-new-dtags,-rpath,'$ORIGIN'

R=$F/rx7800xt-override/root
so $R /opt/rocm-5.7.1/lib/libhsa-runtime64.so.1 libhsa-runtime64.so.1
so $R /opt/rocm-6.1.0/lib/libhsa-runtime64.so.1 libhsa-runtime64.so.1
so $R /opt/rocm-6.1.0/lib/libamdhip64.so libamdhip64.so.6 \
    $R/opt/rocm-6.1.0/lib/libhsa-runtime64.so.1
printf '/opt/rocm-5.7.1/lib\n/opt/rocm/lib\n' >$R/etc/ld.so.conf

R=$F/rx7800xt-hot-edge/root
so "$T" /c/libamd_comgr.so.2 libamd_comgr.so.2
so $R /opt/rocm-6.1.0/lib/libamdhip64.so libamdhip64.so.6 "$T/c/libamd_comgr.so.2" \
    -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
printf '/opt/rocm/lib\n' >$R/etc/ld.so.conf
