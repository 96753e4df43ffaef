/* test_link_watch.c - the link before and after the GPU probes
 * (probes/probe_link_watch.c): the files change between link_start and
 * link_end the way a link that loses lanes or retrains under load changes
 * them, and the facts follow; then the verdicts of pcie.link_stable. */
#include "../../probes/fact_catalog.h"
#include "../../probes/probe.h"
#include "../../src/core/checks.h"
#include "sysroot_tree.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

int probe_link_start_run(struct probe_ctx *ctx);
int probe_link_end_run(struct probe_ctx *ctx);

#define RP "pci0000:00/0000:00:01.1"
#define GPU RP "/0000:03:00.0"

static struct factset fs = FACTSET_INIT;
static struct probe_opts opts = {0};
static struct probe_ctx ctx = {&fs, LEVEL_STANDARD, &opts, 0};

/* the GPU's own link files, as the PCI core prints them */
static void set_link(const char *speed, unsigned width)
{
    putf("/sys/devices/" GPU "/current_link_speed", "%s PCIe\n", speed);
    putf("/sys/devices/" GPU "/current_link_width", "%u\n", width);
    put("/sys/devices/" GPU "/max_link_speed", "16.0 GT/s PCIe\n");
    put("/sys/devices/" GPU "/max_link_width", "16\n");
}

static int64_t fint(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_INT ? f->i : -999;
}

static double fflt(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_FLOAT ? f->f : -999;
}

static const char *verdict(const struct checkset *cs)
{
    static char rule[32];
    struct strlist only = STRLIST_INIT;
    strlist_add(&only, "pcie.link_stable");
    struct run_filter flt = {LEVEL_SOAK, &only};
    struct results r;
    CHECK(checks_run(cs, &fs, &flt, &r) == 0);
    snprintf(rule, sizeof(rule), "%s", r.n == 1 ? r.v[0].rule : "none");
    results_release(&r);
    strlist_release(&only);
    return rule;
}

/* the tree as it is now, one discrete GPU at 0000:03:00.0 */
static void fresh_facts(void)
{
    factset_release(&fs);
    if (rootfs_init(root))
        exit(2);
    fact_set_int(&fs, "gpu.count", 1, "test");
    fact_set_str(&fs, "gpu.0.pci", "0000:03:00.0", "test");
    fact_set_bool(&fs, "gpu.0.is_apu", 0, "test");
}

/* start with one link, end with another: the facts and the deciding rule */
static void window(const struct checkset *cs, const char *s0, unsigned w0, const char *s1,
                   unsigned w1, const char *want)
{
    set_link(s0, w0);
    fresh_facts();
    probe_link_start_run(&ctx);
    set_link(s1, w1); /* what the GPU probes' load did to the link */
    probe_link_end_run(&ctx);
    CHECK(fint("gpu.0.link.watch_start_width") == w0);
    CHECK(fint("gpu.0.link.watch_end_width") == w1);
    CHECK(fflt("gpu.0.link.watch_start_speed_gts") == strtod(s0, NULL));
    CHECK(fflt("gpu.0.link.watch_end_speed_gts") == strtod(s1, NULL));
    const char *got = verdict(cs);
    CHECK_STR(got, want);
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema);
    struct checkset cs;
    CHECK(checks_load_default(&cs, NULL) == 0);
    tree_fresh("linkw");
    put_pci_dev(RP, 0x1022, 0x1483);
    put_pci_dev(GPU, 0x1002, 0x74a1);
    window(&cs, "16.0 GT/s", 16, "16.0 GT/s", 16, "pass");
    window(&cs, "16.0 GT/s", 16, "16.0 GT/s", 8, "warn[0]"); /* lost lanes */
    window(&cs, "16.0 GT/s", 16, "8.0 GT/s", 16, "warn[1]"); /* retrained slower */
    window(&cs, "2.5 GT/s", 16, "16.0 GT/s", 16, "pass");    /* DPM raised it: fine */
    /* no link files: unknown, the check skips */
    tree_fresh("linkw");
    put_pci_dev(RP, 0x1022, 0x1483);
    put_pci_dev(GPU, 0x1002, 0x74a1);
    fresh_facts();
    probe_link_start_run(&ctx);
    probe_link_end_run(&ctx);
    CHECK(fint("gpu.0.link.watch_start_width") == -999);
    CHECK_STR(verdict(&cs), "skip[3]");
    tree_remove();
    checks_release(&cs);
    factset_release(&fs);
    return test_report();
}
