/* test_probes_host.c - the host probes (driver, kernel log, kfd, user,
 * container, kernel, iommu, rocm) on small sysroot trees built in a temp dir,
 * including the .snapshot/<query> files that stand in for live producers. */
#include "../../probes/driver_block.h"
#include "../../probes/env_left_set.h"
#include "../../probes/probe.h"
#include "sysroot_tree.h"
#include "test.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

int probe_env_run(struct probe_ctx *ctx);
int probe_driver_run(struct probe_ctx *ctx);
int probe_kernel_log_run(struct probe_ctx *ctx);
int probe_kfd_run(struct probe_ctx *ctx);
int probe_user_run(struct probe_ctx *ctx);
int probe_container_run(struct probe_ctx *ctx);
int probe_kernel_run(struct probe_ctx *ctx);
int probe_iommu_run(struct probe_ctx *ctx);
int probe_rocm_run(struct probe_ctx *ctx);
int probe_driver_cause_run(struct probe_ctx *ctx);
int probe_host_run(struct probe_ctx *ctx);

/* ---- sysroot helpers ------------------------------------------------------ */

static struct factset fs = FACTSET_INIT;
static struct probe_opts opts = {0};
static struct probe_ctx ctx = {&fs, LEVEL_QUICK, &opts, 0};

static void put_gz(const char *rel, const char *text)
{
    char *path = xasprintf("%s%s", root, rel);
    mkparents(path);
    gzFile g = gzopen(path, "wb");
    gzwrite(g, text, (unsigned)strlen(text));
    gzclose(g);
    free(path);
}

/* a fresh empty root and an empty fact set */
static void fresh(void)
{
    tree_fresh("host");
    factset_release(&fs);
}

/* rootfs_init after the tree is complete (read-errors are loaded at init) */
static void use_root(void)
{
    if (rootfs_init(root))
        exit(2);
}

static int fbool(const char *name) /* 1, 0, -1 unknown, -2 missing/other type */
{
    const struct fact *f = fact_get(&fs, name);
    if (!f)
        return -2;
    if (f->type == FACT_UNKNOWN)
        return -1;
    return f->type == FACT_BOOL ? f->b : -2;
}

static const char *fstr(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_STR ? f->s : NULL;
}

static int64_t fint(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_INT ? f->i : -999;
}

static int is_unknown(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_UNKNOWN;
}

static const char *reason(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->reason ? f->reason : "";
}

static int list_n(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_LIST ? (int)f->list.n : -1;
}

static int list_has(const char *name, const char *v)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_LIST && strlist_has(&f->list, v);
}

/* ---- driver --------------------------------------------------------------- */

static void test_driver(void)
{
    fresh();
    use_root();
    probe_driver_run(&ctx);
    CHECK(fbool("driver.module_present") == 0);
    CHECK(fbool("driver.loaded") == 0);
    CHECK(fbool("driver.dkms") == 0);
    CHECK(is_unknown("driver.initstate"));
    CHECK(is_unknown("driver.version"));

    fresh();
    put("/sys/module/amdgpu/initstate", "live\n");
    put("/sys/module/amdgpu/version", "6.8.5\n");
    use_root();
    probe_driver_run(&ctx);
    CHECK(fbool("driver.module_present") == 1);
    CHECK_STR(fstr("driver.initstate"), "live");
    CHECK(fbool("driver.loaded") == 1);
    CHECK(fbool("driver.dkms") == 1);
    CHECK_STR(fstr("driver.version"), "6.8.5 (amdgpu-dkms)");

    fresh();
    put("/sys/module/amdgpu/initstate", "coming\n");
    use_root();
    fact_set_str(&fs, "kernel.release", "6.1.0-18-amd64", NULL);
    probe_driver_run(&ctx);
    CHECK_STR(fstr("driver.initstate"), "coming");
    CHECK(fbool("driver.loaded") == 0);
    CHECK(fbool("driver.dkms") == 0);
    CHECK_STR(fstr("driver.version"), "in-kernel amdgpu of 6.1.0-18-amd64");

    /* built in: the module directory has parameters but no initstate */
    fresh();
    put("/sys/module/amdgpu/parameters/noretry", "-1\n");
    use_root();
    fact_set_str(&fs, "kernel.release", "6.8.0", NULL);
    probe_driver_run(&ctx);
    CHECK_STR(fstr("driver.initstate"), "builtin");
    CHECK(fbool("driver.loaded") == 1);
}

/* ---- kernel log ----------------------------------------------------------- */

static const char *const sig_ids[] = {
    "atomics_unsupported", "pci_rejects_atomics", "gpu_page_fault", "memory_access_fault",
    "kfd_unsupported",     "key_rejected",        "hmm_registered", "module_rejected",
    "firmware_failed",     "probe_failed"};

static void test_kernel_log(void)
{
    char name[FACT_NAME_MAX];

    /* refused: collect recorded EPERM for the query */
    fresh();
    put("/.snapshot/read-errors", "1 /.snapshot/dmesg\n");
    put("/proc/sys/kernel/dmesg_restrict", "1\n");
    use_root();
    probe_kernel_log_run(&ctx);
    CHECK(fbool("kernel.dmesg_readable") == 0);
    CHECK_STR(fstr("kernel.dmesg_error"), "EPERM: kernel.dmesg_restrict is 1");
    for (size_t i = 0; i < ARRAY_SIZE(sig_ids); i++) {
        snprintf(name, sizeof(name), "kernel.dmesg.%s", sig_ids[i]);
        CHECK(is_unknown(name));
        CHECK(strstr(reason(name), "dmesg_restrict") != NULL);
    }
    CHECK(is_unknown("kernel.dmesg.signatures"));

    /* a clean log */
    fresh();
    put("/.snapshot/dmesg", "[    0.000000] Linux version 6.8.0\n"
                            "[    3.1] [drm] amdgpu kernel modesetting enabled.\n");
    use_root();
    probe_kernel_log_run(&ctx);
    CHECK(fbool("kernel.dmesg_readable") == 1);
    CHECK(fint("kernel.dmesg.line_count") == 2);
    CHECK(list_n("kernel.dmesg.signatures") == 0);
    CHECK(list_n("kernel.dmesg.lines") == 0);
    for (size_t i = 0; i < ARRAY_SIZE(sig_ids); i++) {
        snprintf(name, sizeof(name), "kernel.dmesg.%s", sig_ids[i]);
        CHECK(fbool(name) == 0);
    }

    /* each signature alone, as the kernel prints it */
    static const char *const lines[] = {
        "[    4.2] amdgpu 0000:03:00.0: amdgpu: PCIE atomic ops is not supported\n",
        "[    4.3] kfd kfd: amdgpu: skipped device 1002:744c, PCI rejects atomics 730<0\n",
        "[  100.1] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 "
        "pasid:32770)\n",
        "[  100.2] Memory access fault by GPU node-1 (Agent handle: 0x55) on address 0x7f.\n",
        "[    4.4] kfd kfd: amdgpu: kfd not supported on this ASIC\n",
        "[    2.0] modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service\n",
        "[    5.0] amdgpu: HMM registered 24560MB device memory\n",
        "[    2.1] Loading of unsigned module is rejected\n",
        "[    2.9] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/psp_13_0_0_sos.bin failed "
        "with error -2\n",
        "[    2.9] amdgpu: probe of 0000:03:00.0 failed with error -19\n",
    };
    for (size_t s = 0; s < ARRAY_SIZE(sig_ids); s++) {
        fresh();
        char *log = xasprintf("[    0.0] Linux version 6.8.0\n%s", lines[s]);
        put("/.snapshot/dmesg", log);
        free(log);
        use_root();
        probe_kernel_log_run(&ctx);
        for (size_t i = 0; i < ARRAY_SIZE(sig_ids); i++) {
            snprintf(name, sizeof(name), "kernel.dmesg.%s", sig_ids[i]);
            if (fbool(name) != (i == s))
                fprintf(stderr, "signature %s on line for %s\n", sig_ids[i], sig_ids[s]);
            CHECK(fbool(name) == (i == s));
        }
        CHECK(list_n("kernel.dmesg.signatures") == 1);
        CHECK(list_has("kernel.dmesg.signatures", sig_ids[s]));
        const struct fact *f = fact_get(&fs, "kernel.dmesg.lines");
        CHECK(f && f->type == FACT_LIST && f->list.n == 1 && str_starts(f->list.v[0], sig_ids[s]));
    }

    /* "module verification failed ... tainting kernel" is a module that
     * loaded unsigned (Secure Boot off): no rejection */
    fresh();
    put("/.snapshot/dmesg", "[ 3.1] amdgpu: module verification failed: signature and/or "
                            "required key missing - tainting kernel\n");
    use_root();
    probe_kernel_log_run(&ctx);
    CHECK(fbool("kernel.dmesg.module_rejected") == 0);
    CHECK(fbool("kernel.dmesg.key_rejected") == 0);
    CHECK(list_n("kernel.dmesg.signatures") == 0);
    CHECK(list_n("kernel.dmesg.firmware_files") == 0);

    /* lines are capped at 20 */
    fresh();
    struct strbuf sb = STRBUF_INIT;
    for (int i = 0; i < 30; i++)
        strbuf_addf(&sb, "[ %d.0] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault\n", i);
    put("/.snapshot/dmesg", sb.buf);
    strbuf_release(&sb);
    use_root();
    probe_kernel_log_run(&ctx);
    CHECK(fint("kernel.dmesg.line_count") == 30);
    CHECK(list_n("kernel.dmesg.lines") == 20);
}

