#!/bin/sh
# binscan.sh - gpu.target_binaries and render.vulkan end to end, on real
# files: Debian's librocsparse0 (ROCm 5.3, gfx803..gfx1030, no gfx1100), a
# two-target library built here with Debian's hipcc, corrupt copies of it in
# a sysroot tree, Mesa's lavapipe as the only Vulkan device, and a missing
# Vulkan loader (ROCM_VLA_DOCTOR_VULKAN_LIB). librocsparse0 comes from the
# ROCm 5.2 tree that tools/ensure-deps.sh rocm-tree unpacked (never
# installed), scanned as a sysroot; hipcc and lavapipe only where installed
# (make test-deps): nothing is installed here, a part whose package is
# missing prints a SKIP line. Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
W="$OUT/binscan"
rm -rf "$W" && mkdir -p "$W"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL binscan $*"; }

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }
# ensure PKG...: 0 when all are installed (make test installs nothing)
ensure() {
    for p in "$@"; do installed "$p" || return 1; done
}
ROCM_TREE=${ROCM_TREE:-build/rocm52}

# fact NAME JSON: the fact's value as Python prints it (lists one item a line)
fact() {
    /usr/bin/python3 -c '
import json, sys
v = json.load(open(sys.argv[2]))["facts"].get(sys.argv[1], "<absent>")
print("\n".join(v) if isinstance(v, list) else ("<unknown>" if v is None else v))' "$1" "$2"
}
status() {
    /usr/bin/python3 -c '
import json, sys
for c in json.load(open(sys.argv[2]))["checks"]:
    if c["id"] == sys.argv[1]: print(c["status"])' "$1" "$2"
}

# ---- 1. Debian's librocsparse0, from the unpacked tree --------------------
# a sysroot holding it (hard-linked: 1.3 GB) where the probe looks on Debian
SP="$ROCM_TREE/root/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1"
if [ -f "$SP" ]; then
    S="$W/sparse"
    mkdir -p "$S/usr/lib/x86_64-linux-gnu" "$S/proc" "$S/sys"
    ln "$SP" "$S/usr/lib/x86_64-linux-gnu/" 2>/dev/null || cp "$SP" "$S/usr/lib/x86_64-linux-gnu/"
    ln -s librocsparse.so.0.1 "$S/usr/lib/x86_64-linux-gnu/librocsparse.so.0"
    lib=/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1
    "$RVD" --sysroot "$S" --level standard --only gpu.target_binaries --json "$W/live.json" --no-color \
        >"$W/live.txt" 2>"$W/live.err"
    rc=$?
    if [ "$rc" -le 1 ] && [ -s "$W/live.json" ]; then ok; else bad "sysroot run exit $rc (see $W/live.err)"; fi
    want="$lib: gfx1030 gfx803 gfx900:xnack- gfx906:xnack- gfx908:xnack- gfx90a:xnack+ gfx90a:xnack-"
    got=$(fact binaries.libraries "$W/live.json" | grep -F "$lib:")
    if [ "$got" = "$want" ]; then ok; else bad "librocsparse targets: got '$got', want '$want'"; fi
    if printf '%s\n' "$got" | grep -q gfx1100; then bad "librocsparse lists gfx1100"; else ok; fi
    if fact binaries.errors "$W/live.json" | grep -qF "$lib"; then bad "librocsparse in errors"; else ok; fi
    rm -rf "$S"
else
    echo "SKIP binscan librocsparse0: not unpacked in $ROCM_TREE (tools/ensure-deps.sh rocm-tree $ROCM_TREE)"
fi

# ---- 2. a library built with hipcc for gfx90a and gfx1030, in a sysroot ------
R="$W/root"
L="$R/usr/lib/x86_64-linux-gnu"
# a machine root has proc/ and sys/ (--sysroot refuses a tree without them)
mkdir -p "$L" "$R/opt/rocm/lib/rocblas/library" "$R/proc" "$R/sys"
if ensure hipcc && command -v hipcc >/dev/null 2>&1; then
    cat >"$W/k.hip" <<'EOF'
#include <hip/hip_runtime.h>
__global__ void add_one(float *x) { x[threadIdx.x] += 1.0f; }
extern "C" int launch(float *x) { hipLaunchKernelGGL(add_one, dim3(1), dim3(32), 0, 0, x); return 0; }
EOF
    if hipcc -fPIC -shared --offload-arch=gfx90a --offload-arch=gfx1030 -o "$W/libk.so" "$W/k.hip" \
        >"$W/hipcc.log" 2>&1; then
        ok
        cp "$W/libk.so" "$L/librocblas.so.0"
        # corrupt copies: truncated, a section beyond EOF, a bundle entry beyond
        # the section, a huge entry count (offsets from the file's own headers)
        size=$(stat -c %s "$W/libk.so")
        head -c $((size / 2)) "$W/libk.so" >"$L/librocsparse.so.0"
        /usr/bin/python3 - "$W/libk.so" "$L" <<'EOF'
import struct, sys
src, out = sys.argv[1], sys.argv[2]
b = bytearray(open(src, "rb").read())
shoff, = struct.unpack_from("<Q", b, 40)
shnum, shstrndx = struct.unpack_from("<HH", b, 60)
stroff, = struct.unpack_from("<Q", b, shoff + shstrndx * 64 + 24)
def section(name):
    for i in range(shnum):
        h = shoff + i * 64
        n, = struct.unpack_from("<I", b, h)
        if b[stroff + n:stroff + n + len(name) + 1] == name.encode() + b"\0":
            return h
