#!/bin/sh
# install.sh - installing like a real tool: `make install` under a DESTDIR
# (the exact file list, the installed binary run from another directory
# finds and names its checks.yaml and presets, --version for every command,
# the man pages render, `make uninstall` removes everything it wrote), the
# bash completion (loaded, its generated part what the option tables print,
# every command and option completes), and the Debian package (built by dpkg-buildpackage in a
# copy of the tree, lintian clean, its contents run unpacked; installed with
# dpkg -i only as root with CI_INSTALL_DEB=1, as .ci/run sets).
# Environment: RVD (the binary), BUILD (its build tree), OUT (scratch).
set -u
RVD=${RVD:-build/rocm-vla-doctor}
BUILD=${BUILD:-build}
OUT=${OUT:-build/out}
NAME=install
. tests/lib.sh
TOP=$(pwd -P)
mkdir -p "$OUT/install"
D=$(cd "$OUT/install" && pwd -P) # physical: what /proc/self/exe will say
rm -rf "${D:?}"/*
VERSION=$(cat VERSION)
FIX=$TOP/tests/fixtures/rx7900xtx-desktop/root
# make without the calling make's MAKEFLAGS: `make test` passes its
# jobserver and command-line variables (asan-test's CFLAGS) through them
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s BUILD="$BUILD" "$@"; }
# run DIR CMD...: CMD from directory DIR, output in $D/run.out, status in $rc
run() {
    _dir=$1
    shift
    (cd "$_dir" && COLUMNS=1000 NO_COLOR=1 "$@") >"$D/run.out" 2>&1
    rc=$?
}
has_line() { grep -Eq "$1" "$D/run.out"; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# the files `make install` writes for PREFIX=$1 (relative to DESTDIR, sorted)
want_files() {
    {
        echo ".$1/bin/rocm-vla-doctor"
        echo ".$1/share/bash-completion/completions/rocm-vla-doctor"
        for m in man/*.1; do echo ".$1/share/man/man1/${m#man/}$2"; done
        for m in man/*.5; do echo ".$1/share/man/man5/${m#man/}$2"; done
        echo ".$1/share/rocm-vla-doctor/checks.yaml"
        echo ".$1/share/rocm-vla-doctor/torch_probe.py"
        for m in models/*.yaml; do echo ".$1/share/rocm-vla-doctor/models/${m#models/}"; done
    } | LC_ALL=C sort
}
files_of() { (cd "$1" && find . ! -type d | LC_ALL=C sort); }

# ---- (a) make install DESTDIR PREFIX=/usr ----------------------------------
T=$D/stage
mk install DESTDIR="$T" PREFIX=/usr >"$D/make-install.out" 2>&1 &&
    ok || bad "make install DESTDIR=$T PREFIX=/usr failed: $(tail -3 "$D/make-install.out")"
want_files /usr "" >"$D/files.want"
files_of "$T" >"$D/files.got"
if cmp -s "$D/files.want" "$D/files.got"; then
    ok
else
    bad "make install wrote a different file list: $(diff "$D/files.want" "$D/files.got" | grep '^[<>]' | tr '\n' ' ')"
fi
IB=$T/usr/bin/rocm-vla-doctor
SHARE=$T/usr/share/rocm-vla-doctor
[ "$(stat -c %a "$IB" 2>/dev/null)" = 755 ] && ok || bad "installed binary mode is not 0755"
modes=$(cd "$T" && find . -type f ! -path ./usr/bin/rocm-vla-doctor ! -perm 644)
[ -z "$modes" ] && ok || bad "installed data files not 0644: $modes"
cmp -s checks.yaml "$SHARE/checks.yaml" && cmp -s completion/rocm-vla-doctor.bash \
    "$T/usr/share/bash-completion/completions/rocm-vla-doctor" &&
    cmp -s man/rocm-vla-doctor.1 "$T/usr/share/man/man1/rocm-vla-doctor.1" &&
    ok || bad "installed checks.yaml, completion or man page differ from the tree's"

# the installed binary, from another directory
E=$D/elsewhere
mkdir -p "$E"
# --version: every command form, exit 0, one line naming VERSION
for c in "" check list explain collect bench dashboard diff fleet report monitor soak; do
    # shellcheck disable=SC2086
    run "$E" "$IB" $c --version
    if [ "$rc" = 0 ] && [ "$(wc -l <"$D/run.out")" = 1 ] &&
        grep -Eq "^rocm-vla-doctor $VERSION( \(git [^)]+\))?\$" "$D/run.out"; then
        ok
    else
        bad "'rocm-vla-doctor $c --version' exited $rc: $(head -2 "$D/run.out")"
    fi
done
run "$E" "$IB" --version
cp "$D/run.out" "$D/version.installed"
"$RVD" --version >"$D/version.build" 2>&1
cmp -s "$D/version.installed" "$D/version.build" && ok ||
    bad "installed and built --version differ: $(cat "$D/version.installed") / $(cat "$D/version.build")"
# --version is an option like the others: a value, not a request
run "$E" "$IB" --json --version
[ "$rc" = 2 ] && has_line "requires a value" && ok || bad "--json --version exited $rc, want 2"

# the quick level on this machine: it runs, and names the installed checks.yaml
run "$E" "$IB" --level quick --json q.json
if [ "$rc" -le 1 ]; then ok; else bad "installed --level quick exited $rc: $(head -3 "$D/run.out")"; fi
has_line "^rocm-vla-doctor $VERSION: .*, checks $SHARE/checks.yaml\$" && ok ||
    bad "the installed binary's report does not name $SHARE/checks.yaml: $(head -2 "$D/run.out")"
[ "$(json "$E/q.json" 'd["tool"]["checks"]' 2>&1)" = "$SHARE/checks.yaml" ] && ok ||
    bad "JSON tool.checks of the installed binary is not $SHARE/checks.yaml"
# explain
run "$E" "$IB" explain gpu.vram
[ "$rc" = 0 ] && has_line "^gpu\.vram: enough VRAM" && has_line "^Why:" && ok ||
    bad "installed explain gpu.vram exited $rc: $(head -2 "$D/run.out")"
# it reads that file (not only names it): an edited title shows, a broken
# file is a configuration error naming it; --checks still overrides
sed 's/title: enough VRAM for a VLA model and the simulator.*/title: INSTALLED COPY VRAM/' \
    checks.yaml >"$SHARE/checks.yaml"
