#!/bin/sh
# rocm_headers.sh - the project's own declarations of the ROCm APIs
# (src/gpu/hip_api.h, rsmi_api.h, rocblas_api.h) against the vendor's real
# headers (Debian's ROCm 5.2 -dev packages in CI, or ROCM_INCLUDE): every enum
# value, typedef and prototype is compared with a _Static_assert
# (tests/rocm_headers.py writes them); a missing header SKIPs that group with
# the package to install, never passes. A header with planted differences must
# fail (the test can fail). Then tests/data/rocm-abi.tsv, the values of the
# same constants read from ROCm 6.x/7.x headers: every row must equal the
# backend's value (one value for all series; a differing row means the
# backend must choose by runtime version). The ROCm 7 library names must be
# among the backends' dlopen candidates. src/gpu/hipblaslt_api.h against
# tests/data/hipblaslt-abi.tsv (the vendor's C++-only header's values,
# layouts and prototypes). Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/out}/rocm_headers
rm -rf "$OUT" && mkdir -p "$OUT"
NAME=rocm_headers
. tests/lib.sh
CC=${CC:-cc}
INC=${ROCM_INCLUDE:-/usr/include}
HIP_REAL="hip/hip_runtime_api.h,hip/hiprtc.h,hsa/hsa.h,hsa/hsa_ext_amd.h"

# group LABEL PACKAGES OURS CHECKED REAL...: compile the assertions, count them
group() {
    label=$1 pkgs=$2 ours=$3 checked=$4 real=$5
    for h in $(echo "$real" | tr ',' ' '); do
        if [ ! -f "$INC/$h" ]; then
            echo "SKIP rocm_headers: $label: $INC/$h not found (apt-get install $pkgs, or ROCM_INCLUDE=/opt/rocm/include)"
            return
        fi
    done
    counts=$(python3 tests/rocm_headers.py "$OUT/$label.c" "$ours" "$real" "$checked") ||
        { bad "$label: cannot generate the assertions"; return; }
    n=$(echo "$counts" | awk '{print $2 + $4 + $6}')
    # a parser that finds nothing must not pass: each group declares all three kinds
    echo "$counts" | grep -Eq '^constants [1-9][0-9]* typedefs [1-9][0-9]* functions [1-9][0-9]*$' ||
        { bad "$label: too few declarations found ($counts)"; return; }
    if $CC -std=c11 -D_GNU_SOURCE -D__HIP_PLATFORM_AMD__ -I. -I"$INC" -fsyntax-only \
        "$OUT/$label.c" 2>"$OUT/$label.err"; then
        pass=$((pass + n))
        echo "note rocm_headers: $label: $counts equal to $INC"
    else
        nf=$(grep -c 'static assertion failed' "$OUT/$label.err")
        [ "$nf" -gt 0 ] || nf=1
        fail=$((fail + nf))
        echo "FAIL rocm_headers: $label differs from $INC:"
        grep -E 'error' "$OUT/$label.err" | head -20 | sed 's/^/    /'
    fi
}

group hip "libamdhip64-dev libhsa-runtime-dev" src/gpu/hip_api.h src/gpu/hip_api.h "$HIP_REAL"
group rsmi librocm-smi-dev src/gpu/rsmi_api.h src/gpu/rsmi_api.h rocm_smi/rocm_smi.h
# rocblas_api.h includes hip_api.h: both are renamed, rocBLAS's names asserted
group rocblas "librocblas-dev (Debian 13; not in Debian 12)" src/gpu/hip_api.h,src/gpu/rocblas_api.h \
    src/gpu/rocblas_api.h "$HIP_REAL,rocblas/rocblas.h"

# the test can fail: a copy of hip_api.h with a wrong value, type and prototype
if [ -f "$INC/hip/hip_runtime_api.h" ] && [ -f "$INC/hsa/hsa_ext_amd.h" ]; then
    mkdir -p "$OUT/planted/src/gpu"
    sed -e 's/hipDeviceAttributeClockRate = 5/hipDeviceAttributeClockRate = 6/' \
        -e 's/hipError_t hipMemset(void \*dst, int value/hipError_t hipMemset(void *dst, unsigned value/' \
        -e 's/typedef unsigned int hsa_status_t;/typedef int hsa_status_t;/' \
        src/gpu/hip_api.h >"$OUT/planted/src/gpu/hip_api.h"
    (cd "$OUT/planted" && python3 "$OLDPWD/tests/rocm_headers.py" planted.c src/gpu/hip_api.h \
        "$HIP_REAL" >/dev/null && $CC -std=c11 -D__HIP_PLATFORM_AMD__ -I. -I"$INC" -fsyntax-only \
        planted.c >planted.err 2>&1)
    e="$OUT/planted/planted.err"
    grep -q 'constant hipDeviceAttributeClockRate differs' "$e" &&
        grep -q 'prototype of hipMemset differs' "$e" &&
        grep -q 'type hsa_status_t differs' "$e" && ok ||
        bad "planted differences in hip_api.h were not all caught: $(head -c 400 "$e")"
fi

