#!/bin/sh
# real_fidelity.sh - the doctor's facts against the real captures they come
# from. Each fixture machine built on a real card's sysfs (its README's
# "Real captures used" line names the capture and where it lies in root/)
# is run, and every fact that has a capture file behind it is compared with
# what a plain reader here makes of the file: mem_info_* bytes, hwmon
# microwatts and millidegrees by temp*_label, the top pp_dpm_sclk/mclk level,
# the power profile marked '*', fw_version/*, the real KFD node of the
# RX 7900 XTX (gfx_target_version, simd_count / simd_per_cu, render minor,
# MEC firmware, the SVM capability bit), and in one monitor sample the
# marked sclk/mclk level, fan, VRAM and GTT in use. Files that mk-fixtures.py wrote
# beside a capture that lacks them (mem_info_* of the RX 7900 XT) are
# compared too: the reader is the same. Ends with "N passed, M failed".
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
W="$OUT/real_fidelity"
rm -rf "$W" && mkdir -p "$W"
NAME=real_fidelity
. tests/lib.sh

for m in rx580-legacy rx6900xt-desktop rx7800xt-override rx7900xtx-desktop; do
    "$RVD" --sysroot "tests/fixtures/$m/root" --level standard --no-color --json "$W/$m.json" \
        >"$W/$m.txt" 2>&1
    "$RVD" monitor --sysroot "tests/fixtures/$m/root" --count 1 --json >"$W/$m.mon" 2>&1
    out=$(python3 - "tests/fixtures/$m" "$W/$m.json" "$W/$m.mon" <<'PY'
import glob, json, os, re, sys

fix, report = sys.argv[1], sys.argv[2]
f = json.load(open(report))["facts"]
mon = json.loads(open(sys.argv[3]).readline())["gpus"][0]
readme = open(fix + "/README").read()
gpu = None
for src, dst in re.findall(r"^- \.\./shared/fixtures-real/(\S+) -> (\S+)$", readme, re.M):
    if src.startswith("amdgpu-sysfs-rs/"):
        gpu = fix + "/root" + dst
kfd = [fix + "/root" + d + ("/properties" if os.path.isdir(fix + "/root" + d) else "")
       for s, d in
       re.findall(r"^- \.\./shared/fixtures-real/(\S+) -> (\S+)$", readme, re.M)
       if s.startswith("kfd-topology/")]
checked = 0

def text(rel):
    p = os.path.join(gpu, rel)
    return open(p).read() if os.path.isfile(p) else None

def same(fact, want, got=None):
    global checked
    if got is None:
        got = f.get("gpu.0." + fact, "<absent>")
    ok = got == want or (isinstance(want, float) and isinstance(got, (int, float))
                         and abs(got - want) < 1e-9)
    print("%s %s: doctor %r, capture %r" % ("ok" if ok else "BAD", fact, got, want))
    checked += 1

for name, fact in (("mem_info_vram_total", "vram_bytes"),
                   ("mem_info_vis_vram_total", "vis_vram_bytes"),
                   ("gpu_busy_percent", "busy_percent"),
                   ("pcie_replay_count", "pcie_replay_count")):
    t = text(name)
    if t is not None:
        same(fact, int(t))
for name, fact in (("vbios_version", "vbios"), ("serial_number", "serial"),
                   ("power_dpm_force_performance_level", "perf_level")):
    t = text(name)
    if t is not None:
        same(fact, t.strip())
for name, fact in (("pp_dpm_sclk", "sclk_max_mhz"), ("pp_dpm_mclk", "mclk_max_mhz")):
    t = text(name)
    if t is not None:
        same(fact, max(int(x) for x in re.findall(r"^\d+: (\d+)[Mm][Hh][Zz]", t, re.M)))
t = text("pp_power_profile_mode")
if t is not None:
    same("power_profile", re.search(r"^\s*\d+\s+(\w+)\s*\*", t, re.M).group(1))
hw = glob.glob(os.path.join(gpu, "hwmon/hwmon*"))
for h in hw:
    for name, fact in (("power1_average", "power_w"), ("power1_cap", "power_cap_w"),
                       ("power1_cap_default", "power_cap_default_w"),
                       ("power1_cap_max", "power_cap_max_w")):
        if os.path.isfile(os.path.join(h, name)):
            same(fact, int(open(os.path.join(h, name)).read()) / 1e6)
    for lab in glob.glob(os.path.join(h, "temp*_label")):
        n = os.path.basename(lab)[:-len("_label")]
        label = open(lab).read().strip()
        same("temp_%s_c" % label, int(open(os.path.join(h, n + "_input")).read()) / 1000.0)
        if os.path.isfile(os.path.join(h, n + "_crit")):
            same("temp_%s_limit_c" % label,
                 int(open(os.path.join(h, n + "_crit")).read()) / 1000.0)
for p in glob.glob(os.path.join(gpu, "fw_version/*_fw_version")):
    same("fw." + os.path.basename(p)[:-len("_fw_version")], open(p).read().strip())
# KFD's fw_version is amdgpu's MEC version: a synthesized KFD node beside a
# real fw_version/ must say what the capture says
t = text("fw_version/mec_fw_version")
if t is not None and int(t, 16):
    same("mec_fw", int(t, 16))
for p in kfd:
    kv = dict(l.split() for l in open(p) if l.strip())
    kv = {k: int(v) for k, v in kv.items()}
    same("gfx_target_version", kv["gfx_target_version"])
    same("cu_count", kv["simd_count"] // kv["simd_per_cu"])
    same("render_minor", kv["drm_render_minor"])
    same("mec_fw", kv["fw_version"])
    same("svm_capable", bool(kv["capability"] & 0x08000000))  # HSA_CAP_SVMAPI_SUPPORTED
    same("is_apu", kv["cpu_cores_count"] > 0)
# the sampler (monitor): the marked DPM levels, fan, memory in use
def tel(key, want):
    same("monitor " + key, want, mon.get(key, "<absent>"))

for name, key in (("pp_dpm_sclk", "sclk_mhz"), ("pp_dpm_mclk", "mclk_mhz")):
    t = text(name)
    if t is not None:
        cur = re.findall(r"^(?:\d+|S): (\d+)[Mm][Hh][Zz] *\*", t, re.M)
        tel(key, int(cur[0]) if cur else None)
for name, key in (("mem_info_vram_used", "vram_used_bytes"),
                  ("mem_info_gtt_used", "gtt_used_bytes"),
                  ("mem_busy_percent", "mem_busy_pct")):
    t = text(name)
    if t is not None:
        tel(key, int(t))
for h in hw:
    if os.path.isfile(os.path.join(h, "fan1_input")):
        tel("fan_rpm", int(open(os.path.join(h, "fan1_input")).read()))
    if os.path.isfile(os.path.join(h, "pwm1")):
        pwm = int(open(os.path.join(h, "pwm1")).read())
        tel("fan_pct", round(100.0 * pwm / int(open(os.path.join(h, "pwm1_max")).read()), 4))
print("checked %d" % checked)
PY
)
    printf '%s\n' "$out" >"$W/$m.cmp"
    n=$(printf '%s\n' "$out" | sed -n 's/^checked //p')
    if [ "${n:-0}" -ge 8 ]; then ok; else bad "$m: only ${n:-0} facts compared (see $W/$m.cmp)"; fi
    printf '%s\n' "$out" | grep '^BAD ' | while IFS= read -r line; do echo "FAIL $NAME: $m: $line"; done
    if printf '%s\n' "$out" | grep -q '^BAD '; then bad "$m: facts differ from the capture"; else ok; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
