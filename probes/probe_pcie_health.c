/* probe_pcie_health.c - error counters and link power states along each
 * GPU's PCIe path (probe_pcie.c walks the path and calls gp_health_facts).
 *
 * AER: the PCI core's aer_dev_correctable / aer_dev_nonfatal /
 * aer_dev_fatal files (drivers/pci/pcie/aer.c, kernels >= 4.17 with
 * CONFIG_PCIEAER and AER granted to the OS by firmware) hold one "NAME
 * count" line per error bit and a TOTAL_ERR_COR / TOTAL_ERR_NONFATAL /
 * TOTAL_ERR_FATAL line, counted since boot. amdgpu's pcie_replay_count is
 * the GPU's own count of link-layer replays (a TLP resent after a bad
 * DLLP/TLP or a timeout). ASPM: the kernel's policy in
 * /sys/module/pcie_aspm/parameters/policy ("[default] performance ...", the
 * bracketed one in force) and each link's state in <device>/link/
 * (l0s_aspm, l1_aspm, l1_1_aspm, l1_2_aspm, l1_1_pcipm, l1_2_pcipm: "0"/"1",
 * kernels >= 5.5; absent otherwise, and then the state is unknown). */
#include "gpu_pci.h"
#include "tuning.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gp_aer_parse(const char *text, const char *total_name, int64_t *total, struct strlist *nonzero)
{
    int found = 0;
    struct strlist lines = STRLIST_INIT;
    strlist_split(&lines, text, "\n");
    for (size_t i = 0; i < lines.n; i++) {
        char name[64];
        long long v;
        char extra;
        if (sscanf(lines.v[i], "%63s %lld %c", name, &v, &extra) != 2 || v < 0)
            continue;
        if (strcmp(name, total_name) == 0) {
            *total = v;
            found = 1;
        } else if (v > 0 && nonzero && strncmp(name, "TOTAL_", 6) != 0) {
            strlist_add_owned(nonzero, xasprintf("%s %lld", name, v));
        }
    }
    strlist_release(&lines);
    return found ? 0 : -EINVAL;
}

/* ---- AER ------------------------------------------------------------------ */

static const struct {
    const char *file, *total, *fact, *word;
} aer_kinds[] = {
    {"aer_dev_correctable", "TOTAL_ERR_COR", "aer.correctable", "correctable"},
    {"aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", "aer.nonfatal", "nonfatal"},
    {"aer_dev_fatal", "TOTAL_ERR_FATAL", "aer.fatal", "fatal"},
};

static void aer_facts(struct factset *fs, int gpu, const struct pci_hop *h, size_t n)
{
    char fn[FACT_NAME_MAX];
    int64_t sum[ARRAY_SIZE(aer_kinds)] = {0};
    int hops_read = 0;
    struct strlist errors = STRLIST_INIT, hops = STRLIST_INIT;
    for (size_t k = 0; k < n; k++) {
        int read_here = 0;
        struct strbuf line = STRBUF_INIT;
        strbuf_addf(&line, "%s [%04x:%04x]:", h[k].bdf, h[k].vendor, h[k].device);
        for (size_t a = 0; a < ARRAY_SIZE(aer_kinds); a++) {
            char *text;
            if (rootfs_readf_str(&text, GP_PCI_DEVICES "/%s/%s", h[k].bdf, aer_kinds[a].file))
                continue;
            int64_t total = 0;
            struct strlist nz = STRLIST_INIT;
            if (gp_aer_parse(text, aer_kinds[a].total, &total, &nz) == 0) {
                read_here = 1;
                sum[a] += total;
                strbuf_addf(&line, " %s %lld", aer_kinds[a].word, (long long)total);
                for (size_t e = 0; e < nz.n; e++)
                    strlist_add_owned(&errors,
                                      xasprintf("%s [%04x:%04x] %s %s", h[k].bdf, h[k].vendor,
                                                h[k].device, aer_kinds[a].word, nz.v[e]));
            }
            strlist_release(&nz);
            free(text);
        }
        hops_read += read_here;
        /* one line per hop that has AER files: the per-hop totals */
        if (read_here)
            strlist_add_owned(&hops, strbuf_detach(&line));
        else
            strbuf_release(&line);
    }
    char src[96];
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/<path>/aer_dev_*");
    for (size_t a = 0; a < ARRAY_SIZE(aer_kinds); a++) {
        const char *name = fact_gpu_name(fn, gpu, aer_kinds[a].fact);
        if (hops_read)
            fact_set_int(fs, name, sum[a], src);
        else
            fact_set_unknown(fs, name, src,
                             "no hop of the path has readable aer_dev_* files (kernel without "
                             "CONFIG_PCIEAER, older than 4.17, or AER kept by the firmware)");
    }
    if (hops_read) {
        fact_set_list(fs, fact_gpu_name(fn, gpu, "aer.errors"), &errors, src);
        fact_set_list(fs, fact_gpu_name(fn, gpu, "aer.hops"), &hops, src);
        fact_set_int(fs, fact_gpu_name(fn, gpu, "aer.hops_read"), hops_read, src);
    } else {
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "aer.errors"), src, "no AER files");
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "aer.hops"), src, "no AER files");
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "aer.hops_read"), src, "no AER files");
    }
    strlist_release(&errors);
    strlist_release(&hops);
}

