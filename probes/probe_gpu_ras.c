/* probe_gpu_ras.c - per-GPU RAS facts from amdgpu's ras/ directory in the
 * PCI device directory (= /sys/class/drm/cardN/device/ras): every
 * <block>_err_count, gpu_vram_bad_pages and, for the bad-page threshold,
 * /sys/module/amdgpu/parameters/bad_page_threshold. Formats and kernel
 * sources: ras_parse.h. The counters are kept per family because the advice
 * differs: a memory (UMC) error is handled by retiring the page, an engine
 * (GFX, SDMA, MMHUB, ...) error by a GPU reset, a link error by the link. */
#include "gpu_pci.h"
#include "ras_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARAM "/sys/module/amdgpu/parameters/bad_page_threshold"

/* a sum over some blocks: known when every block was read, or when the
 * blocks read already give a nonzero count (a lower bound answers "> 0") */
struct ras_sum {
    int64_t v;
    int blocks, unread, saturated;
};

static void sum_add(struct ras_sum *s, int64_t v, int ok)
{
    s->blocks++;
    if (ok)
        s->v = i64_add_sat(s->v, v, &s->saturated);
    else
        s->unread++;
}

static void sum_fact(struct factset *fs, int gpu, const char *fact, const struct ras_sum *s,
                     const char *dir, const char *none, const char *why_unread)
{
    char fn[FACT_NAME_MAX];
    fact_gpu_name(fn, gpu, fact);
    if (s->blocks == 0)
        fact_set_unknown(fs, fn, dir, "%s", none);
    else if (s->unread && s->v == 0)
        fact_set_unknown(fs, fn, dir, "%d of %d counters unreadable: %s", s->unread, s->blocks,
                         why_unread);
    else if (s->saturated) { /* the fact says so where its source is shown */
        char src[160];
        snprintf(src, sizeof(src), "%s (the sum passed 2^63-1: held there)", dir);
        fact_set_int(fs, fn, s->v, src);
        warning("%s: the RAS counters' sum passes 2^63-1; %s is held at that value", dir, fn);
    } else {
        fact_set_int(fs, fn, s->v, dir);
    }
}

static void bad_page_facts(struct factset *fs, int gpu, const char *dir)
{
    char fn[FACT_NAME_MAX], src[128], *text;
    snprintf(src, sizeof(src), "%s/gpu_vram_bad_pages", dir);
    static const char *const facts[] = {"ras_pages_retired", "ras_pages_pending",
                                        "ras_pages_failed"};
    int rc = rootfs_read_str(src, &text);
    struct ras_pages pg;
    if (rc == 0 && ras_parse_bad_pages(text, &pg) == 0) {
        int64_t v[] = {pg.reserved, pg.pending, pg.failed};
        for (int i = 0; i < 3; i++)
            fact_set_int(fs, fact_gpu_name(fn, gpu, facts[i]), v[i], src);
    } else {
        for (int i = 0; i < 3; i++) {
            fact_gpu_name(fn, gpu, facts[i]);
            if (rc == -ENOENT)
                fact_set_unknown(fs, fn, src,
                                 "no gpu_vram_bad_pages: bad page retirement is off "
                                 "(amdgpu.bad_page_threshold=0) or the GPU has no memory RAS");
            else if (rc)
                fact_set_errno(fs, fn, src, rc);
            else
                fact_set_unknown(fs, fn, src,
                                 "line %d is not the kernel's \"0x%%08x : 0x%%08x : R|P|F\"",
                                 pg.bad_line);
        }
    }
    if (rc == 0)
        free(text);

    /* the threshold the driver compares the retired pages with */
    int64_t param, vram;
    const struct fact *vf = fact_get(fs, fact_gpu_name(fn, gpu, "vram_bytes"));
    int prc = rootfs_readf_i64(&param, "%s", PARAM);
    if (prc == 0)
        fact_set_int(fs, fact_gpu_name(fn, gpu, "ras_page_threshold_param"), param, PARAM);
    else
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "ras_page_threshold_param"), PARAM, prc);
    fact_gpu_name(fn, gpu, "ras_page_threshold");
    if (prc)
        fact_set_errno(fs, fn, PARAM, prc);
    else if (param < 0 && !(vf && vf->type == FACT_INT))
        fact_set_unknown(fs, fn, PARAM, "the threshold follows the VRAM size, which is unknown");
    else if ((vram = param < 0 ? vf->i : 0), ras_page_threshold(param, vram) == 0)
        fact_set_unknown(fs, fn, PARAM, "bad page retirement is off (bad_page_threshold=0)");
    else
        fact_set_int(fs, fn, ras_page_threshold(param, vram), PARAM);
}