# ROCm 6.x/7.x: the table's values against the backend's
python3 - tests/data/rocm-abi.tsv >"$OUT/abi.c" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
print('#include <stdio.h>\n#include "src/gpu/hip_api.h"\n#include "src/gpu/rsmi_api.h"\n#include "src/gpu/rocblas_api.h"')
print("int main(void)\n{\n    int bad = 0, n = 0;")
for name, series, value, source in rows:
    print('    n++;\n    if ((long long)(%s) != %sLL) {\n        bad++;\n'
          '        printf("FAIL rocm_headers: %s is %%lld in the backend, %s in ROCm %s (%s)\\n", '
          '(long long)(%s));\n    }' % (name, value, name, value, series, source, name))
print('    printf("%d rows, %d differ\\n", n, bad);\n    return bad != 0;\n}')
PY
if $CC -std=c11 -I. -o "$OUT/abi" "$OUT/abi.c" 2>"$OUT/abi.err"; then
    "$OUT/abi" >"$OUT/abi.out"
    rc=$?
    grep '^FAIL' "$OUT/abi.out"
    rows=$(sed -n 's/^\([0-9]*\) rows.*/\1/p' "$OUT/abi.out")
    [ $rc -eq 0 ] && [ "${rows:-0}" -ge 50 ] && ok || bad "rocm-abi.tsv: $(tail -1 "$OUT/abi.out")"
else
    bad "rocm-abi.tsv names a constant the backend does not declare: $(grep error "$OUT/abi.err" | head -3)"
fi

# hipBLASLt: its headers are C++ only and not in Debian, so src/gpu/hipblaslt_api.h is held
# against tests/data/hipblaslt-abi.tsv (values and layouts as _Static_asserts, prototypes
# as text), and a copy with a planted wrong value and prototype must fail
hipblaslt_check() { # HEADER OUTBASE: 0 when every row holds
    python3 tests/hipblaslt_abi.py tests/data/hipblaslt-abi.tsv "$1" "$2.c" >"$2.out" &&
        $CC -std=c11 -include stddef.h -I. -fsyntax-only "$2.c" 2>"$2.err"
}
if hipblaslt_check src/gpu/hipblaslt_api.h "$OUT/hipblaslt"; then
    grep -Eq '^values [1-9][0-9]* prototypes [1-9][0-9]*$' "$OUT/hipblaslt.out" && ok ||
        bad "hipblaslt-abi.tsv: too few rows ($(cat "$OUT/hipblaslt.out"))"
else
    bad "hipblaslt_api.h differs from tests/data/hipblaslt-abi.tsv: $(grep -h -E 'FAIL|error' "$OUT/hipblaslt.out" "$OUT/hipblaslt.err" | head -5)"
fi
mkdir -p "$OUT/src/gpu"
cp src/gpu/hip_api.h "$OUT/src/gpu/"
sed -e 's/HIPBLASLT_MATMUL_DESC_BIAS_POINTER = 3/HIPBLASLT_MATMUL_DESC_BIAS_POINTER = 8/' \
    -e 's/hipblasStatus_t hipblasLtMatmulPreferenceCreate(hipblasLtMatmulPreference_t \*pref)/hipblasStatus_t hipblasLtMatmulPreferenceCreate(void *pref)/' \
    src/gpu/hipblaslt_api.h >"$OUT/src/gpu/hipblaslt_api.h"
hipblaslt_check "$OUT/src/gpu/hipblaslt_api.h" "$OUT/hipblaslt-planted"
{ cat "$OUT/hipblaslt-planted.out"; cat "$OUT/hipblaslt-planted.err" 2>/dev/null; } >"$OUT/hipblaslt-planted.all"
grep -q 'prototype of hipblasLtMatmulPreferenceCreate differs' "$OUT/hipblaslt-planted.all" && ok ||
    bad "a planted prototype difference in hipblaslt_api.h was not caught"
python3 tests/hipblaslt_abi.py tests/data/hipblaslt-abi.tsv "$OUT/src/gpu/hipblaslt_api.h" \
    "$OUT/hipblaslt-planted.c" >/dev/null
$CC -std=c11 -include stddef.h -I. -fsyntax-only "$OUT/hipblaslt-planted.c" 2>&1 |
    grep -q 'value HIPBLASLT_MATMUL_DESC_BIAS_POINTER differs' && ok ||
    bad "a planted value difference in hipblaslt_api.h was not caught"

# ROCm 7 library names among the dlopen candidates of the built binary. Sources:
# github.com/ROCm/rocBLAS/releases/tag/rocm-7.0.1 ("rocblas 5.0.0 for ROCm 7.0.1") and
# Ubuntu's librocblas5 (depends on libamdhip64-7); github.com/ROCm/hipBLASLt/releases/tag/
# rocm-7.0.1 ("hipblaslt 1.0.0"), Debian's libhipblaslt1 (7.1.1) and libhipblaslt0 of
# ROCm 6.x (ROCm/hipBLASLt@rocm-6.2.2 is 0.x); Arch's hipblaslt 7.2 links libamdhip64.so.7.
for lib in libamdhip64.so.7 libhiprtc.so.7 librocblas.so.5 libhipblaslt.so.1 libhipblaslt.so.0 \
    librocm_smi64.so.7 libhsa-runtime64.so.1; do
    strings "$RVD" | grep -qx "$lib" && ok || bad "$lib is not a dlopen candidate of $RVD"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
