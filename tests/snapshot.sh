#!/bin/sh
# snapshot.sh - collect's tarballs end to end.
#
# 1. Hostile archives (written by tools/mk-hostile-tarballs.py, listed with
#    the error each must produce in its `expected` file): `check --sysroot`
#    must exit 2 with one line naming the problem, must not crash or trip a
#    sanitizer, and must leave nothing behind: its TMPDIR ends up empty and
#    the canary that escaping names aim at is never created. The valid
#    control archive must be accepted, again leaving TMPDIR empty.
# 2. Round trip: `collect` on this machine, then `check --sysroot` on the
#    tarball must give every check the same status as a live run; the
#    tarball holds only the user's passwd line, the groups and the packages
#    the probes need.
# 3. collect's output errors: a missing directory, a directory as the file.
# Ends with "N passed, M failed". RVD and OUT come from the environment.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
PY=/usr/bin/python3
S=$OUT/snapshot
rm -rf "$S" && mkdir -p "$S"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL snapshot $*"; }
tab=$(printf '\t')

# the sanitizer runtimes print these; a plain crash shows as exit >= 128
sanitizer_report() { grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$1"; }

# ---- 1. hostile archives ------------------------------------------------
H=$S/hostile
if ! "$PY" tools/mk-hostile-tarballs.py "$H" >"$S/generate.err" 2>&1; then
    bad "tools/mk-hostile-tarballs.py failed: $(head -3 "$S/generate.err")"
fi
[ -f "$H/expected" ] || : >"$S/none"
canary=$S/escape-target
while IFS="$tab" read -r name pattern; do
    [ -n "$name" ] || continue
    tmp=$S/tmp-$name
    mkdir -p "$tmp"
    rm -rf "$canary"
    err=$S/$name.err
    TMPDIR=$tmp "$RVD" check --no-color --sysroot "$H/$name" >"$S/$name.out" 2>"$err"
    rc=$?
    what="$name:"
    if [ $rc -ge 128 ]; then
        bad "$what crashed (exit $rc): $(head -2 "$err")"
        continue
    fi
    if sanitizer_report "$err"; then
        bad "$what sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error' "$err")"
        continue
    fi
    if [ -n "$(ls -A "$tmp")" ]; then
        bad "$what left files in its TMPDIR: $(ls -A "$tmp" | head -3 | tr '\n' ' ')"
    else
        ok
    fi
    if [ -e "$canary" ] || [ -e /tmp/rvd-hostile-abs ]; then
        bad "$what created a file outside its private directory"
        rm -rf "$canary"
    else
        ok
    fi
    if [ "$pattern" = "-" ]; then
        # the control: accepted (0 or 1 by the checks' verdicts, never 2)
        if [ $rc -le 1 ] && ! grep -q 'error: snapshot' "$err"; then
            ok
        else
            bad "$what valid archive refused (exit $rc): $(head -2 "$err")"
        fi
        continue
    fi
    lines=$(wc -l <"$err")
    if [ $rc -ne 2 ]; then
        bad "$what exit $rc, want 2: $(head -2 "$err")"
    elif [ "$lines" -ne 1 ]; then
        bad "$what want a one-line error, got $lines lines: $(head -3 "$err" | tr '\n' '|')"
    elif ! grep -qE "^rocm-vla-doctor: error: snapshot '.*': .*($pattern)" "$err"; then
        bad "$what message does not say '$pattern': $(cat "$err")"
    else
        ok
    fi
done <"$H/expected"
n=$(grep -c . "$H/expected" 2>/dev/null || echo 0)
if [ "$n" -ge 30 ]; then ok; else bad "only $n hostile archives generated"; fi
# docs/ARCHITECTURE.md states the count: it must be the generator's
nh=$(grep -c -v '	-$' "$H/expected" 2>/dev/null || echo 0)
nd=$(grep -o '[0-9][0-9]* hostile tarballs' docs/ARCHITECTURE.md | head -1 | cut -d' ' -f1)
if [ "$nh" = "$nd" ]; then ok; else bad "docs/ARCHITECTURE.md says ${nd:-no} hostile tarballs, the generator writes $nh"; fi

# ---- 2. round trip on this machine ------------------------------------
live_tar=$S/live.tar.gz
if "$RVD" collect -o "$live_tar" >"$S/collect.out" 2>"$S/collect.err"; then
    ok
else
    bad "collect -o $live_tar failed: $(head -3 "$S/collect.err")"
fi
if [ -s "$live_tar" ]; then ok; else bad "collect wrote no tarball"; fi
ls "$S" | grep -q '\.tmp\.' && bad "collect left a temporary file" || ok
# what the snapshot carries of the user and package databases: the user's
# own passwd line, the GPU groups and the user's, the GPU stack's packages
# (src/snapshot/snapshot_redact.h); the live files must hold more, or the test is moot
if "$PY" - "$live_tar" "$(id -un)" "$(id -G)" >"$S/redact.txt" 2>&1 <<'EOF'
import os, re, sys, tarfile
tar, user, gids = sys.argv[1], sys.argv[2], set(sys.argv[3].split())
t = tarfile.open(tar)
def member(name):
    try:
        return t.extractfile(name).read().decode()
    except KeyError:
        return None
bad = []
live_pw = open("/etc/passwd").read().splitlines()
others = [l for l in live_pw if l.split(":")[0] != user]
pw = member("etc/passwd")
if pw is None or not others:
    bad.append("no etc/passwd in the snapshot, or no other account on this host to drop")
else:
    names = [l.split(":")[0] for l in pw.splitlines()]
    if names != [user]:
        bad.append("etc/passwd holds %r, want only %s's line" % (names, user))
dev = member(".snapshot/devnodes") or ""
dev_gids = [x.split()[3] for x in dev.splitlines() if len(x.split()) == 4]
gr = member("etc/group")
if gr is None:
    bad.append("no etc/group in the snapshot")
else:
    live_gr = open("/etc/group").read().splitlines()
    if len(live_gr) <= len(gr.splitlines()):
        bad.append("etc/group: nothing dropped (%d lines live)" % len(live_gr))
    for l in gr.splitlines():
        f = l.split(":")
        members = [m for m in f[3].split(",") if m] if len(f) > 3 else []
        if members and members != [user]:
            bad.append("group line lists other members: " + l)
        if (f[0] not in ("render", "video") and f[2] not in gids and user not in members
                and f[2] not in dev_gids):
            bad.append("group line no probe needs: " + l)
keep = ("libamdhip64", "rocm", "hip", "amdgpu", "rock-dkms", "hsa", "libhsa", "comgr",
        "libamd-comgr", "libdrm-amdgpu", "firmware-amd-graphics", "linux-firmware",
        "mesa-vulkan-drivers", "libvulkan", "vulkan")
if os.path.exists("/var/lib/dpkg/status"):
    st = member("var/lib/dpkg/status")
    live = re.findall(r"^Package: (\S+)", open("/var/lib/dpkg/status").read(), re.M)
    if not [p for p in live if not p.startswith(keep)]:
        bad.append("no unrelated package on this host to drop")
    pk = re.findall(r"^Package: (\S+)", st or "", re.M)
    extra = [p for p in pk if not p.startswith(keep)]
    if st is None or extra:
        bad.append("dpkg status: missing, or unrelated packages kept: %s" % extra[:5])
    lost = sorted(set(p for p in live if p.startswith(keep)) - set(pk))
    if lost:
        bad.append("dpkg status: GPU packages lost: %s" % lost[:5])
print("\n".join(bad) or "redacted")
sys.exit(1 if bad else 0)
EOF
then
    ok
else
    bad "snapshot redaction: $(head -5 "$S/redact.txt")"
fi
mkdir -p "$S/tmp-replay"
TMPDIR=$S/tmp-replay "$RVD" --no-color --sysroot "$live_tar" --json "$S/replay.json" \
    >"$S/replay.txt" 2>"$S/replay.err"
rc_replay=$?
"$RVD" --no-color --json "$S/live.json" >"$S/live.txt" 2>"$S/live.err"
rc_live=$?
if [ $rc_replay -eq $rc_live ]; then
    ok
else
    bad "round trip: replay exit $rc_replay, live exit $rc_live: $(head -2 "$S/replay.err")"
fi
if [ -z "$(ls -A "$S/tmp-replay")" ]; then ok; else bad "replay left its unpacked snapshot"; fi
# compare every check's status; the text reports when there is no JSON yet
if "$PY" - "$S/live.json" "$S/replay.json" "$S/live.txt" "$S/replay.txt" >"$S/compare.txt" 2>&1 <<'EOF'
import json, re, sys
live_json, replay_json, live_txt, replay_txt = sys.argv[1:5]

def statuses(path):
    """{(id, n-th occurrence): status} from a JSON report, or None"""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    checks = data.get("checks") if isinstance(data, dict) else None
    if not isinstance(checks, list):
        return None
    out, seen = {}, {}
    for c in checks:
        key = (c.get("id"), c.get("gpu"), seen.get(c.get("id"), 0))
        seen[c.get("id")] = seen.get(c.get("id"), 0) + 1
        out[key] = c.get("status")
    return out, data.get("facts", {})

def text_lines(path):
    """the report without its first line and with the timing masked"""
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()[1:]
    return [re.sub(r"in [0-9.]+ s\)", "in X s)", l) for l in lines]

a, b = statuses(live_json), statuses(replay_json)
if a is None or b is None:
    la, lb = text_lines(live_txt), text_lines(replay_txt)
    if la != lb:
        print("text reports differ (no JSON to compare)")
        for x, y in zip(la + [""] * len(lb), lb + [""] * len(la)):
            if x != y:
                print("  live:   " + x + "\n  replay: " + y)
        sys.exit(1)
    print("text reports agree (%d lines)" % len(la))
    sys.exit(0)
(sa, fa), (sb, fb) = a, b
bad = 0
for key in sorted(set(sa) | set(sb), key=str):
    if sa.get(key) != sb.get(key):
        print("check %s: live %s, replay %s" % (key[0], sa.get(key), sb.get(key)))
        bad = 1
if bad:
    # the facts that differ usually say which file or query was not recorded
    for k in sorted(set(fa) | set(fb)):
        if fa.get(k) != fb.get(k):
            print("  fact %s: live %r, replay %r" % (k, fa.get(k), fb.get(k)))
    sys.exit(1)
if not sa:
    print("no checks in the reports")
    sys.exit(1)
print("%d checks agree" % len(sa))
EOF
then
    ok
else
    bad "round trip: replay differs from live: $(head -20 "$S/compare.txt")"
fi

# ---- 3. collect's output errors ---------------------------------------
"$RVD" collect -o "$S/no/such/dir/x.tar.gz" >/dev/null 2>"$S/collect-missing.err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'error: .*no/such/dir' "$S/collect-missing.err" &&
    [ ! -e "$S/no" ]; then
    ok
else
    bad "collect into a missing directory: exit $rc, $(head -2 "$S/collect-missing.err")"
fi
mkdir -p "$S/a-directory"
"$RVD" collect -o "$S/a-directory" >/dev/null 2>"$S/collect-dir.err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'is a directory' "$S/collect-dir.err" &&
    [ -z "$(ls -A "$S/a-directory")" ]; then
    ok
else
    bad "collect over a directory: exit $rc, $(head -2 "$S/collect-dir.err")"
fi
# an existing file is replaced
echo old >"$S/replace.tar.gz"
if "$RVD" collect -o "$S/replace.tar.gz" >/dev/null 2>&1 &&
    [ "$(head -c 2 "$S/replace.tar.gz" | od -An -tx1 | tr -d ' ')" = "1f8b" ]; then
    ok
else
    bad "collect did not replace an existing file"
fi

# the snapshots committed as fixture machines (recorded live) obey the same
# contract: one passwd line, no package stanza outside the GPU stack's
for snap in tests/fixtures/*/snapshot.tar.gz; do
    msg=$(python3 - "$snap" <<'PY'
import sys, tarfile
t = tarfile.open(sys.argv[1])
def text(name):
    for m in t.getmembers():
        if m.name.lstrip("./") == name and m.isfile():
            return t.extractfile(m).read().decode("utf-8", "replace")
    return ""
pw = [l for l in text("etc/passwd").splitlines() if l.strip()]
if len(pw) > 1:
    print("etc/passwd holds %d lines" % len(pw))
pk = [l.split(":", 1)[1].strip() for l in text("var/lib/dpkg/status").splitlines() if l.startswith("Package:")]
odd = [p for p in pk if p in ("bash", "coreutils", "openssh-server", "libc6", "python3")]
if odd:
    print("dpkg status keeps unrelated packages: %s" % ", ".join(odd))
PY
)
    if [ -z "$msg" ]; then ok; else bad "$snap: $msg"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
