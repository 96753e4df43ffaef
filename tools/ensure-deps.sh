#!/bin/sh
# ensure-deps.sh build|test|test-deps|fuzz|rocm-tree DIR - the Debian/Ubuntu
# packages to build or to test.
#   build, fuzz  as root with apt-get the missing ones are installed; otherwise
#                the exact missing package names are printed
#   test         the test tools that every run needs (python3, jsonschema,
#                xmllint, mandoc, NumPy) as for build; nothing else is ever
#                installed: the ROCm 5.2 libraries the layers load are
#                downloaded and unpacked into the build tree (rocm-tree), and
#                the services, browsers and packaging tools some layers use
#                are listed, their layers SKIP naming them (issue 31: a test
#                run must not change what the doctor diagnoses on this host)
#   test-deps    `make test-deps`: installs those (CI's throw-away machine
#                runs it; a user does so knowingly)
#   rocm-tree DIR  apt-get download the ROCm 5.2 libraries and headers and
#                every dependency not installed here, dpkg-deb -x them into
#                DIR/root (no root needed); tests/lib.sh points the layers at it
set -eu
what=${1:-build}
build_pkgs="gcc make pkg-config libyaml-dev libncurses-dev zlib1g-dev"
# libpci names the GPUs from pci.ids; without it the build shows the ids
build_optional="libpci-dev pci.ids"
# the NumPy cross-check (tests/vla.sh) needs numpy and yaml
test_pkgs="python3 python3-jsonschema python3-numpy python3-yaml libxml2-utils mandoc"
# Debian's real ROCm 5.2 libraries (loaded with dlopen by tests/gpu_ci.sh,
# scanned by tests/binscan.sh) and the -dev headers tests/rocm_headers.sh
# compares the backends' declarations with: unpacked, never installed
rocm_debs="libamdhip64-5 libhsa-runtime64-1 librocm-smi64-1 librocsparse0 libamdhip64-dev libhsa-runtime-dev librocm-smi-dev"
# make test-deps: hipcc (builds a multi-target test library; it pulls the ROCm
# -dev packages in), Mesa's lavapipe, headless Chromium, the .deb build and
# its lintian, the installed man pages and completion, tmux for the live
# dashboard, binutils' strings
test_optional="hipcc binutils libvulkan1 mesa-vulkan-drivers chromium fonts-dejavu-core build-essential debhelper fakeroot lintian man-db bash-completion git tmux curl"
# packages that bring services (a Prometheus server, node_exporter, munge,
# slurmctld, slurmd start at boot where systemd runs): tests/prom.sh and
# tests/slurm.sh SKIP naming them
test_services="prometheus prometheus-node-exporter munge slurmctld slurmd slurm-client"
# make fuzz: clang 14 and its runtime libraries (libFuzzer, ASan, UBSan);
# Debian 12's libclang-rt-14-dev carries libFuzzer, no libfuzzer-14-dev needed
fuzz_pkgs="clang libclang-rt-14-dev"

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }

if [ "$what" = rocm-tree ]; then
    dir=${2:?usage: ensure-deps.sh rocm-tree DIR}
    # shellcheck disable=SC2086
    want=$(echo $rocm_debs | tr ' ' '\n' | sort)
    if [ -f "$dir/root/.unpacked" ] && [ "$(cat "$dir/root/.unpacked")" = "$want" ]; then
        exit 0
    fi
    command -v apt-get >/dev/null 2>&1 || {
        echo "ensure-deps: no apt-get: the ROCm 5.2 layers SKIP" >&2
        exit 0
    }
    # every package the libraries need that this host lacks (virtual ones
    # and those installed here are left out: the host's own are loaded)
    # shellcheck disable=SC2086
    deps=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
        --no-breaks --no-replaces --no-enhances $rocm_debs 2>/dev/null | grep '^[a-z0-9]' | sort -u)
    get=
    for p in $deps; do installed "$p" || get="$get $p"; done
    rm -rf "$dir" && mkdir -p "$dir/debs" "$dir/root"
    # shellcheck disable=SC2086
    if ! (cd "$dir/debs" && apt-get download -q $get >../download.log 2>&1); then
        echo "ensure-deps: apt-get download of the ROCm 5.2 packages failed (see $dir/download.log): their layers SKIP" >&2
        exit 0
    fi
    for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
    rm -rf "$dir/debs" # 1.5 GiB unpacked; the .debs are not needed again
    echo "$want" >"$dir/root/.unpacked"
    echo "ensure-deps: ROCm 5.2 libraries unpacked into $dir/root (not installed):$get"
    exit 0
fi

pkgs=$build_pkgs
optional=$build_optional
if [ "$what" = test ]; then
    pkgs="$build_pkgs $test_pkgs"
elif [ "$what" = test-deps ]; then
    pkgs="$build_pkgs $test_pkgs"
    optional="$build_optional $test_optional $test_services"
elif [ "$what" = fuzz ]; then
    pkgs="$build_pkgs $fuzz_pkgs"
fi

missing_of() { # the packages of "$@" that are not installed
    out=""
    for p in "$@"; do installed "$p" || out="$out $p"; done
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
    extras=$(missing_of $test_optional $test_services)
    [ -z "$(echo $extras)" ] ||
        echo "ensure-deps: not installed, never by make test (make test-deps installs them; their layers SKIP):$extras" >&2
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