/* ---- kfd and user ---------------------------------------------------------- */

static const char *const etc_group = "root:x:0:\n"
                                     "video:x:44:alice\n"
                                     "render:x:109:alice\n"
                                     "alice:x:1000:\n";

static void test_kfd(void)
{
    fresh();
    put("/dev/kfd", "");
    put("/dev/dri/renderD128", "");
    put("/dev/dri/card0", "");
    put("/etc/group", etc_group);
    put("/.snapshot/kfd-open", "EACCES\n");
    put("/.snapshot/devnodes", "/dev/kfd 0660 0 109\n/dev/dri/renderD128 0660 0 109\n");
    use_root();
    probe_kfd_run(&ctx);
    CHECK(fbool("kfd.present") == 1);
    CHECK_STR(fstr("kfd.open_result"), "EACCES");
    CHECK_STR(fstr("kfd.group"), "render");
    CHECK_STR(fstr("kfd.mode"), "0660");
    CHECK(fbool("dri.render_present") == 1);
    CHECK(list_n("dri.render_nodes") == 1);
    CHECK(list_has("dri.render_nodes", "/dev/dri/renderD128"));
    CHECK_STR(fstr("dri.render_group"), "render");
    CHECK(list_n("dri.render_groups") == 1);
    /* the docker run line: each owning group once, as a number */
    CHECK(list_n("container.group_ids") == 1 && list_has("container.group_ids", "109"));
    CHECK_STR(fstr("container.docker_run"), "docker run --device=/dev/kfd --device=/dev/dri "
                                            "--group-add 109 --security-opt seccomp=unconfined");

    /* /dev/kfd owned by video (44), the render nodes by render and by a
     * group the image will not know (4242): every number, in node order */
    fresh();
    put("/dev/kfd", "");
    put("/dev/dri/renderD128", "");
    put("/dev/dri/renderD129", "");
    put("/etc/group", etc_group);
    put("/.snapshot/kfd-open", "ok\n");
    put("/.snapshot/devnodes", "/dev/kfd 0660 0 44\n/dev/dri/renderD128 0660 0 109\n"
                               "/dev/dri/renderD129 0660 0 4242\n/dev/dri/card0 0660 0 44\n");
    use_root();
    probe_kfd_run(&ctx);
    CHECK(list_n("container.group_ids") == 3);
    CHECK_STR(fstr("container.docker_run"),
              "docker run --device=/dev/kfd --device=/dev/dri --group-add 44 --group-add 109 "
              "--group-add 4242 --security-opt seccomp=unconfined");

    /* two render nodes with different groups, one gid without a name */
    fresh();
    put("/dev/dri/renderD128", "");
    put("/dev/dri/renderD129", "");
    put("/etc/group", etc_group);
    put("/.snapshot/kfd-open", "ENOENT\n");
    put("/.snapshot/devnodes", "/dev/dri/renderD128 0666 0 44\n/dev/dri/renderD129 0660 0 4242\n");
    use_root();
    probe_kfd_run(&ctx);
    CHECK(fbool("kfd.present") == 0);
    CHECK_STR(fstr("kfd.open_result"), "ENOENT");
    CHECK(is_unknown("kfd.group"));
    CHECK(is_unknown("container.docker_run")); /* no /dev/kfd: no line */
    CHECK_STR(fstr("dri.render_group"), "video");
    CHECK(list_n("dri.render_groups") == 2);
    CHECK(list_has("dri.render_groups", "gid 4242"));

    /* no device nodes at all */
    fresh();
    put("/.snapshot/kfd-open", "ENOENT\n");
    put("/.snapshot/devnodes", "");
    use_root();
    probe_kfd_run(&ctx);
    CHECK(fbool("dri.render_present") == 0);
    CHECK(list_n("dri.render_nodes") == 0);
    CHECK(is_unknown("dri.render_group"));

    /* a snapshot without its kfd-open record: the open was never tried,
     * so its result is unknown, never "ok" */
    fresh();
    put("/dev/kfd", "");
    put("/etc/group", etc_group);
    put("/.snapshot/devnodes", "/dev/kfd 0660 0 109\n");
    use_root();
    probe_kfd_run(&ctx);
    CHECK(fbool("kfd.present") == 1);
    CHECK(is_unknown("kfd.open_result"));
}

