/* probe_kernel_log.c - known GPU failure signatures in the kernel log, with
 * how often each was logged since boot and when last (the catalogue of
 * signatures, each with its kernel source: kernel_log_sigs.c).
 *
 * The live producer reads the log with klogctl() (no dmesg binary, no shell)
 * and strips the "<level>" prefixes, so a snapshot's .snapshot/dmesg is plain
 * dmesg output. When kernel.dmesg_restrict forbids reading, the refusal is a
 * fact of its own and every signature is unknown, never false. */
#include "driver_block.h"
#include "kernel_log.h"
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

int probe_kernel_log_run(struct probe_ctx *ctx);

#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10
#define MAX_LINES 20

static int dmesg_live(struct strbuf *out)
{
    int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
    if (size < 0)
        return -errno;
    if (size == 0)
        return 0;
    char *buf = xmalloc((size_t)size + 1);
    int n = klogctl(SYSLOG_ACTION_READ_ALL, buf, size);
    if (n < 0) {
        int e = errno;
        free(buf);
        return -e;
    }
    /* drop the "<6>" priority prefix of each record, as dmesg does */
    for (int i = 0; i < n;) {
        int j = i;
        if (buf[j] == '<') {
            int k = j + 1;
            while (k < n && buf[k] >= '0' && buf[k] <= '9')
                k++;
            if (k < n && k > j + 1 && buf[k] == '>')
                j = k + 1;
        }
        int e = j;
        while (e < n && buf[e] != '\n')
            e++;
        strbuf_add(out, buf + j, (size_t)(e - j));
        strbuf_addc(out, '\n');
        i = e + 1;
    }
    free(buf);
    return 0;
}

/* the distinct ids of the catalogue, in table order */
static void sig_ids(struct strlist *ids)
{
    size_t n;
    const struct kl_signature *sigs = kl_signatures(&n);
    for (size_t i = 0; i < n; i++)
        if (!strlist_has(ids, sigs[i].id))
            strlist_add(ids, sigs[i].id);
}

static void set_all_unknown(struct factset *fs, const char *reason)
{
    char name[FACT_NAME_MAX];
    struct strlist ids = STRLIST_INIT;
    sig_ids(&ids);
    for (size_t i = 0; i < ids.n; i++) {
        snprintf(name, sizeof(name), "kernel.dmesg.%s", ids.v[i]);
        fact_set_unknown(fs, name, "kernel log", "%s", reason);
        snprintf(name, sizeof(name), "kernel.events.%s.count", ids.v[i]);
        fact_set_unknown(fs, name, "kernel log", "%s", reason);
        snprintf(name, sizeof(name), "kernel.events.%s.last", ids.v[i]);
        fact_set_unknown(fs, name, "kernel log", "%s", reason);
    }
    strlist_release(&ids);
    static const char *const rest[] = {"kernel.dmesg.line_count",
                                       "kernel.dmesg.signatures",
                                       "kernel.dmesg.problems",
                                       "kernel.dmesg.lines",
                                       "kernel.dmesg.firmware_files",
                                       "kernel.dmesg.bar_unassigned_devices",
                                       "kernel.dmesg.kfd_unsupported_asics",
                                       "kernel.events",
                                       "kernel.events.fault_processes"};
    for (size_t i = 0; i < ARRAY_SIZE(rest); i++)
        fact_set_unknown(fs, rest[i], "kernel log", "%s", reason);
}

static void refused(struct factset *fs, int rc)
{
    const char *ename = strerrorname_np(-rc);
    char *restrict_val = NULL;
    char *msg;
    if (rc == -EPERM && rootfs_read_str("/proc/sys/kernel/dmesg_restrict", &restrict_val) == 0)
        msg = xasprintf("%s: kernel.dmesg_restrict is %s", ename ? ename : "EPERM", restrict_val);
    else
        msg = xasprintf("%s: %s", ename ? ename : "error", strerror(-rc));
    free(restrict_val);
    fact_set_bool(fs, "kernel.dmesg_readable", 0, "klogctl(SYSLOG_ACTION_READ_ALL)");
    fact_set_str(fs, "kernel.dmesg_error", msg, "klogctl(SYSLOG_ACTION_READ_ALL)");
    set_all_unknown(fs, msg);
    free(msg);
}