void gp_ras_facts(struct factset *fs, int gpu, const char *bdf)
{
    char fn[FACT_NAME_MAX], dir[96];
    struct strlist ents = STRLIST_INIT, ue_blocks = STRLIST_INIT, ce_blocks = STRLIST_INIT,
                   unread = STRLIST_INIT;
    snprintf(dir, sizeof(dir), GP_PCI_DEVICES "/%s/ras", bdf);
    int rc = rootfs_list(dir, &ents);
    struct ras_sum ue = {0}, ce = {0}, de = {0}, umc_ue = {0}, umc_ce = {0}, engine = {0},
                   link = {0};
    int inaccessible = 0, malformed = 0, last_err = 0;
    for (size_t i = 0; rc == 0 && i < ents.n; i++) {
        const char *name = ents.v[i];
        if (!str_ends(name, "_err_count"))
            continue;
        char block[64];
        snprintf(block, sizeof(block), "%.*s", (int)(strlen(name) - strlen("_err_count")), name);
        char *text;
        struct ras_count c = {-1, -1, -1};
        int r = rootfs_readf_str(&text, "%s/%s", dir, name);
        enum ras_count_rc pr = RAS_COUNT_BAD;
        if (r == 0) {
            pr = ras_parse_count(text, &c);
            free(text);
        } else {
            last_err = r; /* a block whose query fails reads -EINVAL */
        }
        inaccessible += pr == RAS_COUNT_INACCESSIBLE;
        malformed += r == 0 && pr == RAS_COUNT_BAD;
        int ok = pr == RAS_COUNT_OK;
        if (!ok)
            strlist_add_owned(&unread, xasprintf("%s: %s", block,
                                                 r ? strerror(-r)
                                                 : pr == RAS_COUNT_INACCESSIBLE
                                                     ? "Query currently inaccessible"
                                                     : "not the kernel's format"));
        sum_add(&ue, c.ue, ok);
        sum_add(&ce, c.ce, ok);
        if (!ok || c.de >= 0)
            sum_add(&de, c.de, ok);
        enum ras_family fam = ras_block_family(block);
        if (fam == RAS_MEMORY) {
            sum_add(&umc_ue, c.ue, ok);
            sum_add(&umc_ce, c.ce, ok);
        } else
            sum_add(fam == RAS_LINK ? &link : &engine, c.ue, ok);
        if (ok && c.ue > 0)
            strlist_add_owned(&ue_blocks, xasprintf("%s %lld", block, (long long)c.ue));
        if (ok && c.ce > 0)
            strlist_add_owned(&ce_blocks, xasprintf("%s %lld", block, (long long)c.ce));
    }
    strlist_release(&ents);

    static const char *const all[] = {"ras_present",
                                      "ras_ue",
                                      "ras_ce",
                                      "ras_de",
                                      "ras_umc_ue",
                                      "ras_umc_ce",
                                      "ras_engine_ue",
                                      "ras_link_ue",
                                      "ras_ue_blocks",
                                      "ras_ce_blocks",
                                      "ras_pages_retired",
                                      "ras_pages_pending",
                                      "ras_pages_failed",
                                      "ras_page_threshold",
                                      "ras_page_threshold_param"};
    if (rc && rc != -ENOENT) {
        for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
            fact_set_errno(fs, fact_gpu_name(fn, gpu, all[i]), dir, rc);
        goto out;
    }
    fact_set_bool(fs, fact_gpu_name(fn, gpu, "ras_present"), ue.blocks > 0, dir);
    if (ue.blocks == 0) {
        for (size_t i = 1; i < sizeof(all) / sizeof(all[0]); i++)
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, all[i]), dir,
                             "no RAS counters on this GPU");
        goto out;
    }
    char why[160];
    if (inaccessible)
        snprintf(why, sizeof(why),
                 "the driver answers \"Query currently inaccessible\" (a GPU reset or RAS "
                 "recovery in progress)");
    else if (malformed)
        snprintf(why, sizeof(why), "not the kernel's \"ue: N\" / \"ce: N\" lines");
    else
        snprintf(why, sizeof(why), "%s", strerror(last_err ? -last_err : EIO));
    sum_fact(fs, gpu, "ras_ue", &ue, dir, "no RAS counters on this GPU", why);
    sum_fact(fs, gpu, "ras_ce", &ce, dir, "no RAS counters on this GPU", why);
    sum_fact(fs, gpu, "ras_de", &de, dir,
             "no \"de:\" line (kernels before 6.8 count no deferred errors)", why);
    sum_fact(fs, gpu, "ras_umc_ue", &umc_ue, dir, "no umc_err_count (memory RAS off)", why);
    sum_fact(fs, gpu, "ras_umc_ce", &umc_ce, dir, "no umc_err_count (memory RAS off)", why);
    sum_fact(fs, gpu, "ras_engine_ue", &engine, dir, "no engine block has RAS counters", why);
    sum_fact(fs, gpu, "ras_link_ue", &link, dir, "no xgmi_wafl or pcie_bif counters", why);
    fact_set_list(fs, fact_gpu_name(fn, gpu, "ras_ue_blocks"), &ue_blocks, dir);
    fact_set_list(fs, fact_gpu_name(fn, gpu, "ras_ce_blocks"), &ce_blocks, dir);
    fact_set_list(fs, fact_gpu_name(fn, gpu, "ras_unreadable"), &unread, dir);
    bad_page_facts(fs, gpu, dir);
out:
    strlist_release(&ue_blocks);
    strlist_release(&ce_blocks);
    strlist_release(&unread);
}