static void test_user(void)
{
    /* added to render in the database, but this session predates it */
    fresh();
    put("/dev/kfd", "");
    put("/dev/dri/renderD128", "");
    put("/etc/group", etc_group);
    put("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"
                       "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n");
    put("/.snapshot/kfd-open", "EACCES\n");
    put("/.snapshot/devnodes", "/dev/kfd 0660 0 109\n/dev/dri/renderD128 0660 0 109\n");
    put("/.snapshot/identity", "user alice\nuid 1000\ngid 1000\ngroups 1000 44 777\n");
    use_root();
    probe_kfd_run(&ctx);
    probe_user_run(&ctx);
    CHECK_STR(fstr("user.name"), "alice");
    CHECK(fint("user.uid") == 1000);
    CHECK(fbool("user.is_root") == 0);
    CHECK(list_n("user.groups") == 3);
    CHECK(list_has("user.groups", "alice"));
    CHECK(list_has("user.groups", "video"));
    CHECK(list_has("user.groups", "gid 777"));
    CHECK(!list_has("user.groups", "render"));
    CHECK(list_has("user.db_groups", "alice"));
    CHECK(list_has("user.db_groups", "video"));
    CHECK(list_has("user.db_groups", "render"));
    CHECK(fbool("user.in_device_groups") == 0);
    CHECK(fbool("user.db_in_device_groups") == 1);

    /* after logging in again */
    put("/.snapshot/identity", "user alice\nuid 1000\ngid 1000\ngroups 1000 44 109\n");
    factset_release(&fs);
    probe_kfd_run(&ctx);
    probe_user_run(&ctx);
    CHECK(fbool("user.in_device_groups") == 1);

    /* the render node owned by another group than /dev/kfd's: either group
     * alone is not enough, both are */
    put("/.snapshot/devnodes", "/dev/kfd 0660 0 109\n/dev/dri/renderD128 0660 0 44\n");
    static const char *const held[] = {"groups 1000 109", "groups 1000 44", "groups 1000 44 109"};
    for (int i = 0; i < 3; i++) {
        char id[96];
        snprintf(id, sizeof(id), "user alice\nuid 1000\ngid 1000\n%s\n", held[i]);
        put("/.snapshot/identity", id);
        factset_release(&fs);
        probe_kfd_run(&ctx);
        probe_user_run(&ctx);
        CHECK_STR(fstr("kfd.group"), "render");
        CHECK_STR(fstr("dri.render_group"), "video");
        CHECK(fbool("user.in_device_groups") == (i == 2));
    }
    /* the render node's owner not recorded: membership is unknown, never
     * taken as held because /dev/kfd's group is */
    put("/.snapshot/devnodes", "/dev/kfd 0660 0 109\n");
    put("/.snapshot/identity", "user alice\nuid 1000\ngid 1000\ngroups 1000 44 109\n");
    factset_release(&fs);
    probe_kfd_run(&ctx);
    probe_user_run(&ctx);
    CHECK(fbool("dri.render_present") == 1);
    CHECK(is_unknown("user.in_device_groups"));
    put("/.snapshot/devnodes", "/dev/kfd 0660 0 109\n/dev/dri/renderD128 0660 0 109\n");

    /* never added */
    put("/etc/group", "video:x:44:\nrender:x:109:\nalice:x:1000:\n");
    put("/.snapshot/identity", "user alice\nuid 1000\ngid 1000\ngroups 1000\n");
    factset_release(&fs);
    probe_kfd_run(&ctx);
    probe_user_run(&ctx);
    CHECK(fbool("user.in_device_groups") == 0);
    CHECK(fbool("user.db_in_device_groups") == 0);
    CHECK(list_n("user.db_groups") == 1);

    /* root; no query recorded */
    fresh();
    put("/etc/group", "root:x:0:\n");
    put("/.snapshot/identity", "user root\nuid 0\ngid 0\ngroups 0\n");
    use_root();
    probe_user_run(&ctx);
    CHECK(fbool("user.is_root") == 1);
    /* a partial tree without /usr/bin cannot tell whether sudo exists */
    CHECK(is_unknown("host.sudo_present"));
    fresh();
    use_root();
    probe_user_run(&ctx);
    CHECK(is_unknown("user.groups"));

    /* sudo: /usr/bin without it is "absent"; with it "present" */
    fresh();
    put("/usr/bin/env", "");
    use_root();
    probe_user_run(&ctx);
    CHECK(fbool("host.sudo_present") == 0);
    fresh();
    put("/usr/bin/sudo", "");
    use_root();
    probe_user_run(&ctx);
    CHECK(fbool("host.sudo_present") == 1);
}

/* ---- container ------------------------------------------------------------ */

static void test_container(void)
{
    fresh();
    use_root();
    fact_set_str(&fs, "kernel.release", "5.15.153.1-microsoft-standard-WSL2", NULL);
    probe_container_run(&ctx);
    CHECK(fbool("env.wsl") == 1);
    CHECK_STR(fstr("env.container"), "wsl2");

    /* an Apptainer image (its metadata directory) */
    fresh();
    put("/.singularity.d/runscript", "#!/bin/sh\n");
    use_root();
    fact_set_str(&fs, "kernel.release", "6.8.0-45-generic", NULL);
    probe_container_run(&ctx);
    CHECK_STR(fstr("env.container"), "apptainer");

    fresh();
    put("/.dockerenv", "");
    use_root();
    fact_set_str(&fs, "kernel.release", "6.8.0-45-generic", NULL);
    probe_container_run(&ctx);
    CHECK(fbool("env.wsl") == 0);
    CHECK_STR(fstr("env.container"), "docker");
    CHECK(is_unknown("env.seccomp_filter") && is_unknown("env.cap_sys_nice"));

    /* Docker's default profile: a filter, CapEff without CAP_SYS_NICE (bit
     * 23); then with --cap-add SYS_NICE; then unconfined */
    put("/proc/self/status", "Name:\tpython3\nCapEff:\t00000000a80425fb\nSeccomp:\t2\n");
    probe_container_run(&ctx);
    CHECK(fbool("env.seccomp_filter") == 1 && fbool("env.cap_sys_nice") == 0);
    put("/proc/self/status", "Name:\tpython3\nCapEff:\t00000000a8c425fb\nSeccomp:\t2\n");
    probe_container_run(&ctx);
    CHECK(fbool("env.seccomp_filter") == 1 && fbool("env.cap_sys_nice") == 1);
    put("/proc/self/status", "Name:\tpython3\nCapEff:\t000001ffffffffff\nSeccomp:\t0\n");
    probe_container_run(&ctx);
    CHECK(fbool("env.seccomp_filter") == 0 && fbool("env.cap_sys_nice") == 1);
    put("/proc/self/status", "Name:\tpython3\n");
    probe_container_run(&ctx);
    CHECK(is_unknown("env.seccomp_filter") && is_unknown("env.cap_sys_nice"));

    fresh();
    put("/run/.containerenv", "");
    use_root();
    fact_set_str(&fs, "kernel.release", "6.8.0", NULL);
    probe_container_run(&ctx);
    CHECK_STR(fstr("env.container"), "podman");

    fresh();
    put("/proc/1/cgroup", "0::/kubepods/burstable/pod1234/cri-containerd-abcd\n");
    use_root();
    fact_set_str(&fs, "kernel.release", "6.8.0", NULL);
    probe_container_run(&ctx);
    CHECK_STR(fstr("env.container"), "kubernetes");

    fresh();
    put("/proc/1/cgroup", "0::/init.scope\n");
    use_root();
    fact_set_str(&fs, "kernel.release", "6.8.0", NULL);
    probe_container_run(&ctx);
    CHECK_STR(fstr("env.container"), "none");
}

/* ---- kernel config and parameters ------------------------------------------ */

