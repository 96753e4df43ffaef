/* probe_tuning.c - host settings that AMD's node health checks (rdhc) and
 * tuning guides look at: automatic NUMA balancing, the locked-memory limit
 * of the process, pci=realloc on the command line, transparent hugepages
 * and the CPU frequency governor.
 *
 * The memlock limit is a property of this process, not a file: a query
 * ("limits", getrlimit(RLIMIT_MEMLOCK) on a live host, /.snapshot/limits
 * under --sysroot), so a snapshot replays the limit of the run that
 * recorded it. */
#include "probe.h"
#include "../src/core/strset.h"
#include "tuning.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int probe_tuning_run(struct probe_ctx *ctx);

#define CPU_DIR "/sys/devices/system/cpu"
#define THP_FILE "/sys/kernel/mm/transparent_hugepage/enabled"

int tn_bracketed(const char *text, char *buf, size_t n)
{
    const char *open = strchr(text, '[');
    const char *close = open ? strchr(open, ']') : NULL;
    if (!close || close == open + 1 || (size_t)(close - open) > n)
        return -EINVAL;
    snprintf(buf, n, "%.*s", (int)(close - open - 1), open + 1);
    return 0;
}

int tn_memlock_parse(const char *text, int64_t *bytes)
{
    const char *p = strstr(text, "memlock_soft ");
    if (!p || (p != text && p[-1] != '\n'))
        return -EINVAL;
    p += strlen("memlock_soft ");
    if (str_starts(p, "unlimited") && (p[9] == '\n' || p[9] == '\0')) {
        *bytes = -1;
        return 0;
    }
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || (*end != '\n' && *end != '\0') || errno || v < 0 || *p == '-')
        return -EINVAL;
    *bytes = v;
    return 0;
}

int tn_cmdline_pci_realloc(const char *cmdline)
{
    int on = 0;
    struct strlist words = STRLIST_INIT;
    strlist_split(&words, cmdline, " \t\n");
    for (size_t i = 0; i < words.n; i++) {
        if (strcmp(words.v[i], "--") == 0)
            break; /* the rest belongs to init */
        if (!str_starts(words.v[i], "pci="))
            continue;
        struct strlist opts = STRLIST_INIT;
        strlist_split(&opts, words.v[i] + 4, ",");
        for (size_t j = 0; j < opts.n; j++) {
            if (strcmp(opts.v[j], "realloc") == 0 || strcmp(opts.v[j], "realloc=on") == 0)
                on = 1;
            else if (strcmp(opts.v[j], "realloc=off") == 0)
                on = 0;
        }
        strlist_release(&opts);
    }
    strlist_release(&words);
    return on;
}

int tn_powersave_pins_min(const char *driver)
{
    return strcmp(driver, "intel_pstate") != 0 && strcmp(driver, "amd-pstate-epp") != 0;
}

static int limits_live(struct strbuf *out)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl))
        return -errno;
    if (rl.rlim_cur == RLIM_INFINITY)
        strbuf_adds(out, "memlock_soft unlimited\n");
    else
        strbuf_addf(out, "memlock_soft %llu\n", (unsigned long long)rl.rlim_cur);
    if (rl.rlim_max == RLIM_INFINITY)
        strbuf_adds(out, "memlock_hard unlimited\n");
    else
        strbuf_addf(out, "memlock_hard %llu\n", (unsigned long long)rl.rlim_max);
    return 0;
}

static void memlock_facts(struct factset *fs)
{
    char *text;
    const char *src = "getrlimit(RLIMIT_MEMLOCK)";
    static const char *const names[] = {"host.memlock_unlimited", "host.memlock_bytes",
                                        "host.memlock_limit"};
    int rc = rootfs_query("limits", limits_live, &text);
    if (rc) {
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
            fact_set_errno(fs, names[i], src, rc);
        return;
    }
    int64_t b;
    if (tn_memlock_parse(text, &b)) {
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
            fact_set_unknown(fs, names[i], src, "no memlock_soft line in the answer");
    } else if (b < 0) {
        fact_set_bool(fs, "host.memlock_unlimited", 1, src);
        fact_set_unknown(fs, "host.memlock_bytes", src, "unlimited");
        fact_set_str(fs, "host.memlock_limit", "unlimited", src);
    } else {
        char *t = xasprintf("%.1f MiB", (double)b / (1 << 20));
        fact_set_bool(fs, "host.memlock_unlimited", 0, src);
        fact_set_int(fs, "host.memlock_bytes", b, src);
        fact_set_str(fs, "host.memlock_limit", t, src);
        free(t);
    }
    free(text);
}

static void choice_fact(struct factset *fs, const char *path, const char *fact)
{
    char *text, word[32];
    int rc = rootfs_read_str(path, &text);
    if (rc) {
        fact_set_errno(fs, fact, path, rc);
        return;
    }
    if (tn_bracketed(text, word, sizeof(word)) == 0)
        fact_set_str(fs, fact, word, path);
    else
        fact_set_unknown(fs, fact, path, "no [bracketed] choice in '%s'", text);
    free(text);
}