hdr = section(".hip_fatbin")
fat, = struct.unpack_from("<Q", b, hdr + 24)
def write(name, patch):
    c = bytearray(b)
    patch(c)
    open(out + "/" + name, "wb").write(c)
write("libMIOpen.so.1", lambda c: struct.pack_into("<Q", c, hdr + 24, 1 << 40))
# entry 0 (the host entry) size: beyond the section
write("libhipblaslt.so.0", lambda c: struct.pack_into("<Q", c, fat + 32 + 8, 1 << 40))
write("librocsolver.so.0", lambda c: struct.pack_into("<Q", c, fat + 24, 1 << 60))
EOF
        : >"$R/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx90a.dat"
        : >"$R/opt/rocm/lib/rocblas/library/Kernels.so-000-gfx1030.hsaco"
        "$RVD" --sysroot "$R" --level standard --only gpu.target_binaries --json "$W/root.json" \
            --no-color >"$W/root.txt" 2>"$W/root.err"
        rc=$?
        if [ "$rc" -le 1 ] && [ -s "$W/root.json" ]; then ok; else bad "sysroot run exit $rc (see $W/root.err)"; fi
        libs=$(fact binaries.libraries "$W/root.json")
        if printf '%s\n' "$libs" | grep -qxF "/usr/lib/x86_64-linux-gnu/librocblas.so.0: gfx1030 gfx90a"; then
            ok
        else
            bad "hipcc library targets: $libs"
        fi
        if printf '%s\n' "$libs" | grep -qxF "/opt/rocm/lib/rocblas/library (Tensile): gfx1030 gfx90a"; then
            ok
        else
            bad "Tensile targets: $libs"
        fi
        errs=$(fact binaries.errors "$W/root.json")
        for f in librocsparse.so.0 libMIOpen.so.1 libhipblaslt.so.0 librocsolver.so.0; do
            if printf '%s\n' "$errs" | grep -q "^/usr/lib/x86_64-linux-gnu/$f: "; then
                ok
            else
                bad "corrupt $f not reported by name: $errs"
            fi
        done
        if printf '%s\n' "$errs" | grep -qF "$R"; then bad "errors show the sysroot path"; else ok; fi
        n=$(fact binaries.scanned "$W/root.json")
        if [ "$n" = 6 ]; then ok; else bad "binaries.scanned $n, want 6"; fi
    else
        bad "hipcc could not build the test library (see $W/hipcc.log)"
    fi
else
    echo "SKIP binscan hipcc: not installed (make test-deps)"
fi

# ---- 3. Vulkan: lavapipe only, and no loader ---------------------------------
if ensure libvulkan1 mesa-vulkan-drivers; then
    "$RVD" --level standard --only render.vulkan --json "$W/vk.json" --no-color \
        >"$W/vk.txt" 2>"$W/vk.err"
    [ "$(fact render.vulkan_loader "$W/vk.json")" = True ] && ok || bad "vulkan loader: $(cat "$W/vk.txt")"
    [ -z "$(fact render.vulkan_error "$W/vk.json")" ] && ok || bad "vulkan error: $(fact render.vulkan_error "$W/vk.json")"
    if fact render.vulkan_devices "$W/vk.json" | grep -q "llvmpipe.*CPU)"; then ok; else bad "no llvmpipe device: $(fact render.vulkan_devices "$W/vk.json")"; fi
    [ "$(fact render.vulkan_software_only "$W/vk.json")" = True ] && ok || bad "software_only not true"
    [ "$(fact render.vulkan_amd_device "$W/vk.json")" = False ] && ok || bad "amd_device not false"
    case $(fact render.vulkan_api_version "$W/vk.json") in
    1.[0-9]*) ok ;;
    *) bad "api version '$(fact render.vulkan_api_version "$W/vk.json")'" ;;
    esac
    # only a software device: without an AMD GPU that is all Mesa can give,
    # a skip saying so (no install hint); with one, a warning
    st=$(status render.vulkan "$W/vk.json")
    if [ "$(fact gpu.count "$W/vk.json")" = 0 ]; then
        [ "$st" = skip ] && /usr/bin/python3 -c 'import json, sys; sys.exit(0 if any(c["id"] == "render.vulkan" and c["summary"].startswith("no AMD GPU: Vulkan works headless on the software device only") for c in json.load(open(sys.argv[1]))["checks"]) else 1)' "$W/vk.json" && ok ||
            bad "render.vulkan is '$st' with lavapipe only and no AMD GPU, want skip ($(cat "$W/vk.txt"))"
    else
        [ "$st" = warn ] && ok || bad "render.vulkan is '$st' with lavapipe only on an AMD host, want warn ($(cat "$W/vk.txt"))"
    fi
else
    echo "SKIP binscan vulkan: libvulkan1/mesa-vulkan-drivers not installed (make test-deps)"
fi
ROCM_VLA_DOCTOR_VULKAN_LIB=/nonexistent/libvulkan.so.1 \
    "$RVD" --level standard --only render.vulkan --json "$W/novk.json" --no-color \
    >"$W/novk.txt" 2>"$W/novk.err"
rc=$?
[ "$rc" = 1 ] && ok || bad "missing loader: exit $rc, want 1"
[ "$(fact render.vulkan_loader "$W/novk.json")" = False ] && ok || bad "missing loader: render.vulkan_loader not false"
[ "$(status render.vulkan "$W/novk.json")" = fail ] && ok || bad "missing loader: render.vulkan not fail"
if grep -q "/nonexistent/libvulkan.so.1" "$W/novk.txt"; then ok; else bad "missing loader not named: $(cat "$W/novk.txt")"; fi

echo "$pass passed, $fail failed"
