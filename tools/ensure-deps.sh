#!/bin/sh
# ensure-deps.sh build|test|fuzz - make sure the Debian/Ubuntu packages needed to
# build (or to test) are installed. As root with apt-get available they are
# installed; otherwise the exact missing package names are printed.
set -eu
what=${1:-build}
build_pkgs="gcc make pkg-config libyaml-dev libncurses-dev zlib1g-dev"
# libpci names the GPUs from pci.ids; without it the build shows the ids
build_optional="libpci-dev pci.ids"
test_pkgs="python3 python3-jsonschema libxml2-utils mandoc"
# test layers that exercise real vendor libraries without a GPU (Debian's
# ROCm 5.2 and its -dev headers for tests/rocm_headers.sh, Mesa's lavapipe)
# and the NumPy cross-check: installed when
# possible, otherwise those layers print SKIP lines naming the package
test_optional="python3-numpy python3-yaml libamdhip64-5 libhsa-runtime64-1 librocm-smi64-1 librocsparse0 hipcc libvulkan1 mesa-vulkan-drivers libamdhip64-dev libhsa-runtime-dev librocm-smi-dev binutils"
# headless Chromium, the .deb build and its lintian, the installed man pages
# and completion, tmux for the live dashboard
test_optional="$test_optional chromium fonts-dejavu-core build-essential debhelper fakeroot lintian man-db bash-completion git tmux curl"
# packages that bring services (a Prometheus server, node_exporter, munge,
# slurmctld, slurmd start at boot where systemd runs): never installed
# behind the user's back; .ci/run installs them on CI's throw-away machine,
# elsewhere tests/prom.sh and tests/slurm.sh SKIP naming them
test_services="prometheus prometheus-node-exporter munge slurmctld slurmd slurm-client"
# make fuzz: clang 14 and its runtime libraries (libFuzzer, ASan, UBSan);
# Debian 12's libclang-rt-14-dev carries libFuzzer, no libfuzzer-14-dev needed
fuzz_pkgs="clang libclang-rt-14-dev"
pkgs=$build_pkgs
optional=$build_optional
if [ "$what" = test ]; then
    pkgs="$build_pkgs $test_pkgs"
    optional="$build_optional $test_optional"
elif [ "$what" = fuzz ]; then
    pkgs="$build_pkgs $fuzz_pkgs"
fi

missing_of() { # the packages of "$@" that are not installed
    out=""
    for p in "$@"; do
        st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
        [ "$st" = installed ] || out="$out $p"
    done
    echo "$out"
}

if ! command -v dpkg-query >/dev/null 2>&1; then
    # not a Debian system: check the build libraries by pkg-config only
    missing=""
    for m in yaml-0.1 ncursesw zlib; do
        pkg-config --exists "$m" 2>/dev/null || missing="$missing $m(pkg-config)"
    done
    [ -z "$missing" ] && exit 0
    echo "ensure-deps: missing:$missing" >&2
    exit 1
fi

# shellcheck disable=SC2086
missing=$(missing_of $pkgs)
# shellcheck disable=SC2086
optional_missing=$(missing_of $optional)
if [ "$what" = test ]; then
    # shellcheck disable=SC2086
    services_missing=$(missing_of $test_services)
    [ -z "$(echo $services_missing)" ] ||
        echo "ensure-deps: not installed (they run services; tests/prom.sh and tests/slurm.sh SKIP):$services_missing" >&2
fi
[ -z "$missing" ] && [ -z "$(echo $optional_missing)" ] && exit 0
as_root=0
[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && as_root=1

if [ -n "$(echo $missing)" ]; then
    if [ $as_root = 0 ]; then
        echo "ensure-deps: missing packages:$missing" >&2
        echo "ensure-deps: install them with: sudo apt-get install$missing" >&2
        exit 1
    fi
    echo "ensure-deps: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
    updated=1
fi
if [ -n "$(echo $optional_missing)" ]; then
    if [ $as_root = 0 ]; then
        echo "ensure-deps: optional packages missing (GPUs named by their ids; test layers SKIP):$optional_missing" >&2
        exit 0
    fi
    echo "ensure-deps: installing test extras where available:$optional_missing"
    export DEBIAN_FRONTEND=noninteractive
    [ "${updated:-0}" = 1 ] || apt-get update -qq
    for p in $optional_missing; do
        apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 ||
            echo "ensure-deps: $p is not available here; its test layer will SKIP"
    done
fi
exit 0