static void test_kernel(void)
{
    /* /proc/config.gz only */
    fresh();
    put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz quiet amdgpu.noretry=0\n");
    put_gz("/proc/config.gz", "CONFIG_DRM_AMDGPU=m\nCONFIG_HSA_AMD=y\nCONFIG_HSA_AMD_SVM=y\n");
    use_root();
    fact_set_str(&fs, "kernel.release", "6.8.0", NULL);
    probe_kernel_run(&ctx);
    CHECK_STR(fstr("kernel.cmdline"), "BOOT_IMAGE=/vmlinuz quiet amdgpu.noretry=0");
    CHECK_STR(fstr("kernel.svm_config"), "y");
    CHECK_STR(fstr("kernel.drm_amdgpu_config"), "m");     /* from the gzipped config */
    CHECK(is_unknown("kernel.amdgpu_params_nondefault")); /* no driver facts: not loaded */

    /* /boot/config-<release> wins over /proc/config.gz */
    put("/boot/config-6.8.0", "CONFIG_HSA_AMD=y\n# CONFIG_HSA_AMD_SVM is not set\n");
    factset_release(&fs);
    fact_set_str(&fs, "kernel.release", "6.8.0", NULL);
    probe_kernel_run(&ctx);
    CHECK_STR(fstr("kernel.svm_config"), "n");
    CHECK_STR(fstr("kernel.drm_amdgpu_config"), "n"); /* not in /boot's file */

    /* a config without the line at all is "n" too; no config is unknown */
    fresh();
    put("/boot/config-6.1.0", "CONFIG_HSA_AMD=y\n");
    use_root();
    fact_set_str(&fs, "kernel.release", "6.1.0", NULL);
    probe_kernel_run(&ctx);
    CHECK_STR(fstr("kernel.svm_config"), "n");
    fresh();
    put("/proc/config.gz", "not gzip at all");
    use_root();
    fact_set_str(&fs, "kernel.release", "6.1.0", NULL);
    probe_kernel_run(&ctx);
    CHECK(is_unknown("kernel.svm_config"));
    CHECK(is_unknown("kernel.drm_amdgpu_config"));
    CHECK(is_unknown("kernel.cmdline"));

    /* non-default parameters with a DKMS 6.8 driver */
    fresh();
    put("/sys/module/amdgpu/initstate", "live\n");
    put("/sys/module/amdgpu/version", "6.8.5\n");
    put("/sys/module/amdgpu/parameters/vm_update_mode", "3\n");
    put("/sys/module/amdgpu/parameters/noretry", "-1\n");
    put("/sys/module/amdgpu/parameters/mcbp", "0\n");
    put("/sys/module/amdgpu/parameters/cwsr_enable", "1\n");
    put("/sys/module/amdgpu/parameters/sched_policy", "0\n");
    put("/sys/module/amdgpu/parameters/some_new_param", "5\n");
    put("/sys/module/amdgpu/parameters/ppfeaturemask", "0xfff7bfff\n");
    use_root();
    probe_driver_run(&ctx);
    probe_kernel_run(&ctx);
    CHECK(list_n("kernel.amdgpu_params_nondefault") == 2);
    CHECK(list_has("kernel.amdgpu_params_nondefault", "vm_update_mode=3"));
    CHECK(list_has("kernel.amdgpu_params_nondefault", "mcbp=0"));

    /* an old in-kernel driver: 0 was the default of noretry and mcbp then */
    fresh();
    put("/sys/module/amdgpu/initstate", "live\n");
    put("/sys/module/amdgpu/parameters/noretry", "0\n");
    put("/sys/module/amdgpu/parameters/mcbp", "0\n");
    put("/sys/module/amdgpu/parameters/vm_fragment_size", "9\n");
    use_root();
    fact_set_str(&fs, "kernel.release", "5.4.0-150-generic", NULL);
    fact_set_int(&fs, "kernel.version_code", 5004, NULL);
    probe_driver_run(&ctx);
    probe_kernel_run(&ctx);
    CHECK(list_n("kernel.amdgpu_params_nondefault") == 1);
    CHECK(list_has("kernel.amdgpu_params_nondefault", "vm_fragment_size=9"));

    /* loaded, all defaults: a known empty list */
    fresh();
    put("/sys/module/amdgpu/initstate", "live\n");
    put("/sys/module/amdgpu/parameters/noretry", "-1\n");
    use_root();
    fact_set_int(&fs, "kernel.version_code", 6008, NULL);
    probe_driver_run(&ctx);
    probe_kernel_run(&ctx);
    CHECK(list_n("kernel.amdgpu_params_nondefault") == 0);
}

/* ---- iommu ---------------------------------------------------------------- */

static void test_iommu(void)
{
    fresh();
    put_dir("/sys/class/iommu/ivhd0");
    put("/proc/cmdline", "quiet amd_iommu=on iommu=pt\n");
    put("/sys/bus/pci/devices/0000:03:00.0/iommu_group/type", "DMA-FQ\n");
    put("/sys/bus/pci/devices/0000:43:00.0/iommu_group/type", "identity\n");
    put_dir("/sys/bus/pci/devices/0000:83:00.0");
    use_root();
    fact_set_int(&fs, "gpu.count", 3, NULL);
    fact_set_str(&fs, "gpu.0.pci", "0000:03:00.0", NULL);
    fact_set_str(&fs, "gpu.1.pci", "0000:43:00.0", NULL);
    fact_set_str(&fs, "gpu.2.pci", "0000:83:00.0", NULL);
    probe_iommu_run(&ctx);
    CHECK(fbool("iommu.enabled") == 1);
    CHECK_STR(fstr("iommu.kind"), "amd");
    CHECK(fbool("iommu.pt_cmdline") == 1);
    CHECK(list_n("iommu.gpu_domains") == 3);
    CHECK(list_has("iommu.gpu_domains", "0000:03:00.0=DMA-FQ"));
    CHECK(list_has("iommu.gpu_domains", "0000:43:00.0=identity"));
    CHECK(list_has("iommu.gpu_domains", "0000:83:00.0=none"));
    CHECK(fint("iommu.translated_gpus") == 1);

    /* no IOMMU, no GPU probe yet */
    fresh();
    put("/proc/cmdline", "quiet\n");
    use_root();
    probe_iommu_run(&ctx);
    CHECK(fbool("iommu.enabled") == 0);
    CHECK_STR(fstr("iommu.kind"), "none");
    CHECK(fbool("iommu.pt_cmdline") == 0);
    CHECK(list_n("iommu.gpu_domains") == 0);
    CHECK(fint("iommu.translated_gpus") == 0);

    fresh();
    put_dir("/sys/class/iommu/dmar0");
    use_root();
    probe_iommu_run(&ctx);
    CHECK_STR(fstr("iommu.kind"), "intel");
}

/* ---- rocm ----------------------------------------------------------------- */

static const char *const dpkg_status =
    "Package: libc6\nStatus: install ok installed\nVersion: 2.36-9\n\n"
    "Package: libamdhip64-5\nStatus: install ok installed\nPriority: optional\n"
    "Version: 5.2.3-3\nDescription: HIP\n multi-line description\n\n"
    "Package: libamdhip64-dev\nStatus: install ok installed\nVersion: 5.2.3-3\n";