/* ---- ASPM ----------------------------------------------------------------- */

static const struct {
    const char *file, *label;
} aspm_files[] = {
    {"l0s_aspm", "L0s"},   {"l1_aspm", "L1"},         {"l1_1_aspm", "L1.1"},
    {"l1_2_aspm", "L1.2"}, {"l1_1_pcipm", "L1.1-PM"}, {"l1_2_pcipm", "L1.2-PM"},
};

/* the enabled states of one hop's link: 0 and the labels, -ENOENT without
 * link/ files */
static int aspm_states(const char *bdf, struct strlist *on)
{
    int any = 0;
    for (size_t i = 0; i < ARRAY_SIZE(aspm_files); i++) {
        uint64_t v;
        if (rootfs_readf_u64(&v, GP_PCI_DEVICES "/%s/link/%s", bdf, aspm_files[i].file))
            continue;
        any = 1;
        /* a search is fine: at most ARRAY_SIZE(aspm_files) labels */
        if (v && !strlist_has(on, aspm_files[i].label))
            strlist_add(on, aspm_files[i].label);
    }
    return any ? 0 : -ENOENT;
}

static void aspm_facts(struct factset *fs, int gpu, const struct pci_hop *h, size_t n, size_t slot)
{
    char fn[FACT_NAME_MAX];
    struct strlist links = STRLIST_INIT, gpu_on = STRLIST_INIT;
    int gpu_known = 0;
    for (size_t k = 0; k < n; k++) {
        struct strlist on = STRLIST_INIT;
        if (aspm_states(h[k].bdf, &on) == 0) {
            struct strbuf sb = STRBUF_INIT;
            strbuf_addf(&sb, "%s [%04x:%04x]:", h[k].bdf, h[k].vendor, h[k].device);
            for (size_t i = 0; i < on.n; i++)
                strbuf_addf(&sb, " %s", on.v[i]);
            if (!on.n)
                strbuf_adds(&sb, " off");
            strlist_add_owned(&links, strbuf_detach(&sb));
            /* the GPU's links: its own and, for Navi, the slot's at the
             * on-card switch */
            if (k == n - 1 || k == slot) {
                gpu_known = 1;
                for (size_t i = 0; i < on.n; i++) /* a few ASPM labels: a search */
                    if (!strlist_has(&gpu_on, on.v[i]))
                        strlist_add(&gpu_on, on.v[i]);
            }
        }
        strlist_release(&on);
    }
    const char *src = GP_PCI_DEVICES "/<path>/link/*_aspm";
    fact_set_list(fs, fact_gpu_name(fn, gpu, "aspm.links"), &links, src);
    if (gpu_known) {
        fact_set_list(fs, fact_gpu_name(fn, gpu, "aspm.gpu_link_states"), &gpu_on, src);
        fact_set_bool(fs, fact_gpu_name(fn, gpu, "aspm.gpu_link_on"),
                      strlist_has(&gpu_on, "L0s") || strlist_has(&gpu_on, "L1"), src);
    } else {
        const char *why = "the GPU's link has no link/*_aspm files (kernel older than 5.5, or "
                          "ASPM not supported on this link)";
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "aspm.gpu_link_states"), src, "%s", why);
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "aspm.gpu_link_on"), src, "%s", why);
    }
    strlist_release(&links);
    strlist_release(&gpu_on);
}

void gp_aspm_policy_fact(struct factset *fs)
{
    const char *path = "/sys/module/pcie_aspm/parameters/policy";
    char *text, buf[32];
    int rc = rootfs_read_str(path, &text);
    if (rc) {
        fact_set_errno(fs, "pcie.aspm_policy", path, rc);
        return;
    }
    if (tn_bracketed(text, buf, sizeof(buf)) == 0)
        fact_set_str(fs, "pcie.aspm_policy", buf, path);
    else
        fact_set_unknown(fs, "pcie.aspm_policy", path, "no [bracketed] entry in '%s'", text);
    free(text);
}

void gp_health_facts(struct factset *fs, int gpu, const char *bdf, const struct pci_hop *h,
                     size_t n, size_t slot)
{
    char fn[FACT_NAME_MAX];
    static const char *const names[] = {
        "aer.correctable", "aer.nonfatal",  "aer.fatal",  "aer.errors",
        "aer.hops",        "aer.hops_read", "aspm.links", "aspm.gpu_link_states",
        "aspm.gpu_link_on"};
    if (!h) {
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, names[i]), GP_PCI_DEVICES,
                             "no PCI path to %s", bdf);
    } else {
        aer_facts(fs, gpu, h, n);
        aspm_facts(fs, gpu, h, n, slot);
    }
    char path[128];
    uint64_t v;
    snprintf(path, sizeof(path), GP_PCI_DEVICES "/%s/pcie_replay_count", bdf);
    int rc = rootfs_readf_u64(&v, "%s", path);
    if (rc == 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "pcie_replay_count"), (int64_t)v, path);
    else
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "pcie_replay_count"), path, rc);
}
