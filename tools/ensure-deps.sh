#!/bin/sh
# ensure-deps.sh build|test - make sure the Debian/Ubuntu packages needed to
# build (or to test) are installed. As root with apt-get available they are
# installed; otherwise the exact missing package names are printed.
set -eu
what=${1:-build}
build_pkgs="gcc make pkg-config libyaml-dev libncurses-dev libpci-dev zlib1g-dev"
test_pkgs="python3 python3-jsonschema libxml2-utils mandoc"
pkgs=$build_pkgs
[ "$what" = test ] && pkgs="$build_pkgs $test_pkgs"

missing=""
for p in $pkgs; do
    if command -v dpkg-query >/dev/null 2>&1; then
        st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
        [ "$st" = installed ] || missing="$missing $p"
    fi
done
if ! command -v dpkg-query >/dev/null 2>&1; then
    # not a Debian system: check by pkg-config only
    for m in yaml-0.1 ncursesw libpci zlib; do
        pkg-config --exists "$m" 2>/dev/null || missing="$missing $m(pkg-config)"
    done
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-deps: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
    exit 0
fi
echo "ensure-deps: missing packages:$missing" >&2
echo "ensure-deps: install them with: sudo apt-get install$missing" >&2
exit 1