static void test_rocm(void)
{
    /* two /opt installs, /opt/rocm pointing at one, plus Debian packages */
    fresh();
    put("/opt/rocm-6.2.0/.info/version", "6.2.0-66\n");
    put("/opt/rocm-6.1.3/.info/version", "6.1.3-122\n");
    put_link("/opt/rocm", "rocm-6.2.0");
    put("/var/lib/dpkg/status", dpkg_status);
    put("/sys/module/amdgpu/initstate", "live\n");
    put("/sys/module/amdgpu/version", "6.3.6\n");
    put("/.snapshot/environ", "LD_LIBRARY_PATH=/usr/local/cuda/lib64:/opt/rocm-6.1.3/lib:/opt/"
                              "rocm-6.2.0/lib:/opt/rocm/lib\n");
    use_root();
    probe_env_run(&ctx);
    probe_driver_run(&ctx);
    probe_rocm_run(&ctx);
    CHECK(fint("rocm.install_count") == 3);
    CHECK(list_n("rocm.installs") == 3);
    CHECK(list_has("rocm.installs", "/opt/rocm-6.2.0 6.2.0-66"));
    CHECK(list_has("rocm.installs", "/opt/rocm-6.1.3 6.1.3-122"));
    CHECK(list_has("rocm.installs", "debian-packages 5.2.3-3"));
    CHECK_STR(fstr("rocm.version"), "6.2.0");
    CHECK_STR(fstr("rocm.series"), "6.2");
    CHECK(fint("rocm.major") == 6);
    CHECK_STR(fstr("rocm.source"), "/opt/rocm-6.2.0");
    CHECK(fint("driver.rocm_series_gap") == 2); /* 6.3.6 is ROCm 6.0's driver */
    CHECK(fact_get(&fs, "env.ld_library_path") &&
          str_starts(fstr("env.ld_library_path"), "/usr/local/cuda/lib64:"));
    CHECK(list_n("env.ld_cuda_entries") == 1);
    CHECK(list_has("env.ld_cuda_entries", "/usr/local/cuda/lib64"));
    CHECK(list_n("env.ld_rocm_other") == 1);
    CHECK(list_has("env.ld_rocm_other", "/opt/rocm-6.1.3/lib"));

    /* Debian packages only, in-kernel driver, LD_LIBRARY_PATH unset */
    fresh();
    put("/var/lib/dpkg/status", dpkg_status);
    put("/sys/module/amdgpu/initstate", "live\n");
    put("/.snapshot/environ", "PATH=/usr/bin\n");
    use_root();
    probe_env_run(&ctx);
    probe_driver_run(&ctx);
    probe_rocm_run(&ctx);
    CHECK(fint("rocm.install_count") == 1);
    CHECK_STR(fstr("rocm.version"), "5.2.3");
    CHECK_STR(fstr("rocm.series"), "5.2");
    CHECK_STR(fstr("rocm.source"), "debian packages");
    CHECK(is_unknown("driver.rocm_series_gap"));
    CHECK(is_unknown("env.ld_library_path"));
    CHECK_STR(reason("env.ld_library_path"), "not set");
    CHECK(list_n("env.ld_cuda_entries") == 0);

    /* nothing installed (a removed package keeps its config files) */
    /* the ROCm Core SDK: /opt/rocm/core-10.0 with /opt/rocm/core linked to
     * it and /opt/rocm a directory of compatibility links; a classic 7.2.4
     * beside it is a second install, and the link names the active one */
    fresh();
    put("/opt/rocm/core-10.0/.info/version", "10.0.0-22\n");
    put_link("/opt/rocm/core", "core-10.0");
    put_link("/opt/rocm/bin", "core/bin");
    put("/opt/rocm/core-10.0/bin/.keep", "");
    use_root();
    probe_rocm_run(&ctx);
    CHECK(fint("rocm.install_count") == 1);
    CHECK(list_has("rocm.installs", "/opt/rocm/core-10.0 10.0.0-22"));
    CHECK_STR(fstr("rocm.version"), "10.0.0");
    CHECK_STR(fstr("rocm.support_series"), "10.0");
    CHECK_STR(fstr("rocm.source"), "/opt/rocm/core-10.0");
    put("/opt/rocm-7.2.4/.info/version", "7.2.4-61\n");
    use_root();
    factset_release(&fs);
    probe_rocm_run(&ctx);
    CHECK(fint("rocm.install_count") == 2);
    CHECK_STR(fstr("rocm.version"), "10.0.0");
    /* a 7.2.4 production install alone: the 7.2 row */
    fresh();
    put("/opt/rocm-7.2.4/.info/version", "7.2.4-61\n");
    put_link("/opt/rocm", "rocm-7.2.4");
    use_root();
    probe_rocm_run(&ctx);
    CHECK_STR(fstr("rocm.version"), "7.2.4");
    CHECK_STR(fstr("rocm.support_series"), "7.2");
    CHECK_STR(fstr("rocm.stream"), "production");
    fresh();
    put("/var/lib/dpkg/status",
        "Package: libamdhip64-5\nStatus: deinstall ok config-files\nVersion: 5.2.3-3\n");
    use_root();
    probe_rocm_run(&ctx);
    CHECK(list_n("rocm.installs") == 0);
    CHECK(fint("rocm.install_count") == 0);
    CHECK(is_unknown("rocm.version"));
    CHECK(is_unknown("rocm.series"));

    /* two installs, no /opt/rocm: no active version; DKMS of 6.16.13 is 7.2 */
    fresh();
    put("/opt/rocm-7.2.0/.info/version", "7.2.0\n");
    put("/opt/rocm-6.4.1/.info/version", "6.4.1-10\n");
    use_root();
    probe_rocm_run(&ctx);
    CHECK(fint("rocm.install_count") == 2);
    CHECK(is_unknown("rocm.version"));
    fresh();
    put("/opt/rocm-6.4.1/.info/version", "6.4.1-10\n");
    put("/sys/module/amdgpu/initstate", "live\n");
    put("/sys/module/amdgpu/version", "6.16.13\n");
    use_root();
    probe_driver_run(&ctx);
    probe_rocm_run(&ctx);
    CHECK_STR(fstr("rocm.version"), "6.4.1");
    CHECK(fint("driver.rocm_series_gap") == 3);
    CHECK_STR(fstr("rocm.support_series"), "6.4"); /* a release of the table: itself */
    /* 6.16 serves two releases: its patch level 6 is ROCm 7.1's, 13 is 7.2's */
    put("/sys/module/amdgpu/version", "6.16.6\n");
    factset_release(&fs);
    probe_driver_run(&ctx);
    probe_rocm_run(&ctx);
    CHECK(fint("driver.rocm_series_gap") == 2);

    /* the support data's release: the newest known one at or below the
     * installed series; a series older than the data, newer than it, or a
     * technology preview is unknown with its reason, never 0 or a guess */
    static const struct {
        const char *ver, *want, *why, *stream;
        int newer;
    } sup[] = {
        {"7.3.0", "7.2", NULL, "production", 0},
        {"8.0.1", "7.14", NULL, "production", 0},
        {"5.0.2", "5.0", NULL, "production", 0},
        {"4.5.2", NULL, "older than the support data", "production", 0},
        {"5.4.3", "5.4", NULL, "production", 0},
        {"7.14.1", "7.14", NULL, "production", 0},
        {"10.1.0", "10.1", NULL, "production", 0},
        {"10.2.0", NULL, "newer than the support data (as of 2026-12, newest ROCm 10.1)",
         "production", 1},
        {"7.11.0", NULL, "technology preview", "preview", 0},
        {"7.9.0", NULL, "technology preview", "preview", 0},
    };
    for (size_t i = 0; i < ARRAY_SIZE(sup); i++) {
        fresh();
        char *v = xasprintf("%s\n", sup[i].ver);
        char *dir = xasprintf("/opt/rocm-%s/.info/version", sup[i].ver);
        put(dir, v);
        use_root();
        probe_rocm_run(&ctx);
        if (sup[i].want)
            CHECK_STR(fstr("rocm.support_series"), sup[i].want);
        else
            CHECK(is_unknown("rocm.support_series") &&
                  strstr(reason("rocm.support_series"), sup[i].why));
        CHECK_STR(fstr("rocm.stream"), sup[i].stream);
        const struct fact *nw = fact_get(&fs, "rocm.newer_than_data");
        CHECK(nw && nw->type == FACT_BOOL && nw->b == sup[i].newer);
        CHECK_STR(fstr("rocm.support_data"), "as of 2026-12 (newest ROCm 10.1)");
        free(v);
        free(dir);
    }
    fresh();
    put("/var/lib/dpkg/status",
        "Package: libamdhip64-5\nStatus: deinstall ok config-files\nVersion: 5.2.3-3\n");
    use_root();
    probe_rocm_run(&ctx);
    CHECK(is_unknown("rocm.support_series"));
}

/* ---- why amdgpu is missing: parsers ---------------------------------------- */

/* the list a parser produced, joined with '|' for one comparison */
static char *joined(const struct strlist *l)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_add(&sb, "", 0);
    for (size_t i = 0; i < l->n; i++)
        strbuf_addf(&sb, "%s%s", i ? "|" : "", l->v[i]);
    return strbuf_detach(&sb);
}

static void cmdline_case(const char *cmdline, const char *want)
{
    struct strlist out = STRLIST_INIT;
    db_cmdline_blocks(cmdline, &out);
    char *got = joined(&out);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "cmdline \"%s\"\n", cmdline);
    CHECK_STR(got, want);
    free(got);
    strlist_release(&out);
}

static void modprobe_case(const char *text, const char *want)
{
    struct strlist out = STRLIST_INIT;
    db_modprobe_blocks(text, &out);
    char *got = joined(&out);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "modprobe.d text \"%s\"\n", text);
    CHECK_STR(got, want);
    free(got);
    strlist_release(&out);
}