/* per id: how often it was logged since boot and when last */
struct sig_tally {
    const char *id;
    int info; /* every row of the id is KL_INFO */
    int64_t count;
    int has_last;
    double last;
};

/* the process a VM fault names on one of the next lines (amdgpu prints it
 * right after the fault line) */
static void fault_process(const struct strlist *lines, size_t l, struct strlist *procs)
{
    for (size_t k = l + 1; k < lines->n && k <= l + 3; k++) {
        char *p;
        if (kl_fault_process(lines->v[k], &p) == 0) {
            if (!strlist_has(procs, p) && procs->n < MAX_LINES)
                strlist_add(procs, p);
            free(p);
            return;
        }
    }
}

/* the devices whose own BAR the PCI core could not assign: the last
 * "failed to assign" or "assigned" line of each BAR decides (pci=realloc
 * may assign on a second pass what the first could not) */
struct bar_state {
    struct strlist keys, devs;
    int *failed;
};

static void bar_line(struct bar_state *b, const char *line)
{
    char *key, *dev;
    int st = kl_bar_event(line, &key, &dev);
    if (!st)
        return;
    size_t i = 0;
    while (i < b->keys.n && strcmp(b->keys.v[i], key) != 0)
        i++;
    if (i == b->keys.n) {
        strlist_add_owned(&b->keys, key);
        strlist_add_owned(&b->devs, dev);
        b->failed = xrealloc(b->failed, b->keys.n * sizeof(*b->failed));
    } else {
        free(key);
        free(dev);
    }
    b->failed[i] = st == 1;
}

static void bar_facts(struct factset *fs, struct bar_state *b)
{
    struct strlist out = STRLIST_INIT;
    for (size_t i = 0; i < b->keys.n; i++)
        if (b->failed[i] && !strlist_has(&out, b->devs.v[i]))
            strlist_add(&out, b->devs.v[i]);
    fact_set_list(fs, "kernel.dmesg.bar_unassigned_devices", &out, "kernel log");
    strlist_release(&out);
    strlist_release(&b->keys);
    strlist_release(&b->devs);
    free(b->failed);
}

static void tally_facts(struct factset *fs, const struct sig_tally *t, size_t nt)
{
    const char *src = "kernel log";
    char name[FACT_NAME_MAX];
    struct strlist ids = STRLIST_INIT, events = STRLIST_INIT, problems = STRLIST_INIT;
    for (size_t i = 0; i < nt; i++) {
        snprintf(name, sizeof(name), "kernel.dmesg.%s", t[i].id);
        fact_set_bool(fs, name, t[i].count > 0, src);
        snprintf(name, sizeof(name), "kernel.events.%s.count", t[i].id);
        fact_set_int(fs, name, t[i].count, src);
        snprintf(name, sizeof(name), "kernel.events.%s.last", t[i].id);
        if (t[i].has_last)
            fact_set_float(fs, name, t[i].last, src);
        else
            fact_set_unknown(fs, name, src, "%s",
                             t[i].count ? "the matching lines carry no [seconds] timestamp"
                                        : "not logged since boot");
        if (!t[i].count)
            continue;
        strlist_add(&ids, t[i].id);
        if (t[i].info)
            continue; /* kernel.events and .problems list problems only */
        strlist_add(&problems, t[i].id);
        if (t[i].has_last)
            strlist_add_owned(&events, xasprintf("%s: %lld time%s, last at %.1f s after boot",
                                                 t[i].id, (long long)t[i].count,
                                                 t[i].count == 1 ? "" : "s", t[i].last));
        else
            strlist_add_owned(&events, xasprintf("%s: %lld time%s", t[i].id, (long long)t[i].count,
                                                 t[i].count == 1 ? "" : "s"));
    }
    fact_set_list(fs, "kernel.dmesg.signatures", &ids, src);
    fact_set_list(fs, "kernel.dmesg.problems", &problems, src);
    fact_set_list(fs, "kernel.events", &events, src);
    strlist_release(&ids);
    strlist_release(&events);
    strlist_release(&problems);
}

