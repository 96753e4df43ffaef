#!/bin/sh
# driver_cause.sh - driver.loaded names why amdgpu is missing, with that
# cause's own fix, on the fixture machines built for each cause; the checks
# that fail only because the driver is missing point at driver.loaded; and
# collect records every file the cause probe reads (live -> replay facts agree).
# fixtures.sh checks the statuses; this checks which rule decided.
set -u
RVD=${RVD:-build/rocm-vla-doctor}
OUT=${OUT:-build/out}
NAME=driver_cause
. tests/lib.sh
D=$OUT/driver_cause
rm -rf "$D"
mkdir -p "$D"
F=tests/fixtures
GENERIC='install amdgpu-dkms from the ROCm repository'

run() { # machine -> $D/machine.json
    "$RVD" --sysroot "$F/$1/root" --no-color --json "$D/$1.json" >"$D/$1.txt" 2>"$D/$1.err"
    [ -s "$D/$1.json" ] || bad "$1: no JSON report ($(head -2 "$D/$1.err"))"
}

# cause MACHINE SUMMARY-TEXT FIX-TEXT: driver.loaded fails with this cause
cause() {
    run "$1"
    expect "$1: driver.loaded fails" "$D/$1.json" "c['driver.loaded']['status'] == 'fail'"
    expect "$1: summary names the cause" "$D/$1.json" "'''$2''' in c['driver.loaded']['summary']"
    expect "$1: fix is the cause's own" "$D/$1.json" "'''$3''' in c['driver.loaded']['fix']"
    expect "$1: not the generic fix" "$D/$1.json" "'''$GENERIC''' not in c['driver.loaded']['fix']"
}

cause rx6900xt-nomodeset "kernel command line stops amdgpu: nomodeset" \
    "remove nomodeset from the kernel command line"
cause rx6900xt-blacklist "/etc/modprobe.d/vfio-gpu.conf:3: blacklist amdgpu" \
    "rebuild the initramfs"
# the harmless options line of /usr/lib/modprobe.d is not named
expect "rx6900xt-blacklist: options line not named" "$D/rx6900xt-blacklist.json" \
    "f['driver.modprobe_blocks'] == ['/etc/modprobe.d/vfio-gpu.conf:3: blacklist amdgpu']"
cause rx6900xt-dkms-stale "built for 6.8.0-49-generic, not for the running kernel 6.8.0-51-generic" \
    "dkms autoinstall -k 6.8.0-51-generic"
expect "rx6900xt-dkms-stale: make.log found" "$D/rx6900xt-dkms-stale.json" \
    "f['driver.dkms_make_log'] == '/var/lib/dkms/amdgpu/6.8.5/build/make.log'"
cause rx6900xt-no-amdgpu-kernel "built without CONFIG_DRM_AMDGPU" "CONFIG_DRM_AMDGPU=m"
cause rx6900xt-no-modules-extra "has no amdgpu module in /lib/modules/6.8.0-49-generic" \
    "linux-modules-extra-6.8.0-49-generic"
cause rx6900xt-secureboot "signature was rejected (Secure Boot)" "mokutil --import"
cause rx6900xt-secureboot-nolog "Secure Boot is on" "sudo dmesg | grep -i -e"
expect "rx6900xt-secureboot-nolog: EFI variable read" "$D/rx6900xt-secureboot-nolog.json" \
    "f['kernel.secure_boot'] is True"
cause rx7900xt-firmware "does not drive 0000:03:00.0: firmware failed to load (amdgpu/psp_13_0_0_sos.bin" \
    "firmware-amd-graphics"
expect "rx7900xt-firmware: missing file named" "$D/rx7900xt-firmware.json" \
    "f['driver.firmware_missing'] == ['amdgpu/psp_13_0_0_sos.bin']"

# a built-in amdgpu stopped by nomodeset: /sys/module/amdgpu exists (its
# parameters) without initstate, and the GPU is unbound
B=$D/builtin-nomodeset
cp -a "$F/rx6900xt-nomodeset/root" "$B"
mkdir -p "$B/sys/module/amdgpu/parameters"
echo -1 >"$B/sys/module/amdgpu/parameters/dc"
"$RVD" --sysroot "$B" --no-color --json "$D/builtin.json" >/dev/null 2>&1
expect "built-in amdgpu + nomodeset: command line named" "$D/builtin.json" \
    "c['driver.loaded']['status'] == 'fail' and 'stops amdgpu: nomodeset' in c['driver.loaded']['summary']"

# dependent checks point at driver.loaded instead of a fix of their own
for m in rx6900xt-nomodeset rx6900xt-secureboot; do
    for id in kfd.access user.groups gpu.vram gpu.thermal pcie.atomics kernel.params; do
        expect "$m: $id points at driver.loaded" "$D/$m.json" \
            "c['$id']['status'] == 'skip' and c['$id']['summary'].startswith('because driver.loaded failed')"
    done
done
# a loaded driver that left the GPU: per-GPU checks point at it, /dev/kfd is fine
for id in gpu.vram gpu.gfx_supported gpu.ras; do
    expect "rx7900xt-firmware: $id points at driver.loaded" "$D/rx7900xt-firmware.json" \
        "c['$id']['summary'] == 'because driver.loaded failed: amdgpu does not drive 0000:03:00.0'"
done
expect "rx7900xt-firmware: kfd.access evaluated" "$D/rx7900xt-firmware.json" \
    "c['kfd.access']['status'] == 'pass'"

# machines with the driver keep passing, with no cause and every GPU bound
for m in mi300x-node rx7800xt-override rx580-legacy; do
    run "$m"
    expect "$m: driver.loaded passes" "$D/$m.json" "c['driver.loaded']['status'] == 'pass'"
    expect "$m: every GPU bound" "$D/$m.json" "f['driver.unbound_gpus'] == []"
done
# without an AMD GPU: skips, as before
run no-gpu-server
expect "no-gpu-server: driver.loaded skips" "$D/no-gpu-server.json" \
    "c['driver.loaded']['status'] == 'skip' and 'see gpu.present' in c['driver.loaded']['summary']"

# collect records what the cause probe reads: the replay has the same facts
if "$RVD" collect -o "$D/live.tar.gz" >/dev/null 2>"$D/collect.err"; then
    "$RVD" --no-color --json "$D/live.json" >/dev/null 2>&1
    "$RVD" --no-color --sysroot "$D/live.tar.gz" --json "$D/replay.json" >/dev/null 2>&1
    for fact in driver.cmdline_blocks driver.modprobe_blocks driver.dkms_versions \
        driver.dkms_kernels driver.dkms_built_running driver.dkms_make_log kernel.amdgpu_module \
        kernel.drm_amdgpu_config kernel.secure_boot driver.firmware_missing driver.unbound_gpus; do
        if same_fact "$D/live.json" "$D/replay.json" "$fact"; then ok; else bad "collect/replay: $fact differs"; fi
    done
else
    bad "collect failed: $(head -2 "$D/collect.err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