static void test_driver_block_parsers(void)
{
    /* kernel command line */
    cmdline_case("BOOT_IMAGE=/vmlinuz root=UUID=1 ro quiet splash", "");
    cmdline_case("", "");
    cmdline_case("ro quiet nomodeset", "nomodeset");
    /* older kernels load amdgpu despite nomodeset when told to */
    cmdline_case("ro nomodeset amdgpu.modeset=1", "");
    cmdline_case("ro amdgpu.modeset=0", "amdgpu.modeset=0");
    cmdline_case("ro amdgpu.modeset=-1", "");
    cmdline_case("ro modprobe.blacklist=nouveau,amdgpu", "modprobe.blacklist=nouveau,amdgpu");
    cmdline_case("ro modprobe.blacklist=nouveau", "");
    cmdline_case("ro module_blacklist=amdgpu", "module_blacklist=amdgpu");
    cmdline_case("ro module-blacklist=radeon,amdgpu", "module-blacklist=radeon,amdgpu");
    cmdline_case("ro rd.driver.blacklist=amdgpu", "rd.driver.blacklist=amdgpu");
    cmdline_case("ro initcall_blacklist=amdgpu_init", "initcall_blacklist=amdgpu_init");
    /* a name that only contains amdgpu is another module */
    cmdline_case("ro modprobe.blacklist=amdgpu_foo", "");
    /* quotes group and are dropped; words after -- are init's */
    cmdline_case("ro \"modprobe.blacklist=amdgpu\" quiet", "modprobe.blacklist=amdgpu");
    cmdline_case("ro -- nomodeset", "");
    cmdline_case("nomodeset amdgpu.modeset=0 nomodeset", "nomodeset|amdgpu.modeset=0");
    /* amdgpu parameters that do not stop it */
    cmdline_case("ro amdgpu.ppfeaturemask=0xffffffff amdgpu.dc=0", "");

    /* modprobe.d */
    modprobe_case("", "");
    modprobe_case("blacklist amdgpu\n", "1: blacklist amdgpu");
    modprobe_case("# blacklist amdgpu\n#blacklist amdgpu\n", "");
    modprobe_case("blacklist radeon\nblacklist amdgpu_foo\n", "");
    modprobe_case("\n\n  blacklist\tamdgpu   # passthrough\n", "3: blacklist amdgpu # passthrough");
    modprobe_case("install amdgpu /bin/true\n", "1: install amdgpu /bin/true");
    modprobe_case("install amdgpu /bin/false\n", "1: install amdgpu /bin/false");
    /* an install wrapper that loads the module after all */
    modprobe_case("install amdgpu /sbin/modprobe --ignore-install amdgpu $CMDLINE_OPTS\n", "");
    modprobe_case("install amdgpu /usr/bin/logger hi; /sbin/modprobe --ignore-install amdgpu\n",
                  "");
    modprobe_case("install amdgpu\n", ""); /* no command: not a valid install line */
    modprobe_case("options amdgpu modeset=0\n", "1: options amdgpu modeset=0");
    modprobe_case("options amdgpu si_support=1 cik_support=1\n", "");
    modprobe_case("options amdgpu ppfeaturemask=0xfff modeset=0\n",
                  "1: options amdgpu ppfeaturemask=0xfff modeset=0");
    /* continuation lines join and report the first line's number */
    modprobe_case("# comment\nblacklist \\\n  amdgpu\nblacklist nouveau\n", "2: blacklist amdgpu");
    modprobe_case("options amdgpu \\\n dc=1 \\\n modeset=0\n", "1: options amdgpu dc=1 modeset=0");
    /* a continuation on the last line, and no final newline */
    modprobe_case("blacklist \\\namdgpu", "1: blacklist amdgpu");
    modprobe_case("blacklist amdgpu\nblacklist amdgpu", "1: blacklist amdgpu|2: blacklist amdgpu");
    /* CRLF files: modprobe splits on spaces and tabs only, so it reads the
     * module "amdgpu\r", which blocks nothing - neither does the parser */
    modprobe_case("blacklist amdgpu\r\n", "");

    /* firmware lines of a kernel log */
    struct strlist fw = STRLIST_INIT;
    db_firmware_failed("[ 2.9] amdgpu 0000:03:00.0: Direct firmware load for "
                       "amdgpu/psp_13_0_0_sos.bin failed with error -2\n"
                       "[ 2.9] iwlwifi: Direct firmware load for iwlwifi-9000.ucode failed\n"
                       "[ 3.0] amdgpu 0000:03:00.0: Direct firmware load for "
                       "amdgpu/psp_13_0_0_sos.bin failed with error -2\n"
                       "[ 3.1] Direct firmware load for amdgpu/gc_11_0_0_mes_2.bin failed "
                       "with error -2\n"
                       "[ 3.2] Direct firmware load for amdgpu/",
                       &fw);
    char *got = joined(&fw);
    CHECK_STR(got, "amdgpu/psp_13_0_0_sos.bin|amdgpu/gc_11_0_0_mes_2.bin");
    free(got);
    strlist_release(&fw);
}

/* ---- why amdgpu is missing: the probe on trees ------------------------------ */

static void cause_base(const char *release)
{
    fact_set_str(&fs, "kernel.release", release, NULL);
    fact_set_str(&fs, "kernel.cmdline", "ro quiet", NULL);
    fact_set_int(&fs, "gpu.count", 0, NULL);
}