int probe_kernel_log_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    char *text;
    int rc = rootfs_query("dmesg", dmesg_live, &text);
    if (rc) {
        refused(fs, rc);
        return 0;
    }
    const char *src = "kernel log";
    size_t nsig;
    const struct kl_signature *sigs = kl_signatures(&nsig);
    struct strlist idl = STRLIST_INIT;
    sig_ids(&idl);
    struct sig_tally *t = xcalloc(idl.n, sizeof(*t));
    for (size_t i = 0; i < idl.n; i++) {
        t[i].id = idl.v[i];
        t[i].info = 1;
        for (size_t j = 0; j < nsig; j++)
            if (strcmp(sigs[j].id, t[i].id) == 0 && sigs[j].severity != KL_INFO)
                t[i].info = 0;
    }
    struct strlist lines = STRLIST_INIT, matched = STRLIST_INIT, procs = STRLIST_INIT;
    struct strlist asics = STRLIST_INIT;
    struct bar_state bars = {STRLIST_INIT, STRLIST_INIT, NULL};
    strlist_split(&lines, text, "\n");
    struct strlist fw = STRLIST_INIT;
    db_firmware_failed(text, &fw);
    fact_set_list(fs, "kernel.dmesg.firmware_files", &fw, src);
    strlist_release(&fw);
    free(text);
    for (size_t l = 0; l < lines.n; l++) {
        bar_line(&bars, lines.v[l]);
        for (size_t i = 0; i < idl.n; i++) {
            /* a line counts once per id, whichever of its rows matched */
            int hit = 0;
            for (size_t j = 0; j < nsig && !hit; j++)
                hit = strcmp(sigs[j].id, t[i].id) == 0 && kl_match(&sigs[j], lines.v[l]);
            if (!hit)
                continue;
            t[i].count++;
            double ts;
            if (kl_timestamp(lines.v[l], &ts) == 0)
                t[i].has_last = 1, t[i].last = ts;
            char *asic;
            if (strcmp(t[i].id, "gpu_page_fault") == 0)
                fault_process(&lines, l, &procs);
            else if (strcmp(t[i].id, "kfd_unsupported") == 0 &&
                     kl_kfd_asic(lines.v[l], &asic) == 0) {
                if (!strlist_has(&asics, asic) && asics.n < MAX_LINES)
                    strlist_add(&asics, asic);
                free(asic);
            }
            if (matched.n < MAX_LINES)
                strlist_add_owned(&matched, xasprintf("%s: %s", t[i].id, str_trim(lines.v[l])));
        }
    }
    tally_facts(fs, t, idl.n);
    fact_set_bool(fs, "kernel.dmesg_readable", 1, "klogctl(SYSLOG_ACTION_READ_ALL)");
    fact_set_str(fs, "kernel.dmesg_error", "", "klogctl(SYSLOG_ACTION_READ_ALL)");
    fact_set_int(fs, "kernel.dmesg.line_count", (int64_t)lines.n, src);
    fact_set_list(fs, "kernel.dmesg.lines", &matched, src);
    fact_set_list(fs, "kernel.events.fault_processes", &procs, src);
    fact_set_list(fs, "kernel.dmesg.kfd_unsupported_asics", &asics, src);
    bar_facts(fs, &bars);
    strlist_release(&asics);
    free(t);
    strlist_release(&idl);
    strlist_release(&lines);
    strlist_release(&matched);
    strlist_release(&procs);
    return 0;
}
