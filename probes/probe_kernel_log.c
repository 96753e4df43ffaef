/* probe_kernel_log.c - known GPU failure signatures in the kernel log.
 *
 * The live producer reads the log with klogctl() (no dmesg binary, no shell)
 * and strips the "<level>" prefixes, so a snapshot's .snapshot/dmesg is plain
 * dmesg output. When kernel.dmesg_restrict forbids reading, the refusal is a
 * fact of its own and every signature is unknown, never false. */
#include "driver_block.h"
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

/* A line matches when it contains every non-NULL needle. One row per way a
 * signature is printed; several rows may share an id. */
static const struct signature {
    const char *id;
    const char *needle, *needle2;
} signatures[] = {
    {"atomics_unsupported", "PCIE atomic ops is not supported", NULL},
    {"pci_rejects_atomics", "skipped device", "PCI rejects atomics"},
    {"gpu_page_fault", "amdgpu", "page fault"},
    {"memory_access_fault", "Memory access fault by GPU", NULL},
    {"kfd_unsupported", "kfd not supported on this ASIC", NULL},
    {"key_rejected", "Key was rejected by service", NULL},
    /* Secure Boot / lockdown refusing an unsigned module (kernel/module/signing.c) */
    {"module_rejected", "Loading of unsigned module is rejected", NULL},
    {"module_rejected", "Lockdown:", "unsigned module loading is restricted"},
    /* request_firmware() and amdgpu's own messages when a file is missing */
    {"firmware_failed", "Direct firmware load for amdgpu/", "failed"},
    {"firmware_failed", "amdgpu", "Failed to load gpu_info firmware"},
    {"firmware_failed", "amdgpu", "failed to load firmware"},
    /* the driver core when amdgpu's probe of a device fails */
    {"probe_failed", "amdgpu", "probe with driver amdgpu failed"},
    {"probe_failed", "amdgpu: probe of", "failed with error"},
    {"hmm_registered", "HMM registered", NULL},
};

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

static int sig_matches(const struct signature *sig, const char *line)
{
    return strstr(line, sig->needle) && (!sig->needle2 || strstr(line, sig->needle2));
}

static void set_all_unknown(struct factset *fs, const char *reason)
{
    char name[FACT_NAME_MAX];
    for (size_t i = 0; i < ARRAY_SIZE(signatures); i++) {
        snprintf(name, sizeof(name), "kernel.dmesg.%s", signatures[i].id);
        fact_set_unknown(fs, name, "kernel log", "%s", reason);
    }
    fact_set_unknown(fs, "kernel.dmesg.line_count", "kernel log", "%s", reason);
    fact_set_unknown(fs, "kernel.dmesg.signatures", "kernel log", "%s", reason);
    fact_set_unknown(fs, "kernel.dmesg.lines", "kernel log", "%s", reason);
    fact_set_unknown(fs, "kernel.dmesg.firmware_files", "kernel log", "%s", reason);
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
    int found[ARRAY_SIZE(signatures)] = {0};
    struct strlist lines = STRLIST_INIT, matched = STRLIST_INIT, ids = STRLIST_INIT;
    strlist_split(&lines, text, "\n");
    struct strlist fw = STRLIST_INIT;
    db_firmware_failed(text, &fw);
    fact_set_list(fs, "kernel.dmesg.firmware_files", &fw, src);
    strlist_release(&fw);
    free(text);
    for (size_t l = 0; l < lines.n; l++) {
        for (size_t i = 0; i < ARRAY_SIZE(signatures); i++) {
            if (!sig_matches(&signatures[i], lines.v[l]))
                continue;
            found[i] = 1;
            if (matched.n < MAX_LINES)
                strlist_add_owned(&matched,
                                  xasprintf("%s: %s", signatures[i].id, str_trim(lines.v[l])));
        }
    }
    char name[FACT_NAME_MAX];
    for (size_t i = 0; i < ARRAY_SIZE(signatures); i++) {
        /* rows sharing an id: the id is found if any row matched */
        int any = 0;
        for (size_t j = 0; j < ARRAY_SIZE(signatures); j++)
            if (found[j] && strcmp(signatures[j].id, signatures[i].id) == 0)
                any = 1;
        snprintf(name, sizeof(name), "kernel.dmesg.%s", signatures[i].id);
        fact_set_bool(fs, name, any, src);
        if (any && !strlist_has(&ids, signatures[i].id))
            strlist_add(&ids, signatures[i].id);
    }
    fact_set_bool(fs, "kernel.dmesg_readable", 1, "klogctl(SYSLOG_ACTION_READ_ALL)");
    fact_set_str(fs, "kernel.dmesg_error", "", "klogctl(SYSLOG_ACTION_READ_ALL)");
    fact_set_int(fs, "kernel.dmesg.line_count", (int64_t)lines.n, src);
    fact_set_list(fs, "kernel.dmesg.signatures", &ids, src);
    fact_set_list(fs, "kernel.dmesg.lines", &matched, src);
    strlist_release(&lines);
    strlist_release(&matched);
    strlist_release(&ids);
    return 0;
}