static void test_driver_cause(void)
{
    /* an empty machine: nothing blocks, no DKMS, the module tree unknown */
    fresh();
    use_root();
    cause_base("6.8.0-49-generic");
    probe_driver_cause_run(&ctx);
    CHECK(list_n("driver.cmdline_blocks") == 0);
    CHECK(list_n("driver.modprobe_blocks") == 0);
    CHECK(list_n("driver.dkms_versions") == 0);
    CHECK(fbool("driver.dkms_built_running") == 0);
    CHECK(is_unknown("kernel.amdgpu_module"));
    CHECK(is_unknown("kernel.secure_boot"));
    CHECK(is_unknown("driver.firmware_missing")); /* no kernel log facts */
    CHECK(list_n("driver.unbound_gpus") == 0);

    /* unknown inputs stay unknown */
    fresh();
    use_root();
    probe_driver_cause_run(&ctx);
    CHECK(is_unknown("driver.cmdline_blocks"));
    CHECK(is_unknown("driver.dkms_built_running"));
    CHECK(is_unknown("kernel.amdgpu_module"));
    CHECK(is_unknown("driver.unbound_gpus"));

    /* modprobe.d: every directory, masking by file name, /dev/null masks */
    fresh();
    put("/etc/modprobe.d/a.conf", "blacklist amdgpu\n");
    put("/etc/modprobe.d/notes.txt", "blacklist amdgpu\n"); /* not *.conf */
    put("/run/modprobe.d/b.conf", "# x\ninstall amdgpu /bin/false\n");
    put("/usr/lib/modprobe.d/a.conf", "blacklist amdgpu\n"); /* masked by /etc's a.conf */
    put("/lib/modprobe.d/c.conf", "options amdgpu modeset=0\n");
    put_link("/etc/modprobe.d/d.conf", "/dev/null");
    put("/usr/lib/modprobe.d/d.conf", "blacklist amdgpu\n"); /* masked by the link */
    put("/usr/local/lib/modprobe.d/e.conf", "options amdgpu dc=1\n");
    use_root();
    cause_base("6.8.0-49-generic");
    probe_driver_cause_run(&ctx);
    CHECK(list_n("driver.modprobe_blocks") == 3);
    CHECK(list_has("driver.modprobe_blocks", "/etc/modprobe.d/a.conf:1: blacklist amdgpu"));
    CHECK(
        list_has("driver.modprobe_blocks", "/run/modprobe.d/b.conf:2: install amdgpu /bin/false"));
    CHECK(list_has("driver.modprobe_blocks", "/lib/modprobe.d/c.conf:1: options amdgpu modeset=0"));

    /* DKMS built for another kernel, a failed build's log, no in-tree module */
    fresh();
    put("/var/lib/dkms/amdgpu/6.8.5/source/dkms.conf", "PACKAGE_NAME=amdgpu\n");
    put("/var/lib/dkms/amdgpu/6.8.5/6.8.0-45-generic/x86_64/module/amdgpu.ko.zst", "");
    put("/var/lib/dkms/amdgpu/6.8.5/6.8.0-47-generic/x86_64/module/amdttm.ko", "");
    put("/var/lib/dkms/amdgpu/6.8.5/build/make.log", "error\n");
    put_link("/var/lib/dkms/amdgpu/kernel-6.8.0-45-generic-x86_64",
             "6.8.5/6.8.0-45-generic/x86_64");
    put("/lib/modules/6.8.0-49-generic/modules.builtin", "kernel/drivers/video/fb.ko\n");
    put("/lib/modules/6.8.0-49-generic/kernel/drivers/gpu/drm/drm.ko", "");
    use_root();
    cause_base("6.8.0-49-generic");
    probe_driver_cause_run(&ctx);
    CHECK(list_n("driver.dkms_versions") == 1 && list_has("driver.dkms_versions", "6.8.5"));
    CHECK(list_n("driver.dkms_kernels") == 1 &&
          list_has("driver.dkms_kernels", "6.8.0-45-generic"));
    CHECK(fbool("driver.dkms_built_running") == 0);
    CHECK_STR(fstr("driver.dkms_make_log"), "/var/lib/dkms/amdgpu/6.8.5/build/make.log");
    CHECK_STR(fstr("kernel.amdgpu_module"), "");

    /* built for the running kernel; installed under updates/dkms */
    fresh();
    put("/var/lib/dkms/amdgpu/6.8.5/6.8.0-49-generic/x86_64/module/amdgpu.ko.xz", "");
    put("/lib/modules/6.8.0-49-generic/updates/dkms/amdgpu.ko.xz", "");
    use_root();
    cause_base("6.8.0-49-generic");
    probe_driver_cause_run(&ctx);
    CHECK(fbool("driver.dkms_built_running") == 1);
    CHECK_STR(fstr("driver.dkms_make_log"), "");
    CHECK_STR(fstr("kernel.amdgpu_module"),
              "/lib/modules/6.8.0-49-generic/updates/dkms/amdgpu.ko.xz");

    /* only in the running kernel's tree (dkms install without /var/lib/dkms) */
    fresh();
    put("/lib/modules/6.8.0-49-generic/updates/dkms/amdgpu.ko", "");
    use_root();
    cause_base("6.8.0-49-generic");
    probe_driver_cause_run(&ctx);
    CHECK(fbool("driver.dkms_built_running") == 1);

    /* built into the kernel */
    fresh();
    put("/lib/modules/6.10.0/modules.builtin", "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko\n");
    use_root();
    cause_base("6.10.0");
    probe_driver_cause_run(&ctx);
    CHECK_STR(fstr("kernel.amdgpu_module"), "builtin");

    /* Secure Boot variable: on, off, short */
    static const unsigned char on[] = {6, 0, 0, 0, 1}, off[] = {6, 0, 0, 0, 0}, shortv[] = {6, 0};
    const char *var = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
    const unsigned char *vals[] = {on, off, shortv};
    size_t lens[] = {sizeof(on), sizeof(off), sizeof(shortv)};
    int want[] = {1, 0, -1};
    for (int i = 0; i < 3; i++) {
        fresh();
        put_bin(var, vals[i], lens[i]);
        use_root();
        cause_base("6.8.0");
        probe_driver_cause_run(&ctx);
        CHECK(fbool("kernel.secure_boot") == want[i]);
    }
    /* EFI without the variable: unknown with the reason */
    fresh();
    put_dir("/sys/firmware/efi/efivars");
    use_root();
    cause_base("6.8.0");
    probe_driver_cause_run(&ctx);
    CHECK(is_unknown("kernel.secure_boot"));

    /* firmware the log named: present (compressed) or missing */
    fresh();
    put("/lib/firmware/amdgpu/gc_11_0_0_mes_2.bin.zst", "");
    use_root();
    cause_base("6.8.0");
    struct strlist names = STRLIST_INIT;
    strlist_add(&names, "amdgpu/psp_13_0_0_sos.bin");
    strlist_add(&names, "amdgpu/gc_11_0_0_mes_2.bin");
    fact_set_list(&fs, "kernel.dmesg.firmware_files", &names, NULL);
    strlist_release(&names);
    probe_driver_cause_run(&ctx);
    CHECK(list_n("driver.firmware_missing") == 1);
    CHECK(list_has("driver.firmware_missing", "amdgpu/psp_13_0_0_sos.bin"));

    /* GPU binding: amdgpu, vfio-pci, none, and a snapshot without the link */
    fresh();
    static const char *const bdfs[] = {"0000:03:00.0", "0000:04:00.0", "0000:05:00.0",
                                       "0000:06:00.0"};
    for (int i = 0; i < 4; i++) {
        char *dev = xasprintf("/sys/devices/pci0000:00/%s", bdfs[i]);
        char *l = xasprintf("/sys/bus/pci/devices/%s", bdfs[i]);
        char *vendor = xasprintf("%s/vendor", dev);
        put(vendor, "0x1002\n");
        put_link(l, dev);
        if (i < 2) {
            char *drv = xasprintf("%s/driver", dev);
            put_link(drv, i == 0 ? "../../../bus/pci/drivers/amdgpu"
                                 : "../../../bus/pci/drivers/vfio-pci");
            free(drv);
        }
        if (i == 3) {
            char *vram = xasprintf("%s/mem_info_vram_total", dev);
            put(vram, "17163091968\n");
            free(vram);
        }
        free(vendor);
        free(l);
        free(dev);
    }
    use_root();
    cause_base("6.8.0");
    fact_set_int(&fs, "gpu.count", 4, NULL);
    for (int i = 0; i < 4; i++) {
        char fn[FACT_NAME_MAX];
        fact_set_str(&fs, fact_gpu_name(fn, i, "pci"), bdfs[i], NULL);
    }
    probe_driver_cause_run(&ctx);
    CHECK(fbool("gpu.0.driver_bound") == 1);
    CHECK_STR(fstr("gpu.0.driver"), "amdgpu");
    CHECK(fbool("gpu.1.driver_bound") == 0);
    CHECK_STR(fstr("gpu.1.driver"), "vfio-pci");
    CHECK(fbool("gpu.2.driver_bound") == 0);
    CHECK_STR(fstr("gpu.2.driver"), "");
    CHECK(fbool("gpu.3.driver_bound") == 1);
    /* no link and no amdgpu files, but a KFD node joined to the GPU */
    fact_set_int(&fs, "gpu.2.kfd_node", 1, NULL);
    probe_driver_cause_run(&ctx);
    CHECK(fbool("gpu.2.driver_bound") == 1);
    CHECK_STR(fstr("gpu.2.driver"), "amdgpu");
    CHECK(list_n("driver.unbound_gpus") == 1);
    fact_set_unknown(&fs, "gpu.2.kfd_node", "kfd", "none");
    probe_driver_cause_run(&ctx);
    CHECK(list_n("driver.unbound_gpus") == 2);
    CHECK(list_has("driver.unbound_gpus", "0000:04:00.0 (bound to vfio-pci)"));
    CHECK(list_has("driver.unbound_gpus", "0000:05:00.0"));
}

/* issue 32: the variables left set from debugging or a GPU choice, and the
 * person sudo was run by */