run "$E" "$IB" explain gpu.vram
has_line "^gpu\.vram: INSTALLED COPY VRAM\$" && ok || bad "an edit of the installed checks.yaml does not show in explain"
run "$E" "$IB" explain gpu.vram --checks "$TOP/checks.yaml"
has_line "^gpu\.vram: enough VRAM" && ok || bad "--checks does not override the installed checks.yaml"
printf 'schema: rocm-vla-doctor-checks/1\nchecks: [\n' >"$SHARE/checks.yaml"
run "$E" "$IB" list
[ "$rc" = 2 ] && grep -qF "$SHARE/checks.yaml" "$D/run.out" && ok ||
    bad "a broken installed checks.yaml: exit $rc without naming it: $(head -2 "$D/run.out")"
cp checks.yaml "$SHARE/checks.yaml"
# the presets come from share/rocm-vla-doctor/models
run "$E" "$IB" bench --preset tiny --dry-run
[ "$rc" = 0 ] && has_line "^preset tiny \($SHARE/models/tiny\.yaml\): valid" && ok ||
    bad "installed bench --preset tiny does not read $SHARE/models/tiny.yaml: $(head -2 "$D/run.out")"

# the built-in copies still serve a binary outside an installed layout: the
# build tree's, one copied alone, one in a bin/ without share/
case $RVD in /*) BT=$RVD ;; *) BT=$TOP/$RVD ;; esac
run "$E" "$BT" --sysroot "$FIX" --json b.json
[ "$(json "$E/b.json" 'd["tool"]["checks"]' 2>&1)" = "(built in)" ] && ! has_line ", checks " && ok ||
    bad "the build tree's binary does not use its built-in checks.yaml"
mkdir -p "$D/alone" "$D/nodata/bin"
cp "$IB" "$D/alone/rocm-vla-doctor"
cp "$IB" "$D/nodata/bin/rocm-vla-doctor"
for b in "$D/alone/rocm-vla-doctor" "$D/nodata/bin/rocm-vla-doctor"; do
    run "$E" "$b" --sysroot "$FIX" --json c.json
    [ "$rc" -le 1 ] && [ "$(json "$E/c.json" 'd["tool"]["checks"]' 2>&1)" = "(built in)" ] && ok ||
        bad "$b: not the built-in checks.yaml (exit $rc)"
    run "$E" "$b" bench --preset tiny --dry-run
    has_line "^preset tiny \(models/tiny\.yaml \(built in\)\): valid" && ok ||
        bad "$b: not the built-in preset: $(head -1 "$D/run.out")"
done

# the man pages render from the installed files, with the FILES section
if command -v man >/dev/null 2>&1; then
    MANWIDTH=100 man -l -P cat "$T/usr/share/man/man1/rocm-vla-doctor.1" >"$D/man1.txt" 2>/dev/null
    grep -q '^FILES' "$D/man1.txt" && grep -q '/usr/share/rocm-vla-doctor/checks.yaml' "$D/man1.txt" &&
        grep -q -- '--version' "$D/man1.txt" && ok ||
        bad "man -l rocm-vla-doctor.1: no FILES section with the installed paths, or no --version"
    MANWIDTH=100 man -l -P cat "$T/usr/share/man/man5/checks.yaml.5" >"$D/man5.txt" 2>/dev/null
    grep -q '^NAME' "$D/man5.txt" && ok || bad "man -l checks.yaml.5 renders nothing"
else
    echo "SKIP install man: man (man-db) is not installed"
fi

# ---- bash completion ---------------------------------------------------------
C=completion/rocm-vla-doctor.bash
got=$(bash -c '. "$1" && complete -p rocm-vla-doctor' sh "$C" 2>&1)
[ "$got" = "complete -F _rocm_vla_doctor rocm-vla-doctor" ] && ok || bad "completion registers: '$got'"
# comp WORD...: what completing the last word offers (COMP_WORDS as bash
# splits a line: '=' is a word of its own), one per line, sorted
cat >"$D/comp.bash" <<'EOF'
. "$1"
bin=$2
shift 2
COMP_WORDS=(rocm-vla-doctor "$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_rocm_vla_doctor "$bin" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort -u
EOF
comp() { (cd "$E" && bash "$D/comp.bash" "$TOP/$C" "$IB" "$@" </dev/null); }
# the commands: exactly the command table of src/main.c
sed -n '/commands\[\] = {/,/^};/p' src/main.c | grep -o '{"[a-z]*",' | tr -d '{",' |
    LC_ALL=C sort >"$D/cmds.want"
comp "" >"$D/cmds.got"
[ -s "$D/cmds.want" ] && cmp -s "$D/cmds.want" "$D/cmds.got" && ok ||
    bad "completed commands differ from src/main.c's table: $(tr '\n' ' ' <"$D/cmds.got")"
# the generated part is what the option tables print now (tools/completion.sh
# rewrites it)
sed -n '/^# BEGIN generated by rocm-vla-doctor __complete-table/,/^# END generated/p' "$C" |
    sed '1d;$d' >"$D/comp.gen"
"$RVD" __complete-table >"$D/comp.want"
[ -s "$D/comp.want" ] && cmp -s "$D/comp.want" "$D/comp.gen" && ok ||
    bad "$C differs from 'rocm-vla-doctor __complete-table' (run tools/completion.sh): $(diff "$D/comp.want" "$D/comp.gen" | head -5)"
# the options: completing '-' after each command offers exactly the options
# its --help lists (both from its table)
for c in $(cat "$D/cmds.want"); do
    "$RVD" "$c" --help | sed -n 's/^  \(-[a-z]\), \(--[a-z-]*\).*/\1\n\2/p; s/^      \(--[a-z-]*\).*/\1/p' |
        LC_ALL=C sort -u >"$D/help.$c"
    if [ "$c" = check ]; then comp -; else comp "$c" -; fi >"$D/opts.$c"
    [ -s "$D/help.$c" ] && cmp -s "$D/help.$c" "$D/opts.$c" && ok ||
        bad "completion of '$c -' differs from its --help: $(diff "$D/help.$c" "$D/opts.$c" | tr '\n' ' ')"
