/* growth_bench.c - seconds per input kind at the sizes of issue 18 (the
 * growth test, tests/unit/test_growth.c, counts work instead): offload
 * bundles of 32k and 128k targets, a recorded dependency list of 400k
 * entries, a kernel log naming 195k firmware files, diff and fleet of
 * reports with 20k check ids. `make bench-growth`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/driver_block.h"
#include "src/binscan/offload_bundle.h"
#include "src/core/fact.h"
#include "src/diff/diff.h"
#include "src/fleet/fleet.h"
#include "tests/unit/growth_gen.h"

void rocm_libs_set_facts(struct factset *fs, char *text, const char *src);

static void bundle(size_t n)
{
    size_t len;
    unsigned char *b = growth_bundle(n, &len);
    struct offload_scan s;
    memset(&s, 0, sizeof(s));
    char *err;
    double t = util_mono_s();
    int rc = offload_scan_buffer(b, len, "generated", &s, &err);
    printf("offload bundle, %zu targets: %.3f s (%zu found, rc %d)\n", n, util_mono_s() - t,
           s.targets.n, rc);
    free(err);
    offload_scan_release(&s);
    free(b);
}

static void deps(size_t n)
{
    char *text = growth_deps(n / 2); /* each missing library twice: n entries */
    struct factset fs = FACTSET_INIT;
    double t = util_mono_s();
    rocm_libs_set_facts(&fs, text, "generated");
    const struct fact *m = fact_get(&fs, "rocm.lib_deps.missing");
    printf("library deps, %zu entries: %.3f s (%zu missing)\n", n, util_mono_s() - t,
           m ? fact_list_count(m) : 0);
    factset_release(&fs);
    free(text);
}

static void firmware(size_t n)
{
    char *log = growth_kernel_log(n);
    struct strlist fw = STRLIST_INIT;
    struct factset fs = FACTSET_INIT;
    double t = util_mono_s();
    db_firmware_failed(log, &fw);
    fact_set_list(&fs, "kernel.dmesg.firmware_files", &fw, "kernel log");
    char *text = fact_to_text(fact_get(&fs, "kernel.dmesg.firmware_files"));
    printf("kernel log, %zu firmware files: %.3f s (fact text %zu bytes)\n", n, util_mono_s() - t,
           strlen(text));
    free(text);
    factset_release(&fs);
    strlist_release(&fw);
    free(log);
}

static void diff(size_t n)
{
    char *ta = growth_report(n, 0), *tb = growth_report(n, 1);
    struct diff_doc a, b;
    struct diff_result r = {0};
    double t = util_mono_s();
    if (diff_doc_parse(&a, "a.json", ta, strlen(ta)) == 0 &&
        diff_doc_parse(&b, "b.json", tb, strlen(tb)) == 0) {
        diff_compare(&a, &b, NULL, &r);
        diff_doc_release(&b);
        diff_doc_release(&a);
    }
    printf("diff, %zu check ids each: %.3f s (%zu differences)\n", n, util_mono_s() - t, r.n);
    diff_result_release(&r);
    free(ta);
    free(tb);
}

static void fleet(size_t n, size_t nodes)
{
    struct fleet f;
    memset(&f, 0, sizeof(f));
    f.nodes = xcalloc(nodes, sizeof(*f.nodes));
    char **texts = xcalloc(nodes, sizeof(*texts));
    for (size_t i = 0; i < nodes; i++)
        texts[i] = growth_report(n, (int)i);
    double t = util_mono_s();
    for (; f.n < nodes; f.n++) {
        if (diff_doc_parse(&f.nodes[f.n].doc, "node.json", texts[f.n], strlen(texts[f.n])))
            break;
        f.nodes[f.n].name = xasprintf("node%zu", f.n);
    }
    struct fleet_opts o;
    memset(&o, 0, sizeof(o));
    fleet_compare(&f, &o);
    size_t asked = 0; /* what the writers ask: each differing id on each node */
    for (size_t i = 0; i < f.differing.n; i++)
        for (size_t k = 0; k < f.n; k++)
            asked += fleet_check_status(&f.nodes[k], f.differing.v[i])[0] != '-';
    printf("fleet, %zu nodes x %zu check ids: %.3f s (%zu differing, %zu statuses)\n", nodes, n,
           util_mono_s() - t, f.differing.n, asked);
    fleet_release(&f);
    for (size_t i = 0; i < nodes; i++)
        free(texts[i]);
    free(texts);
}

int main(void)
{
    bundle(32768);
    bundle(131072);
    deps(400000);
    firmware(195000);
    diff(20000);
    fleet(20000, 4);
    return 0;
}
