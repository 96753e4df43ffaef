#!/usr/bin/python3
"""mk-fixtures.py SHARED_FIXTURES_REAL OUT_DIR [MACHINE...] - build the fixture machines
(all, or the ones named).

Each machine is a sysroot tree under OUT_DIR/<machine>/root, made from the
real captures in ../shared/fixtures-real (sysfs of real amdgpu cards, a real
KFD topology node) where such data exists, completed with synthesized files
where it does not. Every machine's README lists which files are real
captures and which are synthesized, and what the machine is meant to show.

Run by a developer when a fixture must change; the trees are committed (CI
has no ../shared). The expected results (tests/fixtures/<m>/expected) are
written and reviewed by hand, never generated from the program's output.
"""
import os
import shutil
import struct
import sys

REAL = None


class Root:
    def __init__(self, path):
        self.path = path
        self.real = []       # files copied from real captures
        if os.path.exists(path):
            shutil.rmtree(path)
        os.makedirs(path)

    def p(self, rel):
        return os.path.join(self.path, rel.lstrip("/"))

    def file(self, rel, data, mode=0o644):
        full = self.p(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.chmod(full, mode)

    def link(self, rel, target):
        full = self.p(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if os.path.lexists(full):
            os.remove(full)
        os.symlink(target, full)

    def copy_capture(self, src, rel, skip=()):
        """copy a real capture directory (files and subdirectories)"""
        for dirpath, dirnames, filenames in os.walk(src):
            sub = os.path.relpath(dirpath, src)
            for fn in filenames:
                if fn in skip:
                    continue
                dst = os.path.normpath(os.path.join(rel, sub, fn))
                full = self.p(dst)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                # the captures pad every file with NULs to 4 KiB; sysfs
                # itself does not, so the padding of text files is dropped.
                # A binary file keeps every byte: zeros at its end are data
                # (gpu_metrics' last field is often 0), and the parser
                # accepts a page of zero padding as sysfs reads may give it
                data = open(os.path.join(dirpath, fn), "rb").read()
                if fn not in BINARY_CAPTURES:
                    data = data.rstrip(b"\0")
                with open(full, "wb") as f:
                    f.write(data)
                os.chmod(full, 0o644)
                self.real.append((dst, os.path.relpath(os.path.join(dirpath, fn), REAL)))


# captured files that are binary structs, copied byte for byte
BINARY_CAPTURES = ("gpu_metrics",)


def relto(frm_dir, to):
    return os.path.relpath(to, frm_dir)


# ---- PCI --------------------------------------------------------------------

PORT_ENDPOINT, PORT_ROOT, PORT_UP, PORT_DOWN = 0, 4, 5, 6


def config_space(vendor, device, cls, port, devcap2=0, devctl2=0, bridge=False):
    """4 KiB of PCI config space with a PCI Express capability at 0x40"""
    c = bytearray(4096)
    struct.pack_into("<HH", c, 0, vendor, device)
    struct.pack_into("<H", c, 0x04, 0x0407)          # command: io, mem, master
    struct.pack_into("<H", c, 0x06, 0x0010)          # status: capability list
    c[0x08] = 0xc8                                   # revision
    c[0x09], c[0x0a], c[0x0b] = cls & 0xff, (cls >> 8) & 0xff, (cls >> 16) & 0xff
    c[0x0e] = 0x01 if bridge else 0x00               # header type
    c[0x34] = 0x40
    c[0x40], c[0x41] = 0x10, 0x00                    # PCIe capability, last
    struct.pack_into("<H", c, 0x42, 0x0002 | (port << 4))
    struct.pack_into("<I", c, 0x40 + 0x24, devcap2)  # Device Capabilities 2
    struct.pack_into("<H", c, 0x40 + 0x28, devctl2)  # Device Control 2
    return bytes(c)


ATOMIC_ROUTE, ATOMIC_C32, ATOMIC_C64, ATOMIC_C128 = 0x40, 0x80, 0x100, 0x200
ATOMIC_REQ_EN = 0x40


def speed_text(gts):
    return "%.1f GT/s PCIe" % gts


def pci_chain(r, domain_bus, hops):
    """hops: list of dicts from the root port down to the endpoint, each
    {bdf, vendor, device, cls, port, cur, width, max, max_width, devcap2,
    devctl2}. Creates /sys/devices/pci<domain_bus>/.../<bdf> directories and
    the /sys/bus/pci/devices links. Returns the endpoint's /sys path."""
    path = "/sys/devices/pci%s" % domain_bus
    r.file(path + "/uevent", "")
    for h in hops:
        path = path + "/" + h["bdf"]
        r.file(path + "/vendor", "0x%04x\n" % h["vendor"])
        r.file(path + "/device", "0x%04x\n" % h["device"])
        r.file(path + "/class", "0x%06x\n" % h["cls"])
        if h.get("cur"):
            r.file(path + "/current_link_speed", speed_text(h["cur"]) + "\n")
            r.file(path + "/current_link_width", "%d\n" % h["width"])
            r.file(path + "/max_link_speed", speed_text(h["max"]) + "\n")
            r.file(path + "/max_link_width", "%d\n" % h["max_width"])
        r.file(path + "/config", config_space(h["vendor"], h["device"], h["cls"], h["port"],
                                              h.get("devcap2", 0), h.get("devctl2", 0),
                                              bridge=h["port"] in (PORT_ROOT, PORT_UP, PORT_DOWN)))
        r.link("/sys/bus/pci/devices/" + h["bdf"],
               relto("/sys/bus/pci/devices", path))
    return path


# ---- AMD GPU pieces -----------------------------------------------------------

def kfd_cpu_node(r, n):
    d = "/sys/class/kfd/kfd/topology/nodes/%d" % n
    r.file(d + "/properties", "cpu_cores_count 64\nsimd_count 0\nmem_banks_count 1\n"
           "gfx_target_version 0\nvendor_id 0\ndevice_id 0\nlocation_id 0\ndomain 0\n"
           "drm_render_minor 0\ncapability 0\nlocal_mem_size 0\n")
    r.file(d + "/gpu_id", "0\n")


def kfd_gpu_node(r, n, props, vram, gpu_id, width, mem_clk):
    """width/mem_clk: the memory bank's bus bits and reported memory clock
    (MHz), the card's own (no default: a default once gave every card the
    RX 7900 XT's 384-bit bus, and the derived memory peaks with it)"""
    d = "/sys/class/kfd/kfd/topology/nodes/%d" % n
    r.file(d + "/properties", props)
    r.file(d + "/gpu_id", "%d\n" % gpu_id)
    r.file(d + "/mem_banks/0/properties",
           "heap_type 1\nsize_in_bytes %d\nflags 0\nwidth %d\nmem_clk_max %d\n"
           % (vram, width, mem_clk))


def props_text(gfx_tv, simd, device_id, location_id, render_minor, cpu_cores=0, capability=0x28000280,
               simd_per_cu=2, local_mem=0, domain=0, engine_clk=2100, fw=100):
    return ("cpu_cores_count %d\nsimd_count %d\nmem_banks_count 1\ncaches_count 200\n"
            "io_links_count 1\nsimd_per_cu %d\nmax_waves_per_simd 16\nwave_front_size 64\n"
            "gfx_target_version %d\nvendor_id 4098\ndevice_id %d\nlocation_id %d\ndomain %d\n"
            "drm_render_minor %d\nlocal_mem_size %d\nfw_version %d\ncapability %d\n"
            "num_xcc 1\nmax_engine_clk_fcompute %d\n"
            % (cpu_cores, simd, simd_per_cu, gfx_tv, device_id, location_id, domain,
               render_minor, local_mem, fw, capability, engine_clk))


def location_id(bdf):
    bus, devfn = bdf.split(":")[1], bdf.split(":")[2]
    dev, fn = devfn.split(".")
    return (int(bus, 16) << 8) | (int(dev, 16) << 3) | int(fn)


def drm_card(r, dev_path, card, render_minor, files):
    """DRM files in the PCI device dir, drm/cardN, /sys/class/drm link, /dev nodes"""
    for k, v in files.items():
        r.file(dev_path + "/" + k, v)
    r.file(dev_path + "/drm/%s/dev" % card, "226:%d\n" % int(card[4:]))
    r.file(dev_path + "/drm/renderD%d/dev" % render_minor, "226:%d\n" % render_minor)
    r.link("/sys/class/drm/" + card, relto("/sys/class/drm", dev_path + "/drm/" + card))
    r.file("/dev/dri/" + card, "")
    r.file("/dev/dri/renderD%d" % render_minor, "")


def hwmon(r, dev_path, n, temps, crit, power_uw=None, caps_uw=None):
    """caps_uw: (power1_cap, power1_cap_default, power1_cap_max)"""
    d = dev_path + "/hwmon/hwmon%d" % n
    for name, uw in zip(("power1_cap", "power1_cap_default", "power1_cap_max"), caps_uw or ()):
        r.file(d + "/" + name, "%d\n" % uw)
    r.file(d + "/name", "amdgpu\n")
    for i, (label, milli) in enumerate(temps, 1):
        r.file(d + "/temp%d_label" % i, label + "\n")
        r.file(d + "/temp%d_input" % i, "%d\n" % milli)
        r.file(d + "/temp%d_crit" % i, "%d\n" % crit[i - 1])
    if power_uw is not None:
        r.file(d + "/power1_average", "%d\n" % power_uw)


# the error names of the PCI core's aer_dev_* files (drivers/pci/pcie/aer.c),
# in the order of the real RX 6900 XT capture
AER_COR = ["RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout", "NonFatalErr", "CorrIntErr",
           "HeaderOF"]
AER_UNCOR = ["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt", "UnxCmplt", "RxOF",
             "MalfTLP", "ECRC", "UnsupReq", "ACSViol", "UncorrIntErr", "BlockedTLP",
             "AtomicOpBlocked", "TLPBlockedErr", "PoisonTLPBlocked"]


def aer_files(r, dev_path, cor=None, nonfatal=None, fatal=None):
    """aer_dev_correctable/nonfatal/fatal as the PCI core writes them"""
    for fn, names, counts, total in (("aer_dev_correctable", AER_COR, cor or {}, "TOTAL_ERR_COR"),
                                     ("aer_dev_nonfatal", AER_UNCOR, nonfatal or {},
                                      "TOTAL_ERR_NONFATAL"),
                                     ("aer_dev_fatal", AER_UNCOR, fatal or {}, "TOTAL_ERR_FATAL")):
        body = "".join("%s %d\n" % (n, counts.get(n, 0)) for n in names)
        r.file(dev_path + "/" + fn, body + "%s %d\n" % (total, sum(counts.values())))


def aspm_link(r, dev_path, l0s, l1):
    """<device>/link/ of a kernel >= 5.5 (the files of the real captures)"""
    r.file(dev_path + "/link/l0s_aspm", "%d\n" % l0s)
    r.file(dev_path + "/link/l1_aspm", "%d\n" % l1)


def tuning(r, numa_balancing=None, thp=None, governor=None, aspm_policy=None):
    """host settings read by probe_tuning and probe_pcie_health"""
    if numa_balancing is not None:
        r.file("/proc/sys/kernel/numa_balancing", "%d\n" % numa_balancing)
    if thp is not None:
        r.file("/sys/kernel/mm/transparent_hugepage/enabled",
               " ".join("[%s]" % m if m == thp else m for m in ("always", "madvise", "never"))
               + "\n")
    if governor is not None:
        gov, driver, ncpu = governor
        for c in range(ncpu):
            d = "/sys/devices/system/cpu/cpu%d/cpufreq" % c
            r.file(d + "/scaling_governor", gov + "\n")
            r.file(d + "/scaling_driver", driver + "\n")
    if aspm_policy is not None:
        r.file("/sys/module/pcie_aspm/parameters/policy",
               " ".join("[%s]" % m if m == aspm_policy else m
                        for m in ("default", "performance", "powersave", "powersupersave"))
               + "\n")


def wheel(r, site, version, tag):
    """torch-<version>.dist-info/WHEEL as pip installs it"""
    r.file("%s/torch-%s.dist-info/WHEEL" % (site, version),
           "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.43.0)\nRoot-Is-Purelib: false\n"
           "Tag: %s\n\n" % tag)


# ---- host pieces ----------------------------------------------------------------

OS_RELEASE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "os-release")


def os_release_text(os_pretty):
    """the real os-release of the machine's distribution (tests/data/os-release/README
    names each file's source); an Ubuntu point release other than the file's gets
    only its PRETTY_NAME and VERSION rewritten"""
    import re
    m = re.match(r"Ubuntu (\d+\.\d+)(\.\d+)? LTS$", os_pretty)
    if m:
        base = {"22.04": "ubuntu-22.04.5", "24.04": "ubuntu-24.04.1"}[m.group(1)]
        text = open(os.path.join(OS_RELEASE_DIR, base)).read()
        have = base.split("-")[1]
        want = m.group(1) + (m.group(2) or "")
        return text.replace('"Ubuntu %s LTS"' % have, '"Ubuntu %s LTS"' % want).replace(
            'VERSION="%s LTS' % have, 'VERSION="%s LTS' % want)
    name = {"Debian GNU/Linux 12 (bookworm)": "debian-12",
            "Rocky Linux 9.4 (Blue Onyx)": "rocky-9.4"}[os_pretty]
    return open(os.path.join(OS_RELEASE_DIR, name)).read()


def host(r, hostname, os_pretty, release, cmdline, passwd, group, svm=None, dpkg=None, drm="m"):
    r.file("/proc/sys/kernel/hostname", hostname + "\n")
    r.file("/proc/sys/kernel/osrelease", release + "\n")
    r.file("/proc/sys/kernel/dmesg_restrict", "0\n")
    r.file("/etc/os-release", os_release_text(os_pretty))
    r.file("/proc/cmdline", cmdline + "\n")
    r.file("/proc/1/cgroup", "0::/init.scope\n")
    r.file("/etc/passwd", passwd)
    r.file("/etc/group", group)
    if svm is not None:
        line = "CONFIG_HSA_AMD_SVM=%s\n" % svm if svm != "n" else "# CONFIG_HSA_AMD_SVM is not set\n"
        drm_line = ("CONFIG_DRM_AMDGPU=%s\n" % drm if drm != "n"
                    else "# CONFIG_DRM_AMDGPU is not set\n")
        r.file("/boot/config-" + release,
               drm_line + "CONFIG_HSA_AMD=y\n" + line + "CONFIG_HMM_MIRROR=y\n")
    if dpkg is not None:
        r.file("/var/lib/dpkg/status", dpkg)


def amdgpu_module(r, version=None, params=None):
    r.file("/sys/module/amdgpu/initstate", "live\n")
    if version:
        r.file("/sys/module/amdgpu/version", version + "\n")
    defaults = {"vm_update_mode": "-1", "noretry": "-1", "vm_fragment_size": "-1", "mcbp": "-1",
                "sched_policy": "0", "cwsr_enable": "1", "gpu_recovery": "-1", "runpm": "-1",
                "aspm": "-1", "dpm": "-1", "msi": "-1"}
    defaults.update(params or {})
    for k, v in defaults.items():
        r.file("/sys/module/amdgpu/parameters/" + k, v + "\n")


def snapshot(r, **q):
    for k, v in q.items():
        r.file("/.snapshot/" + k.replace("_", "-"), v)


def rocm_install(r, version, link=True):
    d = "/opt/rocm-" + version
    r.file(d + "/.info/version", version + "-95\n")
    if link:
        r.link("/opt/rocm", "rocm-" + version)


def torch(r, site, version, hip=None, cuda=None):
    d = site + "/torch"
    q = lambda v: "None" if v is None else "'%s'" % v
    r.file(d + "/__init__.py", "")
    r.file(d + "/version.py",
           "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
           "__version__ = '%s'\ndebug = False\ncuda: Optional[str] = %s\n"
           "git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\nhip: Optional[str] = %s\n"
           % (version, q(cuda), q(hip)))
    return d


def python_query(executable, version, prefix, torch_dir, dists, base_prefix=None):
    out = "executable=%s\nversion=%s\nprefix=%s\n" % (executable, version, prefix)
    if base_prefix is not None:
        out += "base_prefix=%s\n" % base_prefix
    out += "torch_dir=%s\n" % (torch_dir or "")
    for d in sorted(dists):
        out += "dist=%s\n" % d
    return out


def readme(r, machine, text):
    lines = [text.strip(), "", "Real captures used (copied unchanged):"]
    if r.real:
        seen = {}
        for dst, src in r.real:
            top = src.split("/")[0] + "/" + src.split("/")[1]
            seen.setdefault(top, os.path.dirname(dst))
        for src, dst in sorted(seen.items()):
            lines.append("- ../shared/fixtures-real/%s -> %s" % (src, dst))
    else:
        lines.append("- none: no capture of this hardware exists; every file is synthesized")
    lines.append("(the captures' NUL padding to 4 KiB is dropped from text files: sysfs has")
    lines.append("none; the binary gpu_metrics is copied unaltered, padding included)")
    lines += ["", "Everything else in root/ is synthesized by tools/mk-fixtures.py with the",
              "formats of the kernel's sysfs/procfs and the tool's /.snapshot queries,",
              "except /etc/os-release: its distribution's real file",
              "(tests/data/os-release/README names the source)."]
    with open(os.path.join(os.path.dirname(r.path), "README"), "w") as f:
        f.write("# fixture machine: %s\n\n" % machine + "\n".join(lines) + "\n")


# ---- machines -------------------------------------------------------------------

GROUP_BASE = ("root:x:0:\nadm:x:4:\nsudo:x:27:%s\nvideo:x:44:%s\nrender:x:109:%s\n"
              "%s:x:1000:\n")


def machine_mi300x(out):
    r = Root(out + "/root")
    host(r, "mi300x-node07", "Ubuntu 22.04.4 LTS", "5.15.0-116-generic",
         "BOOT_IMAGE=/vmlinuz-5.15.0-116-generic root=/dev/nvme0n1p2 ro iommu=pt amd_iommu=on",
         "root:x:0:0:root:/root:/bin/bash\nops:x:1000:1000::/home/ops:/bin/bash\n",
         GROUP_BASE % ("ops", "ops", "ops", "ops"), svm="y")
    amdgpu_module(r, version="6.8.5", params={"bad_page_threshold": "-1"})
    # bare metal (probe_virt.c): the CPU flags without "hypervisor" (an
    # EPYC 9654's /proc/cpuinfo flags line, abridged) and the board's DMI names
    r.file("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9654 "
           "96-Core Processor\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sse sse2 ht "
           "syscall nx lm constant_tsc svm avx512f avx512_bf16 la57\n\n")
    r.file("/sys/class/dmi/id/sys_vendor", "Supermicro\n")
    r.file("/sys/class/dmi/id/product_name", "AS -8125GS-TNMR2\n")
    rocm_install(r, "6.2.0")
    r.file("/sys/class/iommu/ivhd0/uevent", "")
    kfd_cpu_node(r, 0)
    kfd_cpu_node(r, 1)
    buses = ["05", "15", "65", "75", "85", "95", "e5", "f5"]
    gib = 1 << 30
    xgmi_paths = []
    for i, bus in enumerate(buses):
        bdf = "0000:%s:00.0" % bus
        rp = "0000:%02x:01.1" % (int(bus, 16) - 1)
        path = pci_chain(r, "0000:%02x" % (int(bus, 16) - 1), [
            dict(bdf=rp, vendor=0x1022, device=0x14ab, cls=0x060400, port=PORT_ROOT,
                 cur=32.0, width=16, max=32.0, max_width=16,
                 devcap2=ATOMIC_C32 | ATOMIC_C64 | ATOMIC_C128 | ATOMIC_ROUTE),
            dict(bdf=bdf, vendor=0x1002, device=0x74a1, cls=0x120000, port=PORT_ENDPOINT,
                 cur=32.0, width=16, max=32.0, max_width=16, devcap2=ATOMIC_C32 | ATOMIC_C64,
                 devctl2=ATOMIC_REQ_EN),
        ])
        # MI300X is a processing accelerator: class 0x1200 - the doctor must
        # also find GPUs that are not display-class
        r.file(path + "/iommu_group/type", "identity\n")
        xgmi_paths.append(path)
        aer_files(r, os.path.dirname(path))
        aer_files(r, path)
        aspm_link(r, path, 0, 0)
        drm_card(r, path, "card%d" % (i + 1), 128 + i, {
            "pcie_replay_count": "0\n",
            "mem_info_vram_total": "%d\n" % (192 * gib),
            "mem_info_vis_vram_total": "%d\n" % (192 * gib),
            "mem_info_vram_used": "%d\n" % (280 << 20),
            "power_dpm_force_performance_level": "auto\n",
            "gpu_busy_percent": "0\n",
            "pp_dpm_pcie": "0: 32.0GT/s, x16 619Mhz *\n",
            # MI300X: 2100 MHz peak engine clock, HBM3 reported at 1300 MHz
            "pp_dpm_sclk": "0: 500Mhz\n1: 1800Mhz\n2: 2100Mhz *\n",
            "pp_dpm_mclk": "0: 900Mhz\n1: 1100Mhz\n2: 1200Mhz\n3: 1300Mhz *\n",
            "vbios_version": "113-M3000100-102\n",
            "ras/umc_err_count": "ue: 0\nce: 0\n",
            "ras/gfx_err_count": "ue: 0\nce: 0\n",
            "ras/gpu_vram_bad_pages": "",   # no retired page
            # amdgpu_gfx.c / amdgpu_gmc.c: one partition, the modes an
            # 8-XCD MI300X offers
            "current_compute_partition": "SPX\n",
            "available_compute_partition": "SPX, DPX, QPX, CPX\n",
            "current_memory_partition": "NPS1\n",
            "available_memory_partition": "NPS1, NPS4\n",
        })
        hwmon(r, path, i + 2, [("edge", 38000), ("junction", 41000), ("mem", 36000)],
              [100000, 110000, 95000], power_uw=147000000,
              caps_uw=(750000000, 750000000, 750000000))  # MI300X: 750 W board power
        r.file(path + "/numa_node", "%d\n" % (i // 4))  # GPUs 0-3 on socket 0, 4-7 on 1
        kfd_gpu_node(r, 2 + i, props_text(90402, 1216, 0x74a1, location_id(bdf), 128 + i,
                                          simd_per_cu=4, capability=0x0a3a2280),
                     192 * gib, 41000 + i, width=8192, mem_clk=1300)
    mi300x_xgmi(r, [2 + i for i in range(8)], [i // 4 for i in range(8)], xgmi_paths)
    r.file("/dev/kfd", "")
    # two sockets of 64 cores with SMT (the KFD CPU nodes' cpu_cores_count)
    for n, cpus in enumerate(MI300X_NODE_CPUS):
        r.file("/sys/devices/system/node/node%d/cpulist" % n, cpus + "\n")
    r.file("/sys/devices/system/node/online", "0-1\n")
    tuning(r, numa_balancing=0, thp="madvise", aspm_policy="default")
    site = "/home/ops/venv/lib/python3.10/site-packages"
    td = torch(r, site, "2.5.1+rocm6.2", hip="6.2.41133-dd7f95766")
    wheel(r, site, "2.5.1+rocm6.2", "cp310-cp310-linux_x86_64")
    snapshot(r,
             environ="PATH=/home/ops/venv/bin:/usr/bin:/bin\nVIRTUAL_ENV=/home/ops/venv\n"
                     "LD_LIBRARY_PATH=/opt/rocm/lib\n"
                     "HIP_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\n",
             identity="user ops\nuid 1000\ngid 1000\ngroups 1000 27 44 109\n",
             kfd_open="ok\n",
             devnodes="/dev/kfd 020660 0 109\n" + "".join(
                 "/dev/dri/renderD%d 020660 0 109\n" % (128 + i) for i in range(8)),
             dmesg="[    0.000000] Linux version 5.15.0-116-generic\n"
                   "[    4.912345] amdgpu 0000:05:00.0: amdgpu: HMM registered 196608MB device memory\n"
                   "[    5.001234] kfd kfd: amdgpu: added device 1002:74a1\n",
             limits="memlock_soft unlimited\nmemlock_hard unlimited\n",
             cpu_affinity="0-255\n",
             python=python_query("/home/ops/venv/bin/python3", "3.10.12", "/home/ops/venv", td,
                                 ["torch 2.5.1+rocm6.2", "pytorch-triton-rocm 3.1.0",
                                  "numpy 1.26.4", "safetensors 0.4.5"], base_prefix="/usr"))
    readme(r, "mi300x-node", """
A healthy 8x AMD Instinct MI300X node (gfx942, 192 GiB each, PCIe Gen5 x16 to
CPU root ports that complete and route AtomicOps, IOMMU in passthrough
(iommu=pt), large BAR, RAS and AER counters at zero, ASPM off on the GPU
links), ROCm 6.2.0 with the matching amdgpu-dkms 6.8.5, a ROCm 6.2 PyTorch
wheel (cp310) in a venv of Python 3.10, the user in render and video, NUMA
balancing off, memlock unlimited, transparent hugepages 'madvise', two NUMA
nodes (GPUs 0-3 on node 0, 4-7 on node 1) and a process that may run on every
CPU of both; the board power cap at the MI300X's 750 W default. Expected:
every quick check passes (gpu.firmware skips: no capture of an MI300X's
fw_version/ exists, and none is invented). XGMI: one hive of the 8 GPUs,
KFD io_links and amdgpu's xgmi files written from the kernel's definitions
(mi300x_xgmi), not captured.""")


# KFD io_links and amdgpu's XGMI sysfs of an 8-GPU MI300X hive, written from
# the kernel's definitions (not captured: no capture of an MI300X's topology
# is public): kfd_topology.c iolink_show's keys, kfd_crat.h type 2 PCIe /
# 11 XGMI and flags bit 0 enabled, weight 20 for PCIe and 15 per XGMI hop
# (kfd_parse_subtype_iolink), max_bandwidth = links x 16 lanes x 25 Gbps / 8
# (amdgpu_amdkfd_get_xgmi_bandwidth_mbytes), amdgpu_xgmi.c's files.
MI300X_HIVE_ID = 0x5a1c07e3b9d2f841


def iolink_text(type_, frm, to, weight, min_bw, max_bw):
    return ("type %d\nversion_major 0\nversion_minor 0\nnode_from %d\nnode_to %d\n"
            "weight %d\nmin_latency 0\nmax_latency 0\nmin_bandwidth %d\nmax_bandwidth %d\n"
            "recommended_transfer_size 0\nrecommended_sdma_engine_id_mask 0\nflags 1\n"
            % (type_, frm, to, weight, min_bw, max_bw))


def mi300x_xgmi(r, gpu_nodes, cpu_of, dev_paths):
    """gpu_nodes: KFD node of each GPU; cpu_of: its CPU node; dev_paths: PCI dirs"""
    nodes = "/sys/class/kfd/kfd/topology/nodes"
    for i, n in enumerate(gpu_nodes):
        links = [iolink_text(2, n, cpu_of[i], 20, 0, 0)]
        links += [iolink_text(11, n, m, 15, 50000, 50000) for m in gpu_nodes if m != n]
        for k, text in enumerate(links):
            r.file("%s/%d/io_links/%d/properties" % (nodes, n, k), text)
        props = open(r.p("%s/%d/properties" % (nodes, n))).read()
        r.file("%s/%d/properties" % (nodes, n),
               props.replace("io_links_count 1\n", "io_links_count %d\n" % len(links)))
        d = dev_paths[i]
        r.file(d + "/xgmi_device_id", "%d\n" % (MI300X_HIVE_ID + 1 + i))
        r.file(d + "/xgmi_physical_id", "%d\n" % i)
        if i == 0:
            r.file(d + "/xgmi_hive_info/xgmi_hive_id", "%d\n" % MI300X_HIVE_ID)
        else:
            r.link(d + "/xgmi_hive_info", relto(d, dev_paths[0] + "/xgmi_hive_info"))


def mi300x_to_cpx_nps4(root):
    """the mi300x-node tree at `root` switched to CPX/NPS4 as amd-smi's
    partition settings leave it: every GPU 8 compute partitions on 4 memory
    partitions, each partition a KFD node with location_id | partition in
    the function bits (kfd_topology.c, GC 9.4.3), 152 SIMDs (38 CUs of an
    XCD) and 24 GiB (192 GiB / 8: KFD divides a memory partition among the
    compute partitions on it). Partition 0 keeps node 2+i and its io_links;
    partitions 1-7 of GPU i are nodes 10+7i..16+7i, without io_links."""
    nodes = root + "/sys/class/kfd/kfd/topology/nodes"
    part_vram = 24 << 30
    for i in range(8):
        node = "%s/%d" % (nodes, 2 + i)
        props = open(node + "/properties").read()
        lines = dict(l.split(" ", 1) for l in props.splitlines())
        dev = os.path.dirname(os.path.dirname(os.path.realpath(root + "/sys/class/drm/card%d" % (i + 1))))
        with open(dev + "/current_compute_partition", "w") as f:
            f.write("CPX\n")
        with open(dev + "/current_memory_partition", "w") as f:
            f.write("NPS4\n")
        for p in range(8):
            n = node if p == 0 else "%s/%d" % (nodes, 10 + 7 * i + p - 1)
            os.makedirs(n + "/mem_banks/0", exist_ok=True)
            text = props.replace("simd_count %s\n" % lines["simd_count"], "simd_count 152\n")
            text = text.replace("location_id %s\n" % lines["location_id"],
                                "location_id %d\n" % (int(lines["location_id"]) | p))
            if p:
                text = text.replace("io_links_count %s\n" % lines["io_links_count"],
                                    "io_links_count 0\n")
            with open(n + "/properties", "w") as f:
                f.write(text)
            if p:
                with open(n + "/gpu_id", "w") as f:
                    f.write("%d\n" % (51000 + 10 * i + p))
            bank = open(node + "/mem_banks/0/properties").read()
            size = [l for l in bank.splitlines() if l.startswith("size_in_bytes ")][0]
            with open(n + "/mem_banks/0/properties", "w") as f:
                f.write(bank.replace(size, "size_in_bytes %d" % part_vram))


def machine_mi300x_cpx(out):
    """mi300x-node with every GPU in CPX/NPS4"""
    machine_mi300x(out)
    mi300x_to_cpx_nps4(out + "/root")
    with open(out + "/root/proc/sys/kernel/hostname", "w") as f:
        f.write("mi300x-node09\n")


def mi300x_to_vf_guest(root):
    """the mi300x-node tree at `root` as a KVM/QEMU guest given the eight
    GPUs as SR-IOV virtual functions: the CPU's hypervisor flag, QEMU's DMI
    names, each GPU's device id 74b5 (Instinct MI300X VF) in sysfs, its
    config header and its KFD node, QEMU's pcie-root-port (1b36:000c, the
    AtomicOp bits of the host's port kept) above it, no hwmon and no
    gpu_busy_percent (the host's driver keeps them), no XGMI hive files"""
    import glob
    cpu = open(root + "/proc/cpuinfo").read()
    with open(root + "/proc/cpuinfo", "w") as f:
        f.write(cpu.replace("flags\t\t: fpu ", "flags\t\t: hypervisor fpu ", 1))
    with open(root + "/sys/class/dmi/id/sys_vendor", "w") as f:
        f.write("QEMU\n")
    with open(root + "/sys/class/dmi/id/product_name", "w") as f:
        f.write("Standard PC (Q35 + ICH9, 2009)\n")
    for i in range(8):
        dev = os.path.dirname(os.path.dirname(os.path.realpath(root + "/sys/class/drm/card%d" % (i + 1))))
        port = os.path.dirname(dev)
        for d, vendor, device in ((dev, 0x1002, 0x74b5), (port, 0x1b36, 0x000c)):
            with open(d + "/vendor", "w") as f:
                f.write("0x%04x\n" % vendor)
            with open(d + "/device", "w") as f:
                f.write("0x%04x\n" % device)
            cfg = bytearray(open(d + "/config", "rb").read())
            struct.pack_into("<HH", cfg, 0, vendor, device)
            with open(d + "/config", "wb") as f:
                f.write(bytes(cfg))
        shutil.rmtree(dev + "/hwmon")
        for name in ["gpu_busy_percent", "xgmi_device_id", "xgmi_physical_id", "xgmi_hive_info"]:
            p = dev + "/" + name
            if os.path.islink(p) or os.path.isfile(p):
                os.remove(p)
            elif os.path.isdir(p):
                shutil.rmtree(p)
        props = root + "/sys/class/kfd/kfd/topology/nodes/%d/properties" % (2 + i)
        text = open(props).read().replace("device_id %d\n" % 0x74a1, "device_id %d\n" % 0x74b5)
        with open(props, "w") as f:
            f.write(text)
    for links in glob.glob(root + "/sys/class/kfd/kfd/topology/nodes/*/io_links/*/properties"):
        if "type 11\n" in open(links).read():
            shutil.rmtree(os.path.dirname(links))


def machine_mi300x_vf_guest(out):
    """mi300x-node as a guest on eight MI300X VFs"""
    machine_mi300x(out)
    mi300x_to_vf_guest(out + "/root")
    with open(out + "/root/proc/sys/kernel/hostname", "w") as f:
        f.write("mi300x-vm01\n")


MI300X_NODE_CPUS = ["0-63,128-191", "64-127,192-255"]


def machine_mi300x_pinned(out):
    """mi300x-node with the job's CPU set cut to socket 0, as a Slurm or
    container cgroup does when it asks for half the cores"""
    machine_mi300x(out)
    root = out + "/root"
    with open(root + "/.snapshot/cpu-affinity", "w") as f:
        f.write(MI300X_NODE_CPUS[0] + "\n")
    with open(root + "/proc/sys/kernel/hostname", "w") as f:
        f.write("mi300x-node08\n")
    with open(out + "/README", "w") as f:
        f.write("""# fixture machine: mi300x-numa-pinned

The mi300x-node machine (see its README; same files, built by the same
function of tools/mk-fixtures.py: GPUs 0-3 on NUMA node 0, 4-7 on node 1)
with the process's CPU set (the cpu-affinity query, sched_getaffinity on a
live host) cut to node 0's CPUs, %s, as a batch job that asked for half the
cores gets it. gpu.numa_affinity warns for GPUs 4-7, whose node's CPUs the
process may not run on, and passes for 0-3; the worst GPU is reported.
Every file is synthesized: no capture of an MI300X exists (the XGMI hive
and io_links too: see mi300x-node's README; gpu.xgmi passes).
""" % MI300X_NODE_CPUS[0])


def machine_rx7900xtx(out):
    r = Root(out + "/root")
    host(r, "robo-desk", "Ubuntu 24.04.1 LTS", "6.8.0-45-generic",
         "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic root=UUID=1b2c ro quiet splash",
         "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n",
         GROUP_BASE % ("alice", "", "", "alice"), svm="y")
    amdgpu_module(r)  # in-kernel driver of Ubuntu 24.04
    rocm_install(r, "6.2.0")
    kfd_cpu_node(r, 0)
    # the real KFD node's location_id 34304 is bus 0x86
    gpu = "0000:86:00.0"
    # slot link: root port -> on-card switch upstream port trained at x8;
    # the root port neither completes nor routes AtomicOps (chipset slot)
    path = pci_chain(r, "0000:80", [
        dict(bdf="0000:80:01.1", vendor=0x1022, device=0x1483, cls=0x060400, port=PORT_ROOT,
             cur=16.0, width=8, max=16.0, max_width=16, devcap2=0),
        dict(bdf="0000:84:00.0", vendor=0x1002, device=0x1478, cls=0x060400, port=PORT_UP,
             cur=16.0, width=8, max=16.0, max_width=16, devcap2=ATOMIC_ROUTE),
        dict(bdf="0000:85:00.0", vendor=0x1002, device=0x1479, cls=0x060400, port=PORT_DOWN,
             cur=16.0, width=16, max=16.0, max_width=16, devcap2=ATOMIC_ROUTE),
        dict(bdf=gpu, vendor=0x1002, device=0x744c, cls=0x030000, port=PORT_ENDPOINT,
             cur=16.0, width=16, max=16.0, max_width=16,
             devcap2=ATOMIC_C32 | ATOMIC_C64, devctl2=0),
    ])
    # the GPU function's sysfs from the real RX 7900 XT capture (same Navi31
    # board layout); link files of the capture replace the synthesized ones
    r.copy_capture(REAL + "/amdgpu-sysfs-rs/rx7900xt", path, skip=("uevent",))
    drm_card(r, path, "card1", 128, {
        "mem_info_vram_total": "%d\n" % 25753026560,
        "mem_info_vis_vram_total": "%d\n" % 25753026560,
        "mem_info_vram_used": "%d\n" % (612 << 20),
        "power_dpm_force_performance_level": "auto\n",
        "max_link_speed": "16.0 GT/s PCIe\n",
        "max_link_width": "16\n",
    })
    props = open(REAL + "/kfd-topology/gfx1100-rx7900xtx/properties").read()
    r.file("/sys/class/kfd/kfd/topology/nodes/1/properties", props)
    r.real.append(("/sys/class/kfd/kfd/topology/nodes/1/properties",
                   "kfd-topology/gfx1100-rx7900xtx/properties"))
    r.file("/sys/class/kfd/kfd/topology/nodes/1/gpu_id", "52138\n")
    r.file("/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties",
           "heap_type 1\nsize_in_bytes 25753026560\nflags 0\nwidth 384\nmem_clk_max 1249\n")
    r.file("/dev/kfd", "")
    site = "/home/alice/.local/lib/python3.12/site-packages"
    td = torch(r, site, "2.5.1+cu124", cuda="12.4")
    snapshot(r,
             environ="PATH=/usr/local/cuda-12.4/bin:/usr/bin:/bin\n"
                     "LD_LIBRARY_PATH=/usr/local/cuda-12.4/lib64:/opt/rocm/lib\n",
             identity="user alice\nuid 1000\ngid 1000\ngroups 1000 27\n",
             kfd_open="EACCES\n",
             devnodes="/dev/kfd 020660 0 109\n/dev/dri/renderD128 020660 0 109\n",
             dmesg="[    0.000000] Linux version 6.8.0-45-generic\n"
                   "[    3.211000] amdgpu 0000:03:00.0: amdgpu: PCIE atomic ops is not supported\n"
                   "[    3.402000] amdgpu 0000:03:00.0: amdgpu: HMM registered 24560MB device memory\n",
             python=python_query("/usr/bin/python3", "3.12.3", "/usr", td,
                                 ["torch 2.5.1+cu124", "triton 3.1.0",
                                  "nvidia-cublas-cu12 12.4.5.8", "nvidia-cudnn-cu12 9.1.0.70",
                                  "nvidia-nccl-cu12 2.21.5", "numpy 2.1.2"]))
    r.file("/home/alice/.ignored", "")
    readme(r, "rx7900xtx-desktop", """
An RX 7900 XTX desktop (gfx1100, Navi31 behind its on-card PCIe switch) on
Ubuntu 24.04 with the in-kernel amdgpu and ROCm 6.2: the slot link (root port
to the switch's upstream port) trained at x8, the root port does not complete
or route AtomicOps (the kernel log says 'PCIE atomic ops is not supported'; KFD
accepted the GPU, its node's MEC firmware 2140 being past GFX11's 509, but
HIP's hostcall still needs atomics on gfx1100, so pcie.atomics fails as
ROCm/ROCm issue 2429's PyTorch did), the user alice is not in render (so /dev/kfd gives EACCES), a
CUDA torch wheel with nvidia-* packages, CUDA first on LD_LIBRARY_PATH, and a
requirements file with +cu124 pins (args). The GPU function directory is the
real RX 7900 XT capture; the KFD node is the real RX 7900 XTX node (note its
local_mem_size 0).""")
    with open(out + "/requirements.txt", "w") as f:
        f.write("--extra-index-url https://download.pytorch.org/whl/cu124\n"
                "torch==2.5.1+cu124\ntorchvision==0.20.1+cu124\nnumpy<2\n"
                "flash-attn==2.6.3\nsafetensors>=0.4\n")
    with open(out + "/args", "w") as f:
        f.write("--requirements\n@FIX@/requirements.txt\n")


def machine_rx7800xt(out):
    r = Root(out + "/root")
    host(r, "team-ws", "Ubuntu 22.04.5 LTS", "6.8.0-49-generic",
         "BOOT_IMAGE=/vmlinuz-6.8.0-49-generic root=UUID=9f00 ro amdgpu.vm_update_mode=3",
         "root:x:0:0:root:/root:/bin/bash\nbob:x:1000:1000::/home/bob:/bin/bash\n",
         GROUP_BASE % ("bob", "bob", "bob", "bob"), svm="y")
    amdgpu_module(r, version="6.7.0", params={"vm_update_mode": "3"})
    rocm_install(r, "6.1.0")
    rocm_install(r, "5.7.1", link=False)
    kfd_cpu_node(r, 0)
    gpu = "0000:2f:00.0"
    path = pci_chain(r, "0000:00", [
        dict(bdf="0000:00:03.1", vendor=0x1022, device=0x1483, cls=0x060400, port=PORT_ROOT,
             cur=16.0, width=16, max=16.0, max_width=16,
             devcap2=ATOMIC_C32 | ATOMIC_C64 | ATOMIC_ROUTE),
        dict(bdf="0000:2d:00.0", vendor=0x1002, device=0x1478, cls=0x060400, port=PORT_UP,
             cur=16.0, width=16, max=16.0, max_width=16, devcap2=ATOMIC_ROUTE),
        dict(bdf="0000:2e:00.0", vendor=0x1002, device=0x1479, cls=0x060400, port=PORT_DOWN,
             cur=16.0, width=16, max=16.0, max_width=16, devcap2=ATOMIC_ROUTE),
        dict(bdf=gpu, vendor=0x1002, device=0x747e, cls=0x030000, port=PORT_ENDPOINT,
             cur=16.0, width=16, max=16.0, max_width=16,
             devcap2=ATOMIC_C32 | ATOMIC_C64, devctl2=ATOMIC_REQ_EN),
    ])
    r.copy_capture(REAL + "/amdgpu-sysfs-rs/rx7800xt", path, skip=("uevent",))
    drm_card(r, path, "card0", 128, {
        "mem_info_vram_total": "%d\n" % 17163091968,
        "mem_info_vis_vram_total": "%d\n" % 268435456,   # no Resizable BAR
        "mem_info_vram_used": "%d\n" % (390 << 20),
        "power_dpm_force_performance_level": "manual\n",
        "max_link_speed": "16.0 GT/s PCIe\n",
        "max_link_width": "16\n",
    })
    # RX 7800 XT: 256-bit GDDR6, pp_dpm_mclk top 1218 MHz (amdgpu-sysfs-rs/rx7800xt)
    kfd_gpu_node(r, 1, props_text(110001, 120, 0x747e, location_id(gpu), 128,
                                  capability=0x28000280), 17163091968, 40117,
                 width=256, mem_clk=1218)
    r.file("/dev/kfd", "")
    site = "/home/bob/miniconda3/envs/vla/lib/python3.11/site-packages"
    td = torch(r, site, "2.4.1+rocm6.0", hip="6.0.32830-d62f6a171")
    wheel(r, site, "2.4.1+rocm6.0", "cp311-cp311-linux_x86_64")
    r.file("/home/bob/miniconda3/envs/vla/conda-meta/history", "==> 2024-10-02 <==\n")
    snapshot(r,
             environ="PATH=/home/bob/miniconda3/envs/vla/bin:/usr/bin:/bin\n"
                     "CONDA_PREFIX=/home/bob/miniconda3/envs/vla\n"
                     "CONDA_DEFAULT_ENV=vla\n"
                     "HSA_OVERRIDE_GFX_VERSION=11.0.0\n"
                     "LD_LIBRARY_PATH=/opt/rocm-5.7.1/lib\n",
             # bob was added to render and video, but this session predates it
             identity="user bob\nuid 1000\ngid 1000\ngroups 1000 27\n",
             kfd_open="EACCES\n",
             devnodes="/dev/kfd 020660 0 109\n/dev/dri/renderD128 020660 0 109\n",
             python=python_query("/home/bob/miniconda3/envs/vla/bin/python", "3.11.10",
                                 "/home/bob/miniconda3/envs/vla", td,
                                 ["torch 2.4.1+rocm6.0", "pytorch-triton-rocm 3.0.0",
                                  "numpy 1.26.4"], base_prefix="/home/bob/miniconda3/envs/vla"))
    # the kernel log is not readable for bob (kernel.dmesg_restrict=1)
    r.file("/proc/sys/kernel/dmesg_restrict", "1\n")
    r.file("/.snapshot/read-errors", "1 /.snapshot/dmesg\n")
    readme(r, "rx7800xt-override", """
An RX 7800 XT (gfx1101, Navi32) workstation with HSA_OVERRIDE_GFX_VERSION=11.0.0
(the usual workaround: the runtime treats it as gfx1100) on ROCm 6.1, whose
support list lacks gfx1101; a second ROCm 5.7.1 beside it and on
LD_LIBRARY_PATH; small BAR (256 MiB visible); performance level 'manual';
amdgpu.vm_update_mode=3 from a forum post; a ROCm 6.0 torch in conda; bob was
added to render/video but has not logged in again, so /dev/kfd gives EACCES;
the kernel log is not readable (dmesg_restrict=1). The GPU function directory
is the real RX 7800 XT capture.""")


def machine_rx7800xt_power_capped(out):
    """rx7800xt-override's machine with the board's power cap lowered to
    its minimum: the real capture's hwmon layout and limits, one value
    changed"""
    machine_rx7800xt(out)
    root = out + "/root"
    for dirpath, dirnames, filenames in os.walk(root):
        if "power1_cap_min" in filenames and os.path.basename(os.path.dirname(dirpath)) == "hwmon":
            lo = open(os.path.join(dirpath, "power1_cap_min")).read()
            with open(os.path.join(dirpath, "power1_cap"), "w") as f:
                f.write(lo)
    with open(root + "/proc/sys/kernel/hostname", "w") as f:
        f.write("team-ws-capped\n")
    with open(out + "/README", "w") as f:
        f.write("""# fixture machine: rx7800xt-power-capped

The rx7800xt-override machine (see its README; same files, built by the same
function of tools/mk-fixtures.py) after someone lowered the board's power cap
to its minimum to quiet the fans: hwmon power1_cap is set to the real RX 7800
XT capture's power1_cap_min, 190 W, below its power1_cap_default of 212 W
(power1_cap_max 243 W; the capture's own cap, 222 W, was above the default).
gpu.power_cap warns. Source of every other hwmon file: the real capture
../shared/fixtures-real/amdgpu-sysfs-rs/rx7800xt, unchanged.
""")


def machine_wsl2(out):
    r = Root(out + "/root")
    host(r, "LAPTOP-7F3K", "Ubuntu 22.04.3 LTS", "5.15.153.1-microsoft-standard-WSL2",
         "initrd=\\initrd.img WSL_ROOT_INIT=1 panic=-1 nr_cpus=16 swiotlb=force",
         "root:x:0:0:root:/root:/bin/bash\ncarol:x:1000:1000::/home/carol:/bin/bash\n",
         GROUP_BASE % ("carol", "carol", "carol", "carol"))
    r.file("/dev/dxg", "")
    r.file("/sys/bus/pci/devices/.keep", "")  # WSL2 shows no PCI devices
    r.file("/sys/class/kfd/.keep", "")
    snapshot(r,
             environ="PATH=/usr/bin:/bin:/mnt/c/Windows/system32\n",
             identity="user carol\nuid 1000\ngid 1000\ngroups 1000 27 44 109\n",
             kfd_open="ENOENT\n",
             devnodes="",
             dmesg="[    0.000000] Linux version 5.15.153.1-microsoft-standard-WSL2\n"
                   "[    0.410000] hv_vmbus: registering driver hv_pci\n",
             python=python_query("/usr/bin/python3", "3.10.12", "/usr", None,
                                 ["numpy 1.21.5"]))
    os.remove(r.p("/sys/bus/pci/devices/.keep"))
    os.remove(r.p("/sys/class/kfd/.keep"))
    # an empty directory (git keeps none without a file in it)
    r.file("/sys/bus/pci/devices/.keep", "")
    readme(r, "wsl2", """
WSL2 on a Windows laptop: kernel 5.15.153.1-microsoft-standard-WSL2, /dev/dxg
but no /dev/kfd, no amdgpu module, no PCI devices visible, no ROCm, Python
without torch.""")


def machine_nogpu(out):
    r = Root(out + "/root")
    host(r, "build-07", "Debian GNU/Linux 12 (bookworm)", "6.1.0-26-amd64",
         "BOOT_IMAGE=/boot/vmlinuz-6.1.0-26-amd64 root=/dev/sda1 ro",
         "root:x:0:0:root:/root:/bin/bash\ndave:x:1000:1000::/home/dave:/bin/bash\n",
         GROUP_BASE % ("dave", "", "", "dave"), svm="y")
    # the BMC's VGA (ASPEED) is the only display device
    pci_chain(r, "0000:00", [
        dict(bdf="0000:00:1c.0", vendor=0x8086, device=0xa110, cls=0x060400, port=PORT_ROOT,
             cur=5.0, width=1, max=8.0, max_width=1, devcap2=0),
        dict(bdf="0000:02:00.0", vendor=0x1a03, device=0x2000, cls=0x030000, port=PORT_ENDPOINT,
             cur=5.0, width=1, max=5.0, max_width=1),
    ])
    r.file("/sys/class/iommu/dmar0/uevent", "")
    snapshot(r,
             environ="PATH=/usr/bin:/bin\n",
             identity="user dave\nuid 1000\ngid 1000\ngroups 1000 27\n",
             kfd_open="ENOENT\n",
             devnodes="",
             dmesg="[    0.000000] Linux version 6.1.0-26-amd64\n",
             python=python_query("/usr/bin/python3", "3.11.2", "/usr", None,
                                 ["numpy 1.24.2", "pyyaml 6.0"]))
    with open(out + "/requirements.txt", "w") as f:
        f.write("# ROCm-clean\n--index-url https://download.pytorch.org/whl/rocm6.2\n"
                "torch==2.5.1\nnumpy>=1.24\nsafetensors\n")
    with open(out + "/args", "w") as f:
        f.write("--requirements\n@FIX@/requirements.txt\n")
    readme(r, "no-gpu-server", """
A Debian 12 build server with no GPU but the BMC's ASPEED VGA, no amdgpu, no
ROCm, Python without torch, Intel IOMMU (DMAR) on, and a ROCm-clean
requirements file (args).""")


def machine_mi250x(out):
    r = Root(out + "/root")
    host(r, "hpc-gpu12", "Rocky Linux 9.4 (Blue Onyx)", "6.6.30-custom",
         "BOOT_IMAGE=/vmlinuz-6.6.30-custom root=/dev/md0 ro intel_iommu=on",
         "root:x:0:0:root:/root:/bin/bash\neve:x:1000:1000::/home/eve:/bin/bash\n",
         GROUP_BASE % ("eve", "eve", "eve", "eve"), svm="n")
    amdgpu_module(r, version="6.3.6", params={"bad_page_threshold": "-1"})  # amdgpu-dkms of ROCm 6.0
    rocm_install(r, "6.2.0")
    r.file("/sys/class/iommu/dmar0/uevent", "")
    r.file("/sys/class/iommu/dmar1/uevent", "")
    kfd_cpu_node(r, 0)
    gib = 1 << 30
    for i, (bus, rp) in enumerate([("c1", "0000:c0:01.1"), ("c6", "0000:c0:03.1")]):
        bdf = "0000:%s:00.0" % bus
        path = pci_chain(r, "0000:c0", [
            dict(bdf=rp, vendor=0x8086, device=0x347a, cls=0x060400, port=PORT_ROOT,
                 cur=16.0, width=16, max=16.0, max_width=16,
                 devcap2=ATOMIC_C32 | ATOMIC_C64 | ATOMIC_ROUTE),
            dict(bdf=bdf, vendor=0x1002, device=0x740c, cls=0x038000, port=PORT_ENDPOINT,
                 cur=16.0, width=16, max=16.0, max_width=16, devcap2=ATOMIC_C32 | ATOMIC_C64,
                 devctl2=ATOMIC_REQ_EN),
        ])
        r.file(path + "/iommu_group/type", "DMA-FQ\n")
        # GCD 0's link: a fatal data-link error at the root port, corrected
        # bad TLPs and replays at the GPU (a marginal riser)
        aer_files(r, os.path.dirname(path), fatal={"DLP": 1} if i == 0 else None)
        aer_files(r, path, cor={"BadTLP": 3, "Timeout": 1} if i == 0 else None)
        drm_card(r, path, "card%d" % i, 128 + i, {
            "pcie_replay_count": "12\n" if i == 0 else "0\n",
            "mem_info_vram_total": "%d\n" % (64 * gib),
            "mem_info_vis_vram_total": "%d\n" % (64 * gib),
            "power_dpm_force_performance_level": "auto\n",
            "gpu_busy_percent": "100\n" if i == 0 else "0\n",
            "pp_dpm_pcie": "0: 16.0GT/s, x16 619Mhz *\n",
            "ras/umc_err_count": "ue: 2\nce: 17\n" if i == 0 else "ue: 0\nce: 0\n",
            "ras/gfx_err_count": "ue: 0\nce: 0\n",
            "ras/sdma_err_count": "ue: 0\nce: 0\n",
            # amdgpu_ras_sysfs_badpages_read: two pages retired after the
            # uncorrectable errors, one still pending (a reboot reserves it)
            "ras/gpu_vram_bad_pages": ("0x00a3c2e1 : 0x00001000 : R\n0x00a3c2e2 : 0x00001000 : R\n"
                                       "0x01f0047b : 0x00001000 : P\n") if i == 0 else "",
        })
        hwmon(r, path, i + 2, [("edge", 71000), ("junction", 107000 if i == 0 else 62000),
                               ("mem", 80000)], [100000, 110000, 95000])
        kfd_gpu_node(r, 1 + i, props_text(90010, 416, 0x740c, location_id(bdf), 128 + i,
                                          simd_per_cu=4, capability=0x0a3a2280, engine_clk=1700),
                     64 * gib, 51000 + i, width=4096, mem_clk=1600)
    # what keeps GCD 0 busy: the python3 of the kernel log's page fault, seen
    # by KFD (ROCm compute, 48 GiB) and by DRM fdinfo (its render node, the
    # same client behind two fds: counted once); gpu.idle names it
    r.file("/proc/41211/comm", "python3\n")
    fdinfo = ("pos:\t0\nflags:\t02100002\nmnt_id:\t26\ndrm-driver:\tamdgpu\n"
              "drm-client-id:\t12\ndrm-pdev:\t0000:c1:00.0\npasid:\t32770\n"
              "drm-memory-vram:\t65536 KiB\ndrm-engine-gfx:\t0 ns\n"
              "drm-engine-compute:\t8812113201000 ns\n")
    r.file("/proc/41211/fdinfo/7", fdinfo)
    r.file("/proc/41211/fdinfo/9", fdinfo)
    r.file("/sys/class/kfd/kfd/proc/41211/vram_51000", "%d\n" % (48 * gib))
    r.file("/dev/kfd", "")
    tuning(r, numa_balancing=1, thp="always")
    site = "/home/eve/venv/lib/python3.9/site-packages"
    td = torch(r, site, "2.5.1+rocm6.2", hip="6.2.41133-dd7f95766")
    wheel(r, site, "2.5.1+rocm6.2", "cp39-cp39-linux_x86_64")
    snapshot(r,
             environ="PATH=/home/eve/venv/bin:/usr/bin:/bin\nLD_LIBRARY_PATH=/opt/rocm/lib\n",
             identity="user eve\nuid 1000\ngid 1000\ngroups 1000 27 44 109\n",
             kfd_open="ok\n",
             devnodes="/dev/kfd 020660 0 109\n/dev/dri/renderD128 020660 0 109\n"
                      "/dev/dri/renderD129 020660 0 109\n",
             dmesg="[    0.000000] Linux version 6.6.30-custom\n"
                   "[ 8812.113201] amdgpu 0000:c1:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)\n"
                   "[ 8812.113240] amdgpu 0000:c1:00.0: amdgpu:  in process python3 pid 41211 thread python3 pid 41211\n"
                   "[ 8812.200011] Memory access fault by GPU node-1 (Agent handle: 0x55d1c0a3e270) on address 0x7f2a1c000000. Reason: Page not present or supervisor privilege.\n",
             limits="memlock_soft 65536\nmemlock_hard 65536\n",
             python=python_query("/home/eve/venv/bin/python3", "3.9.18", "/home/eve/venv", td,
                                 ["torch 2.5.1+rocm6.2", "pytorch-triton-rocm 3.1.0"],
                                 base_prefix="/usr"))
    readme(r, "mi250x-degraded", """
A degraded 2-GCD MI250X node (gfx90a, 64 GiB each): uncorrectable ECC errors
on GCD 0, GCD 0 busy at 100 % and 3 C below its junction limit, a translating
IOMMU (DMA-FQ, intel_iommu=on without iommu=pt) for both GPUs, a custom kernel
built without CONFIG_HSA_AMD_SVM, GPU page faults in the kernel log (by
python3 pid 41211), amdgpu-dkms 6.3.6 (ROCm 6.0) under ROCm 6.2 user space; a
fatal AER error (DLP) at GCD 0's root port, corrected errors and 12 replays at
the GPU; automatic NUMA balancing on and memlock capped at 64 KiB.""")


def machine_rx580(out):
    r = Root(out + "/root")
    dpkg = ("Package: libamdhip64-5\nStatus: install ok installed\nVersion: 5.2.3-8\n\n"
            "Package: python3-torch\nStatus: install ok installed\nVersion: 1.13.1+dfsg-4\n\n")
    host(r, "mining-rig", "Debian GNU/Linux 12 (bookworm)", "6.1.0-26-amd64",
         "BOOT_IMAGE=/boot/vmlinuz-6.1.0-26-amd64 root=/dev/sda1 ro",
         "root:x:0:0:root:/root:/bin/bash\nfrank:x:1000:1000::/home/frank:/bin/bash\n",
         GROUP_BASE % ("frank", "frank", "frank", "frank"), svm="y", dpkg=dpkg)
    amdgpu_module(r)
    kfd_cpu_node(r, 0)
    gpu = "0000:09:00.0"   # PCI_SLOT_NAME of the capture
    path = pci_chain(r, "0000:00", [
        dict(bdf="0000:00:03.1", vendor=0x1022, device=0x1453, cls=0x060400, port=PORT_ROOT,
             cur=8.0, width=16, max=8.0, max_width=16,
             devcap2=ATOMIC_C32 | ATOMIC_C64 | ATOMIC_ROUTE),
        dict(bdf=gpu, vendor=0x1002, device=0x67df, cls=0x030000, port=PORT_ENDPOINT,
             cur=8.0, width=16, max=8.0, max_width=16, devcap2=ATOMIC_C32 | ATOMIC_C64,
             devctl2=ATOMIC_REQ_EN),
    ])
    r.copy_capture(REAL + "/amdgpu-sysfs-rs/rx580", path)
    drm_card(r, path, "card0", 128, {})
    # RX 580 (Polaris 20): 36 CUs of 4 SIMDs (GFX8 reports simd_per_cu 4;
    # 2 is GFX10+), 256-bit GDDR5; mem_clk_max is the captured pp_dpm_mclk's
    # top level, 1750 MHz
    kfd_gpu_node(r, 1, props_text(80003, 144, 0x67df, location_id(gpu), 128,
                                  capability=0x00002280, simd_per_cu=4), 4294967296, 31001,
                 width=256, mem_clk=1750)
    r.file("/dev/kfd", "")
    td = torch(r, "/usr/lib/python3/dist-packages", "1.13.1")
    snapshot(r,
             environ="PATH=/usr/bin:/bin\n",
             identity="user frank\nuid 1000\ngid 1000\ngroups 1000 44 109\n",
             kfd_open="ok\n",
             devnodes="/dev/kfd 020660 0 109\n/dev/dri/renderD128 020660 0 109\n",
             dmesg="[    0.000000] Linux version 6.1.0-26-amd64\n"
                   "[    2.771000] [drm] amdgpu kernel modesetting enabled.\n",
             python=python_query("/usr/bin/python3", "3.11.2", "/usr", td,
                                 ["torch 1.13.1", "numpy 1.24.2"]))
    readme(r, "rx580-legacy", """
An RX 580 (Polaris, gfx803, 4 GiB) from a former mining rig on Debian 12 with
Debian's ROCm 5.2 packages and Debian's CPU-only python3-torch. Every file of
the GPU function directory is the real RX 580 capture (4 GiB VRAM, 256 MiB
BAR, PCIe 3.0 x16, 11 % busy at capture time); the KFD node is synthesized.""")


# the RX 6900 XT desktop of the machines whose amdgpu is not loaded: the GPU
# is on the PCI bus with only the PCI core's files (those of the real RX 6900
# XT capture), no KFD topology, no DRM files, no /dev/kfd
SB_GUID = "8be4df61-93ca-11d2-aa0d-00e098032b8c"


def rx6900xt_chain(r, devctl2=0):
    """the RX 6900 XT desktop's PCI path: a CPU root port, the on-card switch
    and the GPU at the capture's PCI_SLOT_NAME; returns (bdf, sysfs path)"""
    gpu = "0000:0c:00.0"
    return gpu, pci_chain(r, "0000:00", [
        dict(bdf="0000:00:01.1", vendor=0x1022, device=0x1483, cls=0x060400, port=PORT_ROOT,
             cur=16.0, width=16, max=16.0, max_width=16,
             devcap2=ATOMIC_C32 | ATOMIC_C64 | ATOMIC_ROUTE),
        dict(bdf="0000:0a:00.0", vendor=0x1002, device=0x1478, cls=0x060400, port=PORT_UP,
             cur=16.0, width=16, max=16.0, max_width=16, devcap2=ATOMIC_ROUTE),
        dict(bdf="0000:0b:00.0", vendor=0x1002, device=0x1479, cls=0x060400, port=PORT_DOWN,
             cur=16.0, width=16, max=16.0, max_width=16, devcap2=ATOMIC_ROUTE),
        dict(bdf=gpu, vendor=0x1002, device=0x73bf, cls=0x030000, port=PORT_ENDPOINT,
             cur=16.0, width=16, max=16.0, max_width=16, devcap2=ATOMIC_C32 | ATOMIC_C64,
             devctl2=devctl2),
    ])


def rx6900xt_no_driver(r, hostname, release, cmdline, dmesg, svm="y", drm="m", dmesg_readable=True):
    host(r, hostname, "Ubuntu 22.04.5 LTS", release, cmdline,
         "root:x:0:0:root:/root:/bin/bash\ngrace:x:1000:1000::/home/grace:/bin/bash\n",
         GROUP_BASE % ("grace", "grace", "grace", "grace"), svm=svm, drm=drm)
    rocm_install(r, "6.2.0")
    gpu, path = rx6900xt_chain(r)
    # without the driver only the PCI core's files exist: take those of the
    # real RX 6900 XT capture, none of amdgpu's
    src = REAL + "/amdgpu-sysfs-rs/rx6900xt"
    for fn in ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width",
               "class", "vendor", "subsystem_vendor", "subsystem_device", "revision"):
        if os.path.exists(os.path.join(src, fn)):
            data = open(os.path.join(src, fn), "rb").read().rstrip(b"\0")
            r.file(path + "/" + fn, data)
            r.real.append((path + "/" + fn, "amdgpu-sysfs-rs/rx6900xt/" + fn))
    site = "/home/grace/.local/lib/python3.10/site-packages"
    td = torch(r, site, "2.5.1+rocm6.2", hip="6.2.41133-dd7f95766")
    snapshot(r,
             environ="PATH=/usr/bin:/bin\n",
             identity="user grace\nuid 1000\ngid 1000\ngroups 1000 27 44 109\n",
             kfd_open="ENOENT\n",
             devnodes="",
             python=python_query("/usr/bin/python3", "3.10.12", "/usr", td,
                                 ["torch 2.5.1+rocm6.2", "pytorch-triton-rocm 3.1.0"]))
    if dmesg_readable:
        snapshot(r, dmesg=dmesg)
    else:
        # collect recorded the refusal: kernel.dmesg_restrict=1, not root
        r.file("/proc/sys/kernel/dmesg_restrict", "1\n")
        r.file("/.snapshot/read-errors", "1 /.snapshot/dmesg\n")
    return path


def efi_secure_boot(r, on):
    r.file("/sys/firmware/efi/efivars/SecureBoot-" + SB_GUID, b"\x06\x00\x00\x00" + bytes([on]))


def dkms_amdgpu(r, version, built_for, make_log=None):
    d = "/var/lib/dkms/amdgpu/" + version
    r.file(d + "/source/dkms.conf", "PACKAGE_NAME=amdgpu\nPACKAGE_VERSION=%s\n" % version)
    for k in built_for:
        r.file(d + "/%s/x86_64/module/amdgpu.ko.zst" % k, "")
        r.link("/var/lib/dkms/amdgpu/kernel-%s-x86_64" % k, "%s/%s/x86_64" % (version, k))
    if make_log:
        r.file(d + "/build/make.log", make_log)


def kernel_modules(r, release, amdgpu=None):
    """/lib/modules/<release> with a few modules; amdgpu: where its .ko lies"""
    d = "/lib/modules/" + release
    r.file(d + "/modules.builtin", "kernel/drivers/video/fbdev/core/fb.ko\n")
    r.file(d + "/kernel/drivers/gpu/drm/drm.ko.zst", "")
    if amdgpu:
        r.file(d + "/" + amdgpu, "")


DMESG_HEAD = "[    0.000000] Linux version %s\n"


def machine_secureboot(out):
    r = Root(out + "/root")
    rel = "6.8.0-49-generic"
    rx6900xt_no_driver(r, "lab-pc3", rel,
                       "BOOT_IMAGE=/vmlinuz-%s root=UUID=77aa ro quiet splash" % rel,
                       DMESG_HEAD % rel +
                       "[    0.000000] secureboot: Secure boot enabled\n"
                       "[    3.101200] Loading of unsigned module is rejected\n"
                       "[    3.101300] amdgpu: module verification failed: signature and/or required key missing - tainting kernel\n"
                       "[    3.101400] modprobe: Key was rejected by service\n")
    efi_secure_boot(r, 1)
    dkms_amdgpu(r, "6.8.5", [rel])
    kernel_modules(r, rel, "updates/dkms/amdgpu.ko.zst")
    readme(r, "rx6900xt-secureboot", """
An RX 6900 XT (gfx1030) desktop with Secure Boot on: amdgpu-dkms 6.8.5 was
built for the running kernel but its module was rejected ('Key was rejected by
service'), so amdgpu is not loaded, there is no KFD topology, no DRM files and
no /dev/kfd. The GPU is still on the PCI bus (its PCI core files come from the
real RX 6900 XT capture). ROCm 6.2 and a ROCm 6.2 torch are installed.""")


def machine_secureboot_nolog(out):
    r = Root(out + "/root")
    rel = "6.8.0-49-generic"
    rx6900xt_no_driver(r, "lab-pc4", rel,
                       "BOOT_IMAGE=/vmlinuz-%s root=UUID=77ab ro quiet splash" % rel, None,
                       dmesg_readable=False)
    efi_secure_boot(r, 1)
    dkms_amdgpu(r, "6.8.5", [rel])
    kernel_modules(r, rel, "updates/dkms/amdgpu.ko.zst")
    readme(r, "rx6900xt-secureboot-nolog", """
The RX 6900 XT desktop of rx6900xt-secureboot, recorded by a user who may not
read the kernel log (kernel.dmesg_restrict=1): the EFI SecureBoot variable says
Secure Boot is on and amdgpu-dkms 6.8.5 is built for the running kernel, yet
amdgpu is not loaded. driver.loaded names the likely reason (an unsigned
module) and how to confirm it, not 'install amdgpu-dkms'.""")


def machine_nomodeset(out):
    r = Root(out + "/root")
    rel = "6.8.0-49-generic"
    rx6900xt_no_driver(r, "lab-pc5", rel,
                       "BOOT_IMAGE=/vmlinuz-%s root=UUID=77ac ro quiet splash nomodeset" % rel,
                       DMESG_HEAD % rel +
                       "[    0.000000] Command line: BOOT_IMAGE=/vmlinuz-%s root=UUID=77ac ro quiet splash nomodeset\n"
                       "[    0.210000] You have booted with nomodeset. This means your GPU drivers are DISABLED\n"
                       % rel)
    kernel_modules(r, rel, "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.zst")
    efi_secure_boot(r, 0)
    readme(r, "rx6900xt-nomodeset", """
The RX 6900 XT desktop booted with 'nomodeset' left on the kernel command line
from an installer workaround: the in-kernel amdgpu (present as
kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.zst) refuses to initialise, so
there is no KFD topology, no DRM files and no /dev/kfd. driver.loaded names
the command-line word and how to remove it.""")


def machine_blacklist(out):
    r = Root(out + "/root")
    rel = "6.8.0-49-generic"
    rx6900xt_no_driver(r, "lab-pc6", rel,
                       "BOOT_IMAGE=/vmlinuz-%s root=UUID=77ad ro quiet splash" % rel,
                       DMESG_HEAD % rel)
    kernel_modules(r, rel, "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.zst")
    # a leftover from a passthrough setup, with a comment and a continued line
    r.file("/etc/modprobe.d/vfio-gpu.conf",
           "# keep the host off the GPU (VM passthrough)\n"
           "options vfio-pci ids=1002:73bf,1002:ab28\n"
           "blacklist \\\n  amdgpu\n")
    # harmless files of the distribution: an options line and a masked file
    r.file("/usr/lib/modprobe.d/50-amdgpu-options.conf", "options amdgpu si_support=1\n")
    r.file("/lib/modprobe.d/aliases.conf", "alias char-major-10-175 agpgart\n")
    readme(r, "rx6900xt-blacklist", """
The RX 6900 XT desktop after a VM passthrough experiment: /etc/modprobe.d/
vfio-gpu.conf still blacklists amdgpu (on a continued line after a comment),
so udev never loads it; the in-kernel module is present. /usr/lib/modprobe.d
has a harmless 'options amdgpu' line that must not be named. driver.loaded
names the file and line.""")


def machine_dkms_stale(out):
    r = Root(out + "/root")
    rel, old = "6.8.0-51-generic", "6.8.0-49-generic"
    rx6900xt_no_driver(r, "lab-pc7", rel,
                       "BOOT_IMAGE=/vmlinuz-%s root=UUID=77ae ro quiet splash" % rel,
                       DMESG_HEAD % rel)
    dkms_amdgpu(r, "6.8.5", [old],
                make_log="DKMS make.log for amdgpu-6.8.5 for kernel %s (x86_64)\n"
                         "/var/lib/dkms/amdgpu/6.8.5/build/Makefile:12: *** kernel headers not "
                         "found in /lib/modules/%s/build.  Stop.\n" % (rel, rel))
    # Ubuntu's amdgpu lives in linux-modules-extra, not installed for the new kernel
    kernel_modules(r, rel)
    kernel_modules(r, old, "updates/dkms/amdgpu.ko.zst")
    efi_secure_boot(r, 0)
    readme(r, "rx6900xt-dkms-stale", """
The RX 6900 XT desktop after a kernel update to 6.8.0-51: amdgpu-dkms 6.8.5 is
built for 6.8.0-49 only (the build for the new kernel failed without its
headers, see build/make.log), and Ubuntu's own amdgpu for 6.8.0-51 would be in
linux-modules-extra, which is not installed. driver.loaded says which kernels
the DKMS module exists for and how to build it for the running one.""")


def machine_no_amdgpu_kernel(out):
    r = Root(out + "/root")
    rel = "6.10.3-tiny"
    rx6900xt_no_driver(r, "lab-pc8", rel, "BOOT_IMAGE=/vmlinuz-%s root=/dev/nvme0n1p2 ro" % rel,
                       DMESG_HEAD % rel, drm="n")
    kernel_modules(r, rel)
    efi_secure_boot(r, 0)
    readme(r, "rx6900xt-no-amdgpu-kernel", """
The RX 6900 XT desktop running a self-built kernel configured without
CONFIG_DRM_AMDGPU ('# CONFIG_DRM_AMDGPU is not set' in /boot/config-<release>,
no amdgpu.ko in /lib/modules) and no amdgpu-dkms. driver.loaded says the kernel
has no amdgpu, not 'install amdgpu-dkms'.""")


def machine_no_modules_extra(out):
    r = Root(out + "/root")
    rel = "6.8.0-49-generic"
    rx6900xt_no_driver(r, "lab-pc9", rel,
                       "BOOT_IMAGE=/vmlinuz-%s root=UUID=77af ro quiet splash" % rel,
                       DMESG_HEAD % rel)
    kernel_modules(r, rel)
    efi_secure_boot(r, 0)
    readme(r, "rx6900xt-no-modules-extra", """
The RX 6900 XT desktop on an Ubuntu kernel whose config has CONFIG_DRM_AMDGPU=m
but whose linux-modules-extra package (where Ubuntu ships amdgpu.ko) is not
installed: /lib/modules/<release> has no amdgpu.ko anywhere and there is no
amdgpu-dkms. driver.loaded names the missing package.""")


def machine_firmware(out):
    r = Root(out + "/root")
    rel = "6.1.0-26-amd64"
    host(r, "deb-ws", "Debian GNU/Linux 12 (bookworm)", rel,
         "BOOT_IMAGE=/boot/vmlinuz-%s root=/dev/nvme0n1p2 ro quiet" % rel,
         "root:x:0:0:root:/root:/bin/bash\nheidi:x:1000:1000::/home/heidi:/bin/bash\n",
         GROUP_BASE % ("heidi", "heidi", "heidi", "heidi"), svm="y")
    amdgpu_module(r)   # Debian's in-kernel driver: loaded, but it left the GPU
    rocm_install(r, "6.2.0")
    kernel_modules(r, rel, "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko")
    # linux-firmware-free is installed, firmware-amd-graphics (non-free) is not
    r.file("/lib/firmware/regulatory.db", "")
    r.file("/lib/firmware/rtl_nic/rtl8125b-2.fw", "")
    kfd_cpu_node(r, 0)   # KFD initialised with the CPU only
    gpu = "0000:03:00.0"   # PCI_SLOT_NAME of the capture
    path = pci_chain(r, "0000:00", [
        dict(bdf="0000:00:01.1", vendor=0x1022, device=0x1483, cls=0x060400, port=PORT_ROOT,
             cur=16.0, width=16, max=16.0, max_width=16,
             devcap2=ATOMIC_C32 | ATOMIC_C64 | ATOMIC_ROUTE),
        dict(bdf="0000:01:00.0", vendor=0x1002, device=0x1478, cls=0x060400, port=PORT_UP,
             cur=16.0, width=16, max=16.0, max_width=16, devcap2=ATOMIC_ROUTE),
        dict(bdf="0000:02:00.0", vendor=0x1002, device=0x1479, cls=0x060400, port=PORT_DOWN,
             cur=16.0, width=16, max=16.0, max_width=16, devcap2=ATOMIC_ROUTE),
        dict(bdf=gpu, vendor=0x1002, device=0x744c, cls=0x030000, port=PORT_ENDPOINT,
             cur=16.0, width=16, max=16.0, max_width=16, devcap2=ATOMIC_C32 | ATOMIC_C64),
    ])
    # the probe failed, so only the PCI core's files of the real RX 7900 XT
    # capture exist, and no driver link
    src = REAL + "/amdgpu-sysfs-rs/rx7900xt"
    for fn in ("current_link_speed", "current_link_width", "class", "vendor", "device"):
        if os.path.exists(os.path.join(src, fn)):
            data = open(os.path.join(src, fn), "rb").read().rstrip(b"\0")
            r.file(path + "/" + fn, data)
            r.real.append((path + "/" + fn, "amdgpu-sysfs-rs/rx7900xt/" + fn))
    r.file("/dev/kfd", "")
    site = "/home/heidi/.local/lib/python3.11/site-packages"
    td = torch(r, site, "2.5.1+rocm6.2", hip="6.2.41133-dd7f95766")
    snapshot(r,
             environ="PATH=/usr/bin:/bin\n",
             identity="user heidi\nuid 1000\ngid 1000\ngroups 1000 27 44 109\n",
             kfd_open="ok\n",
             devnodes="/dev/kfd 020660 0 109\n",
             dmesg=DMESG_HEAD % rel +
                   "[    2.901000] [drm] amdgpu kernel modesetting enabled.\n"
                   "[    2.902100] amdgpu 0000:03:00.0: firmware: failed to load amdgpu/psp_13_0_0_sos.bin (-2)\n"
                   "[    2.902200] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/psp_13_0_0_sos.bin failed with error -2\n"
                   "[    2.902300] amdgpu 0000:03:00.0: amdgpu: early_init of IP block <psp> failed -19\n"
                   "[    2.902400] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init\n"
                   "[    2.902500] amdgpu: probe of 0000:03:00.0 failed with error -19\n",
             python=python_query("/usr/bin/python3", "3.11.2", "/usr", td,
                                 ["torch 2.5.1+rocm6.2", "pytorch-triton-rocm 3.1.0"]))
    readme(r, "rx7900xt-firmware", """
An RX 7900 XT (gfx1100) on Debian 12 without the non-free firmware-amd-graphics
package: the in-kernel amdgpu is loaded (and /dev/kfd exists, with the CPU as
its only node), but its probe of the GPU failed because
amdgpu/psp_13_0_0_sos.bin is not in /lib/firmware, so the PCI function has no
driver link and only the PCI core's files (of the real RX 7900 XT capture).
driver.loaded names the missing firmware and the package.""")


def rx6900xt_driven(out, hostname, degraded):
    """the RX 6900 XT desktop with amdgpu driving the card: every file of the
    GPU function is the real capture (AER counters, ASPM link states, replay
    count, fw_version/, vbios_version); degraded rewrites some of them"""
    r = Root(out + "/root")
    rel = "6.8.0-49-generic"
    host(r, hostname, "Ubuntu 24.04.1 LTS", rel,
         "BOOT_IMAGE=/vmlinuz-%s root=UUID=77b0 ro quiet splash" % rel,
         "root:x:0:0:root:/root:/bin/bash\ngrace:x:1000:1000::/home/grace:/bin/bash\n",
         GROUP_BASE % ("grace", "grace", "grace", "grace"), svm="y",
         dpkg="Package: linux-firmware\nStatus: install ok installed\n"
              "Version: 20240318.git3b128b60-0ubuntu2.3\n\n")
    amdgpu_module(r)
    rocm_install(r, "6.2.0")
    kfd_cpu_node(r, 0)
    gpu, path = rx6900xt_chain(r, devctl2=ATOMIC_REQ_EN)
    # the capture's raw config space would replace the synthesized AtomicOp
    # bits of the chain; its PCI core files agree with the chain's
    r.copy_capture(REAL + "/amdgpu-sysfs-rs/rx6900xt", path, skip=("uevent", "config"))
    root_port = os.path.dirname(os.path.dirname(os.path.dirname(path)))
    aer_files(r, root_port)
    drm_card(r, path, "card0", 128, {})
    # KFD's fw_version is amdgpu's MEC firmware version, the one the
    # capture's fw_version/mec_fw_version shows (0x00000068)
    kfd_gpu_node(r, 1, props_text(100300, 160, 0x73bf, location_id(gpu), 128,
                                  capability=0x28000280, fw=0x68), 17163091968, 41234,
                 width=256, mem_clk=1000)  # RX 6900 XT: 256-bit GDDR6, pp_dpm_mclk top 1000 MHz
    r.file("/dev/kfd", "")
    site = "/home/grace/.local/lib/python3.12/site-packages"
    td = torch(r, site, "2.5.1+rocm6.2", hip="6.2.41133-dd7f95766")
    dmesg = (DMESG_HEAD % rel +
             "[    2.771000] [drm] amdgpu kernel modesetting enabled.\n"
             "[    3.402000] amdgpu 0000:0c:00.0: amdgpu: HMM registered 16368MB device memory\n")
    limits = "memlock_soft unlimited\nmemlock_hard unlimited\n"
    if not degraded:
        tuning(r, numa_balancing=1, thp="madvise", aspm_policy="default",
               governor=("schedutil", "amd-pstate", 16))
        wheel(r, site, "2.5.1+rocm6.2", "cp312-cp312-linux_x86_64")
        pyver = "3.12.3"
    else:
        tuning(r, numa_balancing=1, thp="never", aspm_policy="powersupersave",
               governor=("powersave", "acpi-cpufreq", 16))
        # the wheel pip installed for 3.11 before the distribution moved on
        wheel(r, site, "2.5.1+rocm6.2", "cp311-cp311-linux_x86_64")
        pyver = "3.12.3"
        limits = "memlock_soft 8388608\nmemlock_hard 8388608\n"
        # MEC firmware not loaded; a noisy link: replays and corrected errors
        r.file(path + "/fw_version/mec_fw_version", "0x00000000\n")
        r.file(path + "/fw_version/mec2_fw_version", "0x00000000\n")
        r.file(path + "/pcie_replay_count", "214\n")
        aer_files(r, path, cor={"BadTLP": 41, "BadDLLP": 7, "Rollover": 2})
        # the BAR stayed at 256 MiB: the bridge windows had no room
        r.file(path + "/mem_info_vis_vram_total", "268435456\n")
        dmesg += ("[    2.800000] [drm] Not enough PCI address space for a large BAR.\n"
                  "[ 1204.551920] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 "
                  "timeout, signaled seq=45012, emitted seq=45014\n"
                  "[ 1204.552001] amdgpu 0000:0c:00.0: amdgpu: GPU reset begin!\n"
                  "[ 1205.990100] amdgpu 0000:0c:00.0: amdgpu: VRAM is lost due to GPU reset!\n"
                  "[ 1206.100412] amdgpu 0000:0c:00.0: amdgpu: GPU reset(1) succeeded!\n"
                  "[ 3120.004410] amdgpu 0000:0c:00.0: amdgpu: [gfxhub] page fault (src_id:0 "
                  "ring:24 vmid:3 pasid:32771)\n"
                  "[ 3120.004430] amdgpu 0000:0c:00.0: amdgpu:  Process pt_main_thread pid 5120 "
                  "thread pt_main_thread pid 5133\n"
                  "[ 3121.200000] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, "
                  "signaled seq=991, emitted seq=993\n"
                  "[ 3121.200100] amdgpu 0000:0c:00.0: amdgpu: GPU reset begin!\n"
                  "[ 3123.400000] amdgpu 0000:0c:00.0: amdgpu: GPU reset(2) failed\n")
    # the degraded machine's shell still has the variables that the ring
    # timeouts' fix (kernel.gpu_resets) says to reproduce them with
    environ = ("PATH=/usr/bin:/bin\n" if not degraded else
               "AMD_SERIALIZE_KERNEL=3\nHIP_LAUNCH_BLOCKING=1\nPATH=/usr/bin:/bin\n")
    snapshot(r,
             environ=environ,
             identity="user grace\nuid 1000\ngid 1000\ngroups 1000 27 44 109\n",
             kfd_open="ok\n",
             devnodes="/dev/kfd 020660 0 109\n/dev/dri/renderD128 020660 0 109\n",
             dmesg=dmesg, limits=limits,
             python=python_query("/usr/bin/python3", pyver, "/usr", td,
                                 ["torch 2.5.1+rocm6.2", "pytorch-triton-rocm 3.1.0"],
                                 base_prefix="/usr"))
    return r


def machine_rx6900xt_desktop(out):
    r = rx6900xt_driven(out, "lab-pc10", False)
    readme(r, "rx6900xt-desktop", """
An RX 6900 XT (gfx1030, Navi 21 behind its on-card switch) on Ubuntu 24.04 with
the in-kernel amdgpu, ROCm 6.2 and a ROCm 6.2 PyTorch wheel (cp312) for the
system Python 3.12. Every file of the GPU function directory is the real RX
6900 XT capture: AER counters at zero, pcie_replay_count 0, the firmware
versions amdgpu loaded (fw_version/: MEC 0x00000068, RLC 0x0000005f, and
zeros for the IP blocks Navi 21 lacks: UVD, VCE, DMCU), VBIOS 113-D4121EXT-CO1,
and ASPM L0s and L1 enabled on the GPU's link (link/l0s_aspm, l1_aspm = 1), so
pcie.aspm warns with how to measure. linux-firmware is installed; NUMA
balancing is on (one NUMA node, a Radeon: not judged); memlock unlimited;
transparent hugepages 'madvise'; the schedutil governor of amd-pstate.""")


def machine_rx6900xt_degraded(out):
    r = rx6900xt_driven(out, "lab-pc11", True)
    readme(r, "rx6900xt-degraded", """
The rx6900xt-desktop machine (the real RX 6900 XT capture, see its README)
after a bad week: the fw_version files of MEC and MEC2 read 0x00000000
(compute firmware not loaded), the link logged 214 replays and 50 corrected AER
errors, amdgpu could not resize the BAR ('Not enough PCI address space for a
large BAR.', 256 MiB visible, no pci=realloc), the kernel log has two ring
timeouts, a reset that lost VRAM, a GPU page fault by pt_main_thread pid 5120
and a reset that failed; AMD_SERIALIZE_KERNEL=3 and HIP_LAUNCH_BLOCKING=1 left
set in the shell from reproducing the timeouts as kernel.gpu_resets' fix says
(env.debug_left warns); transparent hugepages 'never', the acpi-cpufreq
'powersave' governor, and a cp311 torch wheel under Python 3.12. memlock is 8
MiB, which host.memlock does not judge on one Radeon (no RDMA).""")


def machine_rx6700xt_rocm54(out):
    """an RX 6700 XT (gfx1031, on no ROCm release's Linux list) on ROCm 5.4,
    a release whose support row the data lacked until issue 22: the RX 6900
    XT desktop's machine with the KFD node, the PCI device id and ROCm
    changed (no capture of an RX 6700 XT exists)"""
    r = rx6900xt_driven(out, "lab-pc12", False)
    shutil.rmtree(r.p("/opt/rocm-6.2.0"))
    rocm_install(r, "5.4.3")
    bdf = "0000:0c:00.0"
    path = [d for d, _, f in os.walk(r.p("/sys/devices")) if os.path.basename(d) == bdf][0]
    r.file(os.path.relpath(path, r.path) + "/device", "0x73df\n")
    kfd_gpu_node(r, 1, props_text(100301, 80, 0x73df, location_id(bdf), 128,
                                  capability=0x28000280, fw=0x68), 12868124672, 41235,
                 width=192, mem_clk=1000)  # RX 6700 XT: 12 GiB, 192-bit GDDR6
    r.real = [(d, s) for d, s in r.real if not d.endswith("/device")]
    readme(r, "rx6700xt-rocm54", """
An RX 6700 XT (gfx1031, Navi 22) on Ubuntu 24.04 with ROCm 5.4.3: gfx1031 is
on no ROCm release's Linux support list, so gpu.gfx_supported fails with the
override known to work for the RDNA2 dies (HSA_OVERRIDE_GFX_VERSION=10.3.0),
where the support data used to have no 5.4 row and the check skipped. No
capture of an RX 6700 XT exists: this is the rx6900xt-desktop machine (see
its README) with three changes, all synthesized: the KFD node (gfx_target_version
100301, device_id 0x73df, 40 CUs, 12 GiB), the GPU's PCI device file (0x73df)
and ROCm 5.4.3 in place of 6.2 (the ROCm 6.2 PyTorch wheel stays, so
python.torch_rocm_match warns as it would on such a machine; gpu.derived_peak
warns: the peaks table has no gfx1031 row).""")


def machine_rx6900xt_docker(out):
    """the RX 6900 XT desktop's files seen from inside a Docker container
    run with the devices and groups but the default seccomp profile"""
    r = rx6900xt_driven(out, "3f2a9c1b7d04", False)
    r.file("/.dockerenv", "")
    # proc(5) status lines of a process under Docker's default profile:
    # a seccomp filter, Docker's default capability set (no CAP_SYS_NICE)
    r.file("/proc/self/status", "Name:\tpython3\nUmask:\t0022\nState:\tR (running)\n"
           "CapInh:\t0000000000000000\nCapPrm:\t00000000a80425fb\n"
           "CapEff:\t00000000a80425fb\nCapBnd:\t00000000a80425fb\n"
           "CapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t2\n"
           "Seccomp_filters:\t1\n")
    readme(r, "rx6900xt-docker-seccomp", """
The rx6900xt-desktop machine (see its README) seen from inside a Docker
container started with --device=/dev/kfd --device=/dev/dri and the render
group, but with Docker's default seccomp profile: /.dockerenv exists and
/proc/self/status says Seccomp 2 (a filter) with Docker's default capability
set (CapEff 00000000a80425fb, no CAP_SYS_NICE), so mbind, get_mempolicy and
set_mempolicy are refused and env.container_run warns, naming the docker run
line with the host's numeric render GID (109). The status lines are
synthesized in proc(5)'s format.""")


def machine_rx7800xt_hot_edge(out):
    """rx7800xt-override's machine under load with poor airflow: the real
    capture's hwmon limits (edge 100, junction 110, mem 108 C), new readings"""
    machine_rx7800xt(out)
    root = out + "/root"
    for dirpath, dirnames, filenames in os.walk(root):
        if "temp1_input" in filenames and os.path.basename(os.path.dirname(dirpath)) == "hwmon":
            for fn, milli in (("temp1_input", 96000), ("temp2_input", 104000),
                              ("temp3_input", 90000)):
                with open(os.path.join(dirpath, fn), "w") as f:
                    f.write("%d\n" % milli)
    with open(root + "/proc/sys/kernel/hostname", "w") as f:
        f.write("team-ws-hot\n")
    with open(out + "/README", "w") as f:
        f.write("""# fixture machine: rx7800xt-hot-edge

The rx7800xt-override machine (see its README; same files, built by the same
function of tools/mk-fixtures.py) read while a long run heats the case: edge
96 C, junction 104 C, mem 90 C, with the real RX 7800 XT capture's limits
(temp*_crit: edge 100 C, junction 110 C, mem 108 C). The hottest sensor,
junction, is 6 C below its limit, but edge is 4 C below its own: gpu.thermal
fails naming edge. (Comparing the hottest sensor with its limit only warns.)
""")


# ---- machines rebuilt from public reports (issue 32) ------------------------------
# Each is the rx6900xt-desktop machine (the real RX 6900 XT capture, a clean
# Ubuntu 24.04 host) with the few files changed that the report states; the
# README names the report, what is verbatim from it and what is made up.

OS_RELEASE = {
    "ubuntu2404": 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\n'
                  'ID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=noble\n',
    "ubuntu2204": 'PRETTY_NAME="Ubuntu 22.04.4 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\n'
                  'ID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=jammy\n',
    "fedora39": 'NAME="Fedora Linux"\nVERSION="39 (Container Image)"\nID=fedora\n'
                'VERSION_ID=39\nPRETTY_NAME="Fedora Linux 39 (Container Image)"\n',
    "mint21": 'NAME="Linux Mint"\nVERSION="21.2 (Victoria)"\nID=linuxmint\nID_LIKE="ubuntu debian"\n'
              'PRETTY_NAME="Linux Mint 21.2"\nVERSION_ID="21.2"\n',
    "popos2204": 'NAME="Pop!_OS"\nVERSION="22.04 LTS"\nID=pop\nID_LIKE="ubuntu debian"\n'
                 'PRETTY_NAME="Pop!_OS 22.04 LTS"\nVERSION_ID="22.04"\n',
    "arch": 'NAME="Arch Linux"\nPRETTY_NAME="Arch Linux"\nID=arch\nBUILD_ID=rolling\n',
}


def report_readme(r, machine, source, story, verbatim, made_up, fixed_by):
    readme(r, machine, "%s\n\nSource: %s\n\nVerbatim from the report: %s\n\nMade up: %s\n\n"
           "What fixed it (the start_with check and its fix): %s" %
           (story.strip(), source, verbatim.strip(), made_up.strip(), fixed_by.strip()))


def report_base(out, hostname, os_id="ubuntu2404"):
    r = rx6900xt_driven(out, hostname, False)
    r.file("/etc/os-release", OS_RELEASE[os_id])
    return r


def retorch(r, version, hip, pyver, tag, site, executable, prefix, base_prefix, dists):
    """replace the base machine's torch with another wheel in another environment"""
    old = "/home/grace/.local/lib/python3.12/site-packages"
    shutil.rmtree(r.p(old))
    td = torch(r, site, version, hip=hip)
    wheel(r, site, version, tag)
    r.file("/.snapshot/python", python_query(executable, pyver, prefix, td, dists,
                                             base_prefix=base_prefix))


def regpu(r, gfx_tv, simd, device, vram, width):
    """another Navi 2x die in the capture's place: the KFD node and the PCI device id"""
    bdf = "0000:0c:00.0"
    path = [d for d, _, f in os.walk(r.p("/sys/devices")) if os.path.basename(d) == bdf][0]
    r.file(os.path.relpath(path, r.path) + "/device", "0x%04x\n" % device)
    kfd_gpu_node(r, 1, props_text(gfx_tv, simd, device, location_id(bdf), 128,
                                  capability=0x28000280, fw=0x68), vram, 41236,
                 width=width, mem_clk=1000)
    r.real = [(d, s) for d, s in r.real if not d.endswith("/device")]


def rerocm(r, version):
    shutil.rmtree(r.p("/opt/rocm-6.2.0"))
    rocm_install(r, version)


def rootless_root(r, marker, group, gids, node_mode_owner):
    """root (uid 0) inside a rootless container: the runtime's marker file,
    the image's group file, and device nodes owned by ids the user namespace
    does not map (65534), which /dev/kfd's open refuses with EACCES"""
    r.file(marker, "")
    r.file("/etc/group", group)
    r.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n")
    snapshot(r, identity="user root\nuid 0\ngid 0\ngroups %s\n" % gids, kfd_open="EACCES\n",
             devnodes="/dev/kfd %s\n/dev/dri/renderD128 %s\n" % (node_mode_owner, node_mode_owner),
             environ="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\n")


def machine_report_ollama_rootless(out):
    r = report_base(out, "8c1d2e3f4a5b")
    rootless_root(r, "/.dockerenv",
                  "root:x:0:\nvideo:x:44:root\nrender:x:109:root\nnogroup:x:65534:\n",
                  "0 44 109", "020660 0 65534")
    report_readme(r, "report-ollama-rootless-docker", "https://github.com/ollama/ollama/issues/6685",
                  """
ollama in a rootless Docker container on a host with an RX 7900 XTX: inside,
root (uid 0) is refused /dev/kfd although the image put root in video and
render, because the device nodes belong to host groups the container's user
namespace does not map (gid 65534 inside).""",
                  """'docker exec -it ollama rocminfo' printing 'Unable to open /dev/kfd
read-write: Permission denied' and 'root is not member of "video" group'; the
reporter adding render, video and nogroup inside the container without effect;
the suspicion that the rootless container is the cause (comment of
rtaic-coder, 2024-09-10).""",
                  """the GPU and host files are the RX 6900 XT capture (gfx1030) standing in
for the reporter's RX 7900 XTX; the container's /etc/group, the numeric gid
65534 of the nodes, /.dockerenv and the identity are written from the report's
description, not captured.""",
                  """kfd.access (its rule for gid 65534 inside a container): read the nodes'
group ids on the host with stat, pass them with --group-add (rootless Podman:
--group-add keep-groups) and put the host user in render and video; no
usermod inside the image.""")


def machine_report_buildah_rootless(out):
    r = report_base(out, "04ff0f3d3aa3", "fedora39")
    rootless_root(r, "/run/.containerenv",
                  "root:x:0:\nvideo:x:39:\nrender:x:105:\nnobody:x:65534:\n",
                  "0 39 105", "020666 65534 65534")
    report_readme(r, "report-buildah-rootless-fedora", "https://github.com/ROCm/legacy-rocm-build/issues/1549",
                  """
A rootless buildah container (fedora:39) started with --group-add=105
--group-add=39 --device=/dev/kfd:rw --device=/dev/dri:rw: root inside cannot
even list /dev/kfd.""",
                  """the buildah options (--group-add=105 --group-add=39, --device=/dev/kfd:rw,
--device=/dev/dri:rw, --ipc=host, seccomp=unconfined), the fedora:39 image,
'[root@04ff0f3d3aa3 /]# ls /dev/kfd' answering 'Permission denied'
(comment of bioinfornatics, 2024-01-21).""",
                  """the host's GPU (the RX 6900 XT capture; the report does not name the
GPU), the group names of gids 105 and 39 inside the image, the nodes' owner
65534 (what a rootless user namespace shows for unmapped host ids) and the
open result EACCES (the report shows ls failing on the node).""",
                  """kfd.access (gid 65534 inside a container): the --group-add numbers
given are the host's, which the user namespace does not map; the host user
who starts the rootless container needs the groups (and crun's --group-add
keep-groups passes them in).""")


def machine_report_cuda_visible_minus1(out):
    r = report_base(out, "llm-box")
    snapshot(r, environ="CUDA_VISIBLE_DEVICES=-1\nPATH=/usr/local/bin:/usr/bin:/bin\n")
    report_readme(r, "report-cuda-visible-minus1", "https://github.com/ollama/ollama/issues/15752",
                  """
CUDA_VISIBLE_DEVICES=-1, set to keep an NVIDIA card out of ollama, also hides
the Radeon: HIP reads CUDA_VISIBLE_DEVICES like HIP_VISIBLE_DEVICES.""",
                  """the title 'CUDA_VISIBLE_DEVICES=-1 incorrectly suppresses ROCm GPU
detection' and the ROCm GPU isolation page it quotes ('has the same effect as
HIP_VISIBLE_DEVICES on the AMD platform', comment of galuszkak, 2026-04-25).""",
                  """the machine (the RX 6900 XT capture on Ubuntu 24.04 with ROCm 6.2; the
report's GPU model is not in the excerpt used) and the rest of the
environment.""",
                  """env.gpu_visibility: unset CUDA_VISIBLE_DEVICES (and the other selection
variables) in the shell or service that starts the model.""")


def machine_report_second_user(out):
    r = report_base(out, "ws-4090-amd", "ubuntu2204")
    r.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nA:x:1000:1000::/home/A:/bin/bash\n"
           "B:x:1001:1001::/home/B:/bin/bash\n")
    r.file("/etc/group", "root:x:0:\nadm:x:4:syslog,A\ncdrom:x:24:A\nsudo:x:27:A,B\n"
           "video:x:44:A\nrender:x:109:A\nA:x:1000:\nB:x:1001:\n")
    snapshot(r, identity="user B\nuid 1001\ngid 1001\ngroups 1001 27\n", kfd_open="EACCES\n")
    report_readme(r, "report-second-user-groups", "https://github.com/ROCm/legacy-rocm-build/issues/3072",
                  """
Two sudo-capable accounts on one Ubuntu 22.04 machine: torch.cuda.is_available()
is True for A and False for B; getent group shows only A in the device
groups.""",
                  """'A runs this successfully and returns True, but B doesn't', the getent
lines adm:x:4:syslog,A, cdrom:x:24:A and sudo:x:27:A,B (comment of Looong01,
2024-05-08).""",
                  """the video and render lines (the excerpt of getent used stops before
them; written with A only, as the symptom implies), the GPU (the RX 6900 XT
capture standing in for the reporter's RX 7900 XTX) and ROCm 6.2 in place of
6.1.""",
                  """user.groups: sudo usermod -aG render,video "$LOGNAME" for B, then log
out and in.""")


def machine_report_sudo_only(out):
    r = report_base(out, "lab-pc20")
    r.file("/etc/group", GROUP_BASE.replace("video:x:44:%s", "video:x:44:")
           .replace("render:x:109:%s", "render:x:109:") % ("grace", "grace"))
    snapshot(r, identity="user root\nuid 0\ngid 0\ngroups 0\n",
             environ="PATH=/usr/sbin:/usr/bin:/sbin:/bin\nSUDO_USER=grace\n")
    report_readme(r, "report-sudo-only", "https://github.com/ROCm/hip/issues/337",
                  """
HIP samples work only under sudo: the user is not in the group owning the
device nodes, and the doctor itself was run with sudo, so its own process
opens /dev/kfd as root.""",
                  """'both the square example and vector_copy example work with sudo' and the
maintainer's answer to add the account to the video group, which fixed it
(comments of yige-hu and whchung, 2018-01-22/23).""",
                  """the 2018 machine (Ubuntu 16.04, RX 580, kernel 4.4) is replaced by the RX
6900 XT capture on Ubuntu 24.04 with ROCm 6.2, where the device groups are
render and video; SUDO_USER and root's identity stand for running the doctor
with sudo.""",
                  """user.groups (its sudo rule): usermod -aG render,video grace, the person
sudo was run by, then grace logs in again.""")


def machine_report_docker_no_kfd(out):
    r = report_base(out, "101acc334128", "ubuntu2204")
    r.file("/.dockerenv", "")
    os.remove(r.p("/dev/kfd"))
    snapshot(r, identity="user root\nuid 0\ngid 0\ngroups 0\n", kfd_open="ENOENT\n",
             devnodes="/dev/dri/renderD128 020660 0 109\n",
             environ="PATH=/opt/rocm-5.2.0/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\n")
    rerocm(r, "5.2.0")
    report_readme(r, "report-docker-no-kfd", "https://github.com/ROCm/legacy-rocm-build/issues/1798",
                  """
AMD's rocm5.2 PyTorch image for Navi 21 on an Arch Linux host with an RX 6900
XT: inside the container /dev/kfd does not exist.""",
                  """the image rocm5.2_ubuntu20.04_py3.7_pytorch_1.11.0_navi21, the 6900xt,
'/opt/rocm-5.2.0/bin/rocminfo' printing 'Unable to open /dev/kfd read-write: No
such file or directory' as root@101acc334128 (description of EduMio,
2022-08-24).""",
                  """the container's files: the RX 6900 XT capture seen from inside, Ubuntu
22.04 in place of the image's 20.04 os-release, ROCm 5.2.0 as the image's
only install with the host's ROCm 6.2 PyTorch wheel kept, and the render node
passed while /dev/kfd was not (the report does not give its docker run
line).""",
                  """env.container: start the container with --device=/dev/kfd --device=/dev/dri
and the numeric render group.""")


def machine_report_torch_cpu(out):
    r = report_base(out, "rx6800-box", "ubuntu2204")
    rerocm(r, "5.4.3")
    site = "/home/grace/miniconda3/envs/sd/lib/python3.7/site-packages"
    retorch(r, "1.13.1+cpu", None, "3.7.16", "cp37-cp37m-linux_x86_64", site,
            "/home/grace/miniconda3/envs/sd/bin/python", "/home/grace/miniconda3/envs/sd",
            "/home/grace/miniconda3/envs/sd", ["torch 1.13.1+cpu"])
    report_readme(r, "report-torch-cpu-py37", "https://github.com/ROCm/legacy-rocm-build/issues/2354",
                  """
An RX 6800 with ROCm 5.4.3: torch.cuda.is_available() is False because pip
installed a CPU build of torch; the environment's Python 3.7 has no ROCm
wheel on the nightly rocm5.4.3 index.""",
                  """'torch.cuda.is_available() return false with ROCm5.4.3 and RX6800', 'I use
torch-cpu rather than torch-gpu', 'Maybe that is because I use python 3.7'
(comment of HGGshiwo, 2023-07-31).""",
                  """the torch version 1.13.1+cpu and the conda path (the report names neither),
the GPU files (the RX 6900 XT capture: the RX 6800 is the same Navi 21 die,
PCI device 0x73bf, gfx1030), Ubuntu 22.04.""",
                  """python.torch_build: the torch is a CPU build; install the ROCm wheel in a
Python the ROCm index has wheels for.""")


def machine_report_gfx1032_fooocus(out):
    r = report_base(out, "mint-desk", "mint21")
    rerocm(r, "5.7.1")
    regpu(r, 100302, 56, 0x73ff, 8573157376, 128)  # RX 6600: 28 CUs, 8 GiB, 128-bit
    site = "/home/grace/Fooocus/fooocus_env/lib/python3.10/site-packages"
    retorch(r, "2.1.0+rocm5.6", "5.6.31061-8c743ae5d", "3.10.12", "cp310-cp310-linux_x86_64",
            site, "/home/grace/Fooocus/fooocus_env/bin/python", "/home/grace/Fooocus/fooocus_env",
            "/usr", ["torch 2.1.0+rocm5.6", "pytorch-triton-rocm 2.1.0"])
    report_readme(r, "report-gfx1032-fooocus", "https://github.com/lllyasviel/Fooocus/issues/1079",
                  """
Fooocus on Linux Mint with an RX 6600 (gfx1032): 'RuntimeError: No HIP GPUs are
available'. gfx1032 is on no ROCm release's Linux list; with ROCm 5.7.1 from
repo.radeon.com installed, what was left was the override.""",
                  """the title, the repository lines for amdgpu/ROCm 5.7.1 on jammy, rocminfo's
'Name: gfx1032', 'the only thing left is changing the env variables' (comment
of EduartePaiva, 2023-12-04).""",
                  """the KFD node of an RX 6600 (gfx_target_version 100302, 28 CUs, 8 GiB,
device 0x73ff) written into the RX 6900 XT capture's place, the torch
2.1.0+rocm5.6 wheel of Fooocus's AMD instructions in its venv, Mint 21.2.""",
                  """gpu.gfx_supported: HSA_OVERRIDE_GFX_VERSION=10.3.0 (gfx1030's code
objects run on the other RDNA2 dies).""")


def machine_report_gfx1032_sovits(out):
    r = report_base(out, "pop-os", "popos2204")
    rerocm(r, "5.4.2")
    regpu(r, 100302, 56, 0x73ff, 8573157376, 128)
    site = "/home/grace/miniconda3/envs/so-vits-svc-fork/lib/python3.10/site-packages"
    retorch(r, "2.0.0+rocm5.4.2", "5.4.22803-474e8620", "3.10.11", "cp310-cp310-linux_x86_64",
            site, "/home/grace/miniconda3/envs/so-vits-svc-fork/bin/python",
            "/home/grace/miniconda3/envs/so-vits-svc-fork",
            "/home/grace/miniconda3/envs/so-vits-svc-fork",
            ["torch 2.0.0+rocm5.4.2", "torchaudio 2.0.1+rocm5.4.2", "pytorch-triton-rocm 2.0.1"])
    report_readme(r, "report-gfx1032-sovits", "https://github.com/voicepaw/so-vits-svc-fork/issues/326",
                  """
so-vits-svc-fork training on Pop!_OS 22.04 with an RX 6600: 'GPU available:
False', torch.cuda.is_available() False with torch 2.0.0+rocm5.4.2 in a conda
environment of Python 3.10.""",
                  """Pop!_OS 22.04 LTS, AMD Radeon RX 6600, PyTorch 2.0.0+rocm5.4.2, the conda
create/pip install lines (conda python=3.10, --index-url .../rocm5.4.2),
'GPU available: False, used: False' (description of faishalirwn,
2023-04-14).""",
                  """the RX 6600's KFD node (as report-gfx1032-fooocus), ROCm 5.4.2 installed
under /opt (the report shows only the wheel), torchaudio's exact version.""",
                  """gpu.gfx_supported: HSA_OVERRIDE_GFX_VERSION=10.3.0 for the RX 6600
(gfx1032).""")


def machine_report_podman_user(out):
    r = report_base(out, "HAL", "ubuntu2204")
    r.file("/run/.containerenv", "")
    r.file("/etc/group", "root:x:0:\nvideo:x:44:sduser\nrender:x:109:sduser\nnogroup:x:65534:\n"
           "sduser:x:1000:\n")
    r.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"
           "sduser:x:1000:1000::/home/sduser:/bin/bash\n")
    snapshot(r, identity="user sduser\nuid 1000\ngid 1000\ngroups 1000 44\n", kfd_open="EACCES\n",
             devnodes="/dev/kfd 020660 65534 65534\n/dev/dri/renderD128 020660 65534 65534\n",
             environ="PATH=/home/sduser/environ/bin:/usr/local/bin:/usr/bin:/bin\n"
                     "VIRTUAL_ENV=/home/sduser/environ\n")
    report_readme(r, "report-podman-nogroup", "https://github.com/Firstbober/rocm-pytorch-gfx803-docker/issues/4",
                  """
A podman container started with --device=/dev/kfd --device=/dev/dri
--group-add=video: inside, sduser is refused /dev/kfd and rocminfo says the
DRM access group is 'nogroup', the name of the unmapped host group.""",
                  """the podman run line (--device=/dev/kfd --device=/dev/dri --net=host
--group-add=video --ipc=host ...), the prompt '(environ) sduser@HAL',
'Unable to open /dev/kfd read-write: Permission denied', 'root is not member
of "nogroup" group, the default DRM access group' (description of
Nachtwind85, 2023-04-25); the maintainer's answer that a podman container never
has more rights than the host user who runs it, who must be in video or
render (Firstbober, same day).""",
                  """the GPU (the RX 6900 XT capture standing in for the RX 580 of the image's
gfx803 build), ROCm 6.2 and its wheel, the image's /etc/group and the nodes'
owner 65534.""",
                  """user.groups (its container rule): the host user who starts the rootless
container joins render and video on the host; --group-add keep-groups passes
those groups in; nothing inside the image changes it.""")


def machine_report_hpc_user(out):
    r = report_base(out, "gpu-node07", "ubuntu2204")
    r.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n")
    r.file("/etc/group", "root:x:0:\nvideo:x:44:\nrender:x:109:\n")
    snapshot(r, identity="user uid51234\nuid 51234\ngid 5000\ngroups 5000\n",
             kfd_open="EACCES\n",
             environ="PATH=/opt/rocm-5.2.3/bin:/usr/bin:/bin\nROCM_PATH=/opt/rocm-5.2.3\n")
    rerocm(r, "5.2.3")
    report_readme(r, "report-hpc-not-in-video", "https://github.com/ROCm/legacy-rocm-build/issues/2838",
                  """
A cluster node whose users come from a directory service, not /etc/passwd:
torch.cuda.is_available() is False and rocminfo cannot open /dev/kfd; the
account is in neither video nor render.""",
                  """'we are using pytorch/1.13.0 which was installed with rocm/5.2.3',
rocminfo's 'Unable to open /dev/kfd read-write: Permission denied' and 'Failed
to get user name to check for video group membership' (description of
kf-cuanschutz, 2024-01-25).""",
                  """the node (the RX 6900 XT capture standing in for the MI100), the numeric
uid 51234 and gid 5000 (a user /etc/passwd does not list, which is why
rocminfo found no name), ROCm 5.2.3 under /opt with the base machine's ROCm
6.2 PyTorch wheel kept.""",
                  """user.groups: the administrator adds the account to render and video (the
printed usermod, or the directory service's group for a directory user); the
user logs in again.""")


def machine_report_apptainer_containall(out):
    r = report_base(out, "login02", "ubuntu2204")
    r.file("/.singularity.d/runscript", "#!/bin/sh\nexec /bin/bash \"$@\"\n")
    os.remove(r.p("/dev/kfd"))
    shutil.rmtree(r.p("/dev/dri"), ignore_errors=True)
    snapshot(r, kfd_open="ENOENT\n", devnodes="")
    report_readme(r, "report-apptainer-containall", "https://github.com/ROCm/legacy-rocm-build/issues/1798",
                  """
An Apptainer container run with --containall: the host's /dev is not in the
container, so there is no /dev/kfd and no render node.""",
                  """'I ran into this issue when using the --containall option to Apptainer,
but I was able to resolve it with the additional option
--bind=/dev/kfd,/dev/dri' (comment of tom-papatheodore, 2023-09-14, on the
issue's 'Unable to open /dev/kfd read-write: No such file or directory').""",
                  """the machine inside the container (the RX 6900 XT capture's sysfs, Ubuntu
22.04, ROCm 6.2 and its wheel) and the image's /.singularity.d/runscript.""",
                  """env.container (its Apptainer rule): run with --rocm, or --bind
/dev/kfd,/dev/dri with --containall.""")


def main():
    global REAL
    REAL = os.path.abspath(sys.argv[1])
    out = sys.argv[2]
    for name, fn in [("mi300x-node", machine_mi300x), ("rx7900xtx-desktop", machine_rx7900xtx),
                     ("rx7800xt-override", machine_rx7800xt), ("wsl2", machine_wsl2),
                     ("no-gpu-server", machine_nogpu), ("mi250x-degraded", machine_mi250x),
                     ("rx580-legacy", machine_rx580), ("rx6900xt-secureboot", machine_secureboot),
                     ("rx6900xt-secureboot-nolog", machine_secureboot_nolog),
                     ("rx6900xt-nomodeset", machine_nomodeset),
                     ("rx6900xt-blacklist", machine_blacklist),
                     ("rx6900xt-dkms-stale", machine_dkms_stale),
                     ("rx6900xt-no-amdgpu-kernel", machine_no_amdgpu_kernel),
                     ("rx6900xt-no-modules-extra", machine_no_modules_extra),
                     ("rx7900xt-firmware", machine_firmware),
                     ("rx7800xt-hot-edge", machine_rx7800xt_hot_edge),
                     ("rx6900xt-desktop", machine_rx6900xt_desktop),
                     ("rx6900xt-degraded", machine_rx6900xt_degraded),
                     ("rx6700xt-rocm54", machine_rx6700xt_rocm54),
                     ("rx6900xt-docker-seccomp", machine_rx6900xt_docker),
                     ("mi300x-numa-pinned", machine_mi300x_pinned),
                     ("mi300x-cpx-nps4", machine_mi300x_cpx),
                     ("kvm-guest-mi300x-vf", machine_mi300x_vf_guest),
                     ("rx7800xt-power-capped", machine_rx7800xt_power_capped),
                     ("report-ollama-rootless-docker", machine_report_ollama_rootless),
                     ("report-buildah-rootless-fedora", machine_report_buildah_rootless),
                     ("report-cuda-visible-minus1", machine_report_cuda_visible_minus1),
                     ("report-second-user-groups", machine_report_second_user),
                     ("report-sudo-only", machine_report_sudo_only),
                     ("report-docker-no-kfd", machine_report_docker_no_kfd),
                     ("report-torch-cpu-py37", machine_report_torch_cpu),
                     ("report-gfx1032-fooocus", machine_report_gfx1032_fooocus),
                     ("report-gfx1032-sovits", machine_report_gfx1032_sovits),
                     ("report-podman-nogroup", machine_report_podman_user),
                     ("report-hpc-not-in-video", machine_report_hpc_user),
                     ("report-apptainer-containall", machine_report_apptainer_containall)]:
        if len(sys.argv) > 3 and name not in sys.argv[3:]:
            continue
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        fn(d)
        print("wrote", d)


if __name__ == "__main__":
    main()