done
[ "$(comp bench --pre)" = "--preset" ] && ok || bad "bench --pre does not complete to --preset"
# values, check ids, presets (asked of the binary), the --opt=value form
[ "$(comp --level "" | tr '\n' ' ')" = "full quick standard " ] && ok || bad "--level values: $(comp --level "")"
[ "$(comp --level = s)" = standard ] && ok || bad "--level=s does not complete to standard"
[ "$(comp bench --backend "" | tr '\n' ' ')" = "auto cpu cuda hip " ] && ok || bad "--backend values"
comp explain "" >"$D/ids.got"
"$RVD" list | awk '{print $1}' | LC_ALL=C sort >"$D/ids.want"
[ -s "$D/ids.want" ] && cmp -s "$D/ids.want" "$D/ids.got" && ok || bad "explain does not complete every check id"
[ "$(comp --only kfd.access,gpu.vr)" = "kfd.access,gpu.vram" ] && ok || bad "--only a,b does not complete the second id"
comp bench --preset "" >"$D/presets.got"
missing=""
for p in tiny pi0 lingbot-v1 lingbot-v2; do grep -qx "$p" "$D/presets.got" || missing="$missing $p"; done
[ -z "$missing" ] && ok || bad "bench --preset does not offer:$missing"
# bash-completion itself finds the installed file (XDG_DATA_DIRS as the
# package's /usr/share is found)
if [ -f /usr/share/bash-completion/bash_completion ]; then
    got=$(XDG_DATA_DIRS="$T/usr/share" bash -c '. /usr/share/bash-completion/bash_completion
        __load_completion rocm-vla-doctor && complete -p rocm-vla-doctor' 2>&1)
    [ "$got" = "complete -F _rocm_vla_doctor rocm-vla-doctor" ] && ok ||
        bad "bash-completion does not load the installed completion: '$got'"
else
    echo "SKIP install bash-completion: the bash-completion package is not installed"
fi

# ---- make uninstall: nothing it wrote is left ----------------------------------
mk uninstall DESTDIR="$T" PREFIX=/usr >"$D/make-uninstall.out" 2>&1 && ok || bad "make uninstall failed"
left=$(files_of "$T" | tr '\n' ' ')
[ -z "$left" ] && [ ! -e "$SHARE" ] && ok || bad "make uninstall left: $left"
# PREFIX defaults to /usr/local
T2=$D/stage-default
mk install DESTDIR="$T2" >"$D/make-install2.out" 2>&1
want_files /usr/local "" >"$D/files2.want"
files_of "$T2" >"$D/files2.got"
cmp -s "$D/files2.want" "$D/files2.got" && ok || bad "make install without PREFIX does not install under /usr/local"
mk uninstall DESTDIR="$T2" >/dev/null 2>&1
[ -z "$(files_of "$T2")" ] && ok || bad "make uninstall without PREFIX left files"

# one version: VERSION and debian/changelog agree
if command -v dpkg-parsechangelog >/dev/null 2>&1; then
    cv=$(dpkg-parsechangelog -l debian/changelog -S Version 2>&1)
    [ "$cv" = "$VERSION" ] && ok || bad "debian/changelog says $cv, VERSION says $VERSION"
else
    echo "SKIP install changelog: dpkg-parsechangelog (dpkg-dev) is not installed"
fi

# ---- (b) the Debian package ------------------------------------------------------
deb_skip=""
if ! command -v dpkg-buildpackage >/dev/null 2>&1 || ! command -v dh >/dev/null 2>&1; then
    deb_skip="dpkg-buildpackage or debhelper is not installed (apt-get install dpkg-dev debhelper)"
elif [ "$BUILD" != build ]; then
    # the package is built with its own flags: once per CI run is enough
    deb_skip="built by the BUILD=build pass only, not again for BUILD=$BUILD"
elif ! dpkg-checkbuilddeps >"$D/builddeps.out" 2>&1; then
    deb_skip="$(sed 's/^dpkg-checkbuilddeps: error: //' "$D/builddeps.out" | head -1)"
fi
if [ -n "$deb_skip" ]; then
    echo "SKIP install deb: $deb_skip"
else
    W=$D/deb
    mkdir -p "$W/src"
    # a copy of the tree as git would check it out (tracked and new files,
    # not the build trees), made a git repository of its own so that
    # `git status` can say what the package build left behind
    if git rev-parse --git-dir >/dev/null 2>&1; then
        git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$W/src"
    else
        tar --exclude=./.git --exclude='./build*' --exclude=./rocm-vla-doctor \
            --exclude=./tests/out -cf - . | tar -xf - -C "$W/src"
    fi
    have_git=0
    (cd "$W/src" && git init -q && git add -A &&
        git -c user.name=test -c user.email=test@invalid commit -qm copy) >/dev/null 2>&1 && have_git=1
    t0=$(date +%s)
    (cd "$W/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS="parallel=2" \
        dpkg-buildpackage -us -uc -b) >"$W/build.log" 2>&1
    brc=$?
    echo "install: the .deb built in $(($(date +%s) - t0)) s"
    DEB=$W/rocm-vla-doctor_${VERSION}_amd64.deb
    [ "$brc" = 0 ] && [ -f "$DEB" ] && ok || bad "dpkg-buildpackage exited $brc: $(tail -5 "$W/build.log")"
    if [ "$have_git" = 1 ]; then
        st=$(cd "$W/src" && git status --porcelain | tr '\n' ' ')
        [ -z "$st" ] && ok || bad "dpkg-buildpackage left files in the tree: $st"
    else
        echo "SKIP install deb-clean: git cannot make a repository of the copy"
    fi
fi
if [ -z "$deb_skip" ] && [ -f "$DEB" ]; then
    # contents: the make install list (man pages compressed) and the docs
    {
        want_files /usr .gz
        printf '%s\n' ./usr/share/doc/rocm-vla-doctor/README.md.gz \
            ./usr/share/doc/rocm-vla-doctor/changelog.gz ./usr/share/doc/rocm-vla-doctor/copyright \
            ./usr/share/lintian/overrides/rocm-vla-doctor
    } | LC_ALL=C sort >"$W/files.want"
    dpkg-deb -c "$DEB" | grep -v '^d' | awk '{print $6}' | LC_ALL=C sort >"$W/files.got"
    cmp -s "$W/files.want" "$W/files.got" && ok ||
        bad "the .deb holds a different file list: $(diff "$W/files.want" "$W/files.got" | grep '^[<>]' | tr '\n' ' ')"
    dep=$(dpkg-deb -f "$DEB" Depends)
    case $dep in *libyaml-0-2*libncursesw6* | *libncursesw6*libyaml-0-2*) ok ;; *) bad "Depends lacks the linked libraries: $dep" ;; esac
    rec=$(dpkg-deb -f "$DEB" Recommends)
    [ "$rec" = "libamdhip64-5, libhsa-runtime64-1, librocm-smi64-1" ] && ok || bad "Recommends: '$rec'"
    # the packaged files work unpacked (no root needed): they find each other
    dpkg-deb -x "$DEB" "$W/root"
    PB=$W/root/usr/bin/rocm-vla-doctor
    run "$E" "$PB" --sysroot "$FIX" --level quick
    [ "$rc" -le 1 ] && has_line ", checks $W/root/usr/share/rocm-vla-doctor/checks.yaml\$" && ok ||
        bad "the packaged binary (unpacked) exited $rc or does not name its checks.yaml: $(head -2 "$D/run.out")"
    run "$E" "$PB" explain pcie.atomics
    [ "$rc" = 0 ] && has_line "^pcie\.atomics: " && ok || bad "the packaged binary's explain exited $rc"
    if command -v lintian >/dev/null 2>&1; then
        # -I: info tags too, among them unused-override (an override of
        # debian/rocm-vla-doctor.lintian-overrides that is no longer needed)
        lintian -I "$W"/rocm-vla-doctor_"${VERSION}"_amd64.changes >"$W/lintian.out" 2>&1
        tags=$(grep -E '^[EW]: |unused-override' "$W/lintian.out" | tr '\n' ' ')
        [ -z "$tags" ] && ok || bad "lintian (not overridden): $tags"
    else
        echo "SKIP install lintian: lintian is not installed"
    fi
    # installed for real only by CI, as root, on a machine it owns
    owner=$(dpkg -S /usr/bin/rocm-vla-doctor 2>/dev/null | cut -d: -f1)
    if [ "${CI_INSTALL_DEB:-0}" != 1 ]; then
        echo "SKIP install dpkg-i: installs into /usr only in CI (CI_INSTALL_DEB=1, set by .ci/run)"
    elif [ "$(id -u)" != 0 ]; then
        echo "SKIP install dpkg-i: CI_INSTALL_DEB=1 but not root"
    elif [ -e /usr/bin/rocm-vla-doctor ] && [ "$owner" != rocm-vla-doctor ]; then
        echo "SKIP install dpkg-i: /usr/bin/rocm-vla-doctor exists and is not the package's"
    else
        dpkg -i "$DEB" >"$W/dpkg-i.out" 2>&1 && ok || bad "dpkg -i failed: $(tail -3 "$W/dpkg-i.out")"
        run / /usr/bin/rocm-vla-doctor --level quick
        [ "$rc" -le 1 ] && has_line ", checks /usr/share/rocm-vla-doctor/checks.yaml\$" && ok ||
            bad "installed package: --level quick exited $rc: $(head -2 "$D/run.out")"
        run / /usr/bin/rocm-vla-doctor explain kfd.access
        [ "$rc" = 0 ] && has_line "^kfd\.access: " && ok || bad "installed package: explain exited $rc"
        run / /usr/bin/rocm-vla-doctor --version
        has_line "^rocm-vla-doctor $VERSION" && ok || bad "installed package: --version: $(cat "$D/run.out")"
        dpkg -r rocm-vla-doctor >"$W/dpkg-r.out" 2>&1 && ok || bad "dpkg -r failed: $(tail -3 "$W/dpkg-r.out")"
        [ ! -e /usr/bin/rocm-vla-doctor ] && [ ! -e /usr/share/rocm-vla-doctor ] && ok ||
            bad "dpkg -r left /usr/bin/rocm-vla-doctor or /usr/share/rocm-vla-doctor"
    fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