static int is_cpu_dir(const char *name)
{
    return str_starts(name, "cpu") && name[3] && strspn(name + 3, "0123456789") == strlen(name + 3);
}

static void governor_facts(struct factset *fs)
{
    struct strlist cpus = STRLIST_INIT, govs = STRLIST_INIT;
    struct strset govs_set = STRSET_INIT; /* one entry per CPU at worst */
    const char *src = CPU_DIR "/cpu*/cpufreq/scaling_governor";
    int rc = rootfs_list(CPU_DIR, &cpus);
    int pins = 0, read = 0;
    for (size_t i = 0; rc == 0 && i < cpus.n; i++) {
        if (!is_cpu_dir(cpus.v[i]))
            continue;
        char *gov, *drv = NULL;
        if (rootfs_readf_str(&gov, CPU_DIR "/%s/cpufreq/scaling_governor", cpus.v[i]))
            continue;
        read++;
        if (rootfs_readf_str(&drv, CPU_DIR "/%s/cpufreq/scaling_driver", cpus.v[i]))
            drv = xstrdup("unknown driver");
        char *g = str_trim(gov), *d = str_trim(drv);
        strlist_add_unique_owned(&govs, &govs_set, xasprintf("%s (%s)", g, d));
        if (strcmp(g, "powersave") == 0 && tn_powersave_pins_min(d))
            pins = 1;
        free(gov);
        free(drv);
    }
    if (read) {
        fact_set_list(fs, "cpu.governors", &govs, src);
        fact_set_bool(fs, "cpu.governor_pins_min", pins, src);
    } else {
        const char *why = rc ? "cannot list " CPU_DIR
                             : "no CPU has cpufreq/scaling_governor (no frequency scaling driver; "
                               "common in VMs)";
        fact_set_unknown(fs, "cpu.governors", src, "%s", why);
        fact_set_unknown(fs, "cpu.governor_pins_min", src, "%s", why);
    }
    strlist_release(&cpus);
    strlist_release(&govs);
    strset_release(&govs_set);
}

/* what decides a periodic control thread's scheduling jitter (issue 36):
 * SMT (a sibling thread shares the core), and the CPUs the kernel keeps
 * the scheduler (isolcpus) and its tick (nohz_full) off; each file's text
 * as the kernel writes it, "" for none ("(null)" in nohz_full) */
static void rt_facts(struct factset *fs)
{
    static const struct {
        const char *path, *fact;
    } lists[] = {{CPU_DIR "/isolated", "host.isolated_cpus"},
                 {CPU_DIR "/nohz_full", "host.nohz_full_cpus"}};
    for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
        char *t;
        int rc = rootfs_read_str(lists[i].path, &t);
        /* nohz_full exists only in a kernel built with CONFIG_NO_HZ_FULL:
         * absent, no CPU can be tickless */
        if (rc == -ENOENT && i == 1) {
            fact_set_str(fs, lists[i].fact, "",
                         CPU_DIR "/nohz_full (absent: no CONFIG_NO_HZ_FULL)");
            continue;
        }
        if (rc) {
            fact_set_errno(fs, lists[i].fact, lists[i].path, rc);
            continue;
        }
        char *v = str_trim(t);
        fact_set_str(fs, lists[i].fact, strcmp(v, "(null)") ? v : "", lists[i].path);
        free(t);
    }
    int64_t smt;
    int rc = rootfs_readf_i64(&smt, CPU_DIR "/smt/active");
    if (rc == 0)
        fact_set_bool(fs, "host.smt_active", smt != 0, CPU_DIR "/smt/active");
    else
        fact_set_errno(fs, "host.smt_active", CPU_DIR "/smt/active", rc);
}

int probe_tuning_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    int64_t v;
    int rc = rootfs_readf_i64(&v, "/proc/sys/kernel/numa_balancing");
    if (rc == 0)
        fact_set_int(fs, "kernel.numa_balancing", v, "/proc/sys/kernel/numa_balancing");
    else
        fact_set_errno(fs, "kernel.numa_balancing", "/proc/sys/kernel/numa_balancing", rc);
    memlock_facts(fs);
    choice_fact(fs, THP_FILE, "kernel.thp_enabled");
    governor_facts(fs);
    rt_facts(fs);
    const struct fact *cl = fact_get(fs, "kernel.cmdline");
    if (cl && cl->type == FACT_STR)
        fact_set_bool(fs, "kernel.pci_realloc", tn_cmdline_pci_realloc(cl->s), "/proc/cmdline");
    else
        fact_set_unknown(fs, "kernel.pci_realloc", "/proc/cmdline", "kernel.cmdline is unknown");
    return 0;
}