static void test_env_left_set(void)
{
    /* nothing set: known empty lists, the entry count unknown (not 0) */
    fresh();
    put("/.snapshot/environ", "PATH=/usr/bin\nAMD_LOG_LEVEL=0\nHIP_LAUNCH_BLOCKING=0\n");
    use_root();
    probe_env_run(&ctx);
    CHECK(list_n("env.gpu_visibility") == 0);
    CHECK(fbool("env.gpu_visibility_none") == 0);
    CHECK(is_unknown("env.gpu_visibility_entries"));
    CHECK(list_n("env.debug_left") == 0); /* 0 is each one's default */

    /* ollama issue 15752: CUDA_VISIBLE_DEVICES=-1 hides the Radeon from HIP */
    fresh();
    put("/.snapshot/environ", "CUDA_VISIBLE_DEVICES=-1\nHIP_VISIBLE_DEVICES=0,1\n"
                              "AMD_SERIALIZE_KERNEL=3\nAMD_SERIALIZE_COPY=0\n"
                              "PYTORCH_NO_CUDA_MEMORY_CACHING=1\n");
    use_root();
    probe_env_run(&ctx);
    CHECK(list_n("env.gpu_visibility") == 2);
    CHECK(list_has("env.gpu_visibility", "CUDA_VISIBLE_DEVICES=-1"));
    CHECK(list_has("env.gpu_visibility", "HIP_VISIBLE_DEVICES=0,1"));
    CHECK(fbool("env.gpu_visibility_none") == 1);
    CHECK(fint("env.gpu_visibility_entries") == 1); /* the fewest: "-1" */
    CHECK(list_n("env.debug_left") == 2);
    CHECK(list_has("env.debug_left", "AMD_SERIALIZE_KERNEL=3 (waits for the GPU before and/or "
                                     "after every kernel launch)"));

    /* a list naming each GPU; UUIDs count as entries; an empty value none */
    fresh();
    put("/.snapshot/environ", "ROCR_VISIBLE_DEVICES=GPU-d9d22422ae1b7b8c, 1\n");
    use_root();
    probe_env_run(&ctx);
    CHECK(fbool("env.gpu_visibility_none") == 0);
    CHECK(fint("env.gpu_visibility_entries") == 2);
    fresh();
    put("/.snapshot/environ", "GPU_DEVICE_ORDINAL=\n");
    use_root();
    probe_env_run(&ctx);
    CHECK(fint("env.gpu_visibility_entries") == 0);
    CHECK(fbool("env.gpu_visibility_none") == 0);

    /* no environment recorded: unknown, never "nothing set" */
    fresh();
    use_root();
    probe_env_run(&ctx);
    CHECK(is_unknown("env.gpu_visibility"));
    CHECK(is_unknown("env.gpu_visibility_none"));
    CHECK(is_unknown("env.debug_left"));
    CHECK(env_left_set_why("AMD_SERIALIZE_KERNEL", "0") == NULL);
    CHECK(env_left_set_why("AMD_SERIALIZE_KERNEL", NULL) == NULL);
    CHECK(env_left_set_why("HIP_LAUNCH_BLOCKING", "1") != NULL);
    CHECK(env_left_set_why("PATH", "1") == NULL);

    /* sudo: root's groups are not judged, SUDO_USER's in the database are */
    static const char *const group_db[] = {
        "root:x:0:\nvideo:x:44:bob\nrender:x:109:bob\nbob:x:1000:\n",
        "root:x:0:\nvideo:x:44:\nrender:x:109:\nbob:x:1000:\n"};
    for (int i = 0; i < 2; i++) {
        fresh();
        put("/dev/kfd", "");
        put("/etc/group", group_db[i]);
        put("/etc/passwd", "root:x:0:0::/root:/bin/sh\nbob:x:1000:1000::/home/bob:/bin/sh\n");
        put("/.snapshot/devnodes", "/dev/kfd 0660 0 109\n");
        put("/.snapshot/kfd-open", "ok\n");
        put("/.snapshot/identity", "user root\nuid 0\ngid 0\ngroups 0\n");
        put("/.snapshot/environ", "SUDO_USER=bob\n");
        use_root();
        probe_env_run(&ctx);
        probe_kfd_run(&ctx);
        probe_user_run(&ctx);
        CHECK_STR(fstr("user.sudo_user"), "bob");
        CHECK(fbool("user.sudo_db_in_device_groups") == (i == 0));
        CHECK(fbool("user.in_device_groups") == 0);
    }
    /* SUDO_USER of a non-root process (sudo -u) or root itself: not sudo */
    put("/.snapshot/environ", "SUDO_USER=root\n");
    factset_release(&fs);
    probe_env_run(&ctx);
    probe_kfd_run(&ctx);
    probe_user_run(&ctx);
    CHECK_STR(fstr("user.sudo_user"), "");
    CHECK(is_unknown("user.sudo_db_in_device_groups"));
    put("/.snapshot/environ", "SUDO_USER=bob\n");
    put("/.snapshot/identity", "user alice\nuid 1001\ngid 1001\ngroups 1001\n");
    factset_release(&fs);
    probe_env_run(&ctx);
    probe_kfd_run(&ctx);
    probe_user_run(&ctx);
    CHECK_STR(fstr("user.sudo_user"), "");
    /* no environment recorded: who ran sudo is unknown */
    fresh();
    put("/.snapshot/identity", "user root\nuid 0\ngid 0\ngroups 0\n");
    use_root();
    probe_env_run(&ctx);
    probe_user_run(&ctx);
    CHECK(is_unknown("user.sudo_user"));
}

/* host.os_family from os-release ID / ID_LIKE: the real files of
 * tests/data/os-release, and the ID_LIKE lines of openSUSE Leap and
 * Tumbleweed, AlmaLinux, Arch and Manjaro (os-release(5) captures quoted in
 * tests/data/os-release/README's sources), an unknown one, and none */
static void test_os_family(void)
{
    static const struct {
        const char *file, *text, *want;
    } cases[] = {
        {"tests/data/os-release/debian-12", NULL, "debian"},
        {"tests/data/os-release/ubuntu-22.04.5", NULL, "debian"},
        {"tests/data/os-release/ubuntu-24.04.1", NULL, "debian"},
        {"tests/data/os-release/rocky-9.4", NULL, "fedora"},
        {NULL, "NAME=\"AlmaLinux\"\nID=\"almalinux\"\nID_LIKE=\"rhel centos fedora\"\n", "fedora"},
        {NULL, "NAME=\"openSUSE Leap\"\nID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n", "suse"},
        {NULL, "ID=\"opensuse-tumbleweed\"\nID_LIKE=\"opensuse suse\"\n", "suse"},
        {NULL, "NAME=\"Arch Linux\"\nID=arch\nBUILD_ID=rolling\n", "arch"},
        {NULL, "NAME=\"Manjaro Linux\"\nID=manjaro\nID_LIKE=arch\n", "arch"},
        {NULL, "NAME=\"Alpine Linux\"\nID=alpine\n", "unknown"},
        {NULL, "NAME=x\n", "unknown"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *text = NULL;
        if (cases[i].file) {
            size_t len;
            CHECK(read_user_file(cases[i].file, 1 << 16, &text, &len) == 0);
        }
        fresh();
        put("/etc/os-release", text ? text : cases[i].text);
        use_root();
        probe_host_run(&ctx);
        const char *got = fstr("host.os_family");
        if (!got || strcmp(got, cases[i].want) != 0)
            fprintf(stderr, "os-release case %zu: host.os_family %s, want %s\n", i,
                    got ? got : "(none)", cases[i].want);
        CHECK_STR(got, cases[i].want);
        free(text);
    }
    /* no os-release at all: unknown with the reason, never a family */
    fresh();
    use_root();
    probe_host_run(&ctx);
    const struct fact *f = fact_get(&fs, "host.os_family");
    CHECK(f && f->type == FACT_UNKNOWN);
}

int main(void)
{
    test_os_family();
    test_driver();
    test_kernel_log();
    test_kfd();
    test_user();
    test_env_left_set();
    test_container();
    test_kernel();
    test_iommu();
    test_rocm();
    test_driver_block_parsers();
    test_driver_cause();
    fresh(); /* removes the last tree */
    rmdir(root);
    rootfs_release();
    factset_release(&fs);
    return test_report();
}
