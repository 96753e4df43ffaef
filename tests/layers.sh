#!/bin/sh
# layers.sh - the layer check (tools/layers.py) itself: on a tiny tree of
# its own (objects compiled here) a clean graph passes, and a planted
# back-edge fails naming the file and the symbol or include, whether it is a
# call with no #include, an #include alone, or a cycle through three folders;
# the allowlist lets an edge pass and fails once that edge is gone. Then the
# real tree's objects hold the order (what `make layers` runs).
# Environment: BUILD (the build directory), OUT (a scratch directory).
set -u
BUILD=${BUILD:-build}
OUT=${OUT:-build/out}
D="$OUT/layers"
CC=${CC:-cc}
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL layers $*"
}

# a tree: src/<folder>/<file>.c, objects under $D/t/build the Makefile's way
put() { # put FILE TEXT
    mkdir -p "$(dirname "$D/t/$1")"
    printf '%s\n' "$2" >"$D/t/$1"
}
build() {
    for c in $(cd "$D/t" && find src -name '*.c'); do
        mkdir -p "$D/t/build/$(dirname "$c")"
        $CC -c -I"$D/t" -o "$D/t/build/${c%.c}.o" "$D/t/$c" || return 1
    done
}
check() { # check: the tool on the tree, its output in $D/out, its status in rc
    python3 tools/layers.py --build "$D/t/build" --src "$D/t" --order "$D/t/order" \
        --allow "$D/t/allow" >"$D/out" 2>&1
    rc=$?
}
fresh() {
    rm -rf "$D/t" && mkdir -p "$D/t"
    printf '# bottom to top\ncore\nmid\ntop\n' >"$D/t/order"
    : >"$D/t/allow"
    put src/core/base.c 'int core_fn(void); int core_fn(void) { return 1; }'
    put src/core/base.h 'int core_fn(void);'
    put src/mid/mid.c '#include "../core/base.h"
int mid_fn(void); int mid_fn(void) { return core_fn(); }'
    put src/top/top.c 'int mid_fn(void); int top_fn(void); int top_fn(void) { return mid_fn(); }'
}
expect_fail() { # expect_fail WHAT PATTERN...
    what=$1
    shift
    if [ "$rc" -eq 1 ]; then ok; else bad "$what: exit $rc, not 1: $(head -3 "$D/out")"; fi
    for p in "$@"; do
        if grep -qF -- "$p" "$D/out"; then ok; else bad "$what: no '$p' in: $(head -5 "$D/out")"; fi
    done
}

# a clean graph passes
fresh
build || bad "cannot compile the test tree"
check
if [ "$rc" -eq 0 ] && grep -q 'the order holds' "$D/out"; then ok; else bad "clean tree: exit $rc: $(cat "$D/out")"; fi

# a call from core into a folder above it, with no #include: only the
# object's undefined symbol shows it
put src/core/back.c 'int top_fn(void); int core_back(void); int core_back(void) { return top_fn(); }'
build && check
expect_fail "planted call" "core uses top" "src/core/back.o calls top_fn" \
    "cycle core -> top -> mid -> core" "top -> mid: src/top/top.o calls mid_fn"

# an #include alone against the order
fresh
put src/core/inc.h '#include "../mid/mid.h"'
put src/mid/mid.h 'int mid_fn(void);'
build && check
expect_fail "planted include" "core uses mid" "src/core/inc.h:1 includes ../mid/mid.h"

# a symbol defined in no folder of the order is a folder the order lacks
fresh
put src/extra/x.c 'int core_fn(void); int x_fn(void); int x_fn(void) { return core_fn(); }'
build && check
expect_fail "unlisted folder" "folder extra is not in"

# the allowlist lets an edge pass for now, and fails once it is stale
fresh
put src/core/back.c 'int top_fn(void); int core_back(void); int core_back(void) { return top_fn(); }'
printf 'core -> top  # a test, nobody\n' >"$D/t/allow"
build && check
if [ "$rc" -eq 0 ] && grep -q '1 allowed for now' "$D/out"; then ok; else bad "allowed edge: exit $rc: $(cat "$D/out")"; fi
rm -f "$D/t/src/core/back.c" "$D/t/build/src/core/back.o"
check
expect_fail "stale allow" "core -> top is allowed but no longer used"
# an object whose source is gone is not part of the program
fresh
build
mkdir -p "$D/t/build/src/core" && cp "$D/t/build/src/top/top.o" "$D/t/build/src/core/gone.o"
check
if [ "$rc" -eq 0 ]; then ok; else bad "stale object counted: $(cat "$D/out")"; fi
# bad input is exit 2
printf 'core\ncore\n' >"$D/t/order"
check
if [ "$rc" -eq 2 ]; then ok; else bad "order file listing a folder twice: exit $rc"; fi

# the real tree (tools/layers.order, tools/layers.allow)
if ls "$BUILD"/src/core/*.o >/dev/null 2>&1; then
    if python3 tools/layers.py --build "$BUILD" >"$D/real" 2>&1; then
        ok
    else
        bad "the tree breaks its layers: $(cat "$D/real")"
    fi
else
    bad "no objects in $BUILD: build first"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
