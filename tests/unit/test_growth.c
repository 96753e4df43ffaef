/* test_growth.c - the work that inputs of n and 10n items cost, counted
 * (strset_work: hash slots probed and strings compared, see strset.h), for
 * every input kind whose lists come from the input: an offload bundle's
 * targets, a recorded library dependency list, a kernel log's firmware
 * names, the check ids of two reports (diff) and of a fleet. Each must
 * grow no faster than n log n (with slack); the quadratic dedupe that
 * issue 18 found grows 100-fold. Work, not time: timings are `make bench`
 * (tools/growth_bench.sh). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/driver_block.h"
#include "../../src/binscan/offload_bundle.h"
#include "../../src/core/fact.h"
#include "../../src/core/strset.h"
#include "../../src/diff/diff.h"
#include "../../src/fleet/fleet.h"
#include "growth_gen.h"
#include "test.h"

void rocm_libs_set_facts(struct factset *fs, char *text, const char *src);

/* fails when work(10n) / work(n) exceeds n log n's ratio by half */
static void check_growth(const char *what, size_t n, uint64_t (*work)(size_t))
{
    uint64_t w1 = work(n), w10 = work(10 * n);
    double ratio = w1 ? (double)w10 / (double)w1 : INFINITY;
    double bound = 10.0 * log2(10.0 * (double)n) / log2((double)n) * 1.5;
    printf("%-22s n=%zu work %llu, 10n work %llu: x%.1f (bound x%.1f)\n", what, n,
           (unsigned long long)w1, (unsigned long long)w10, ratio, bound);
    CHECK(w1 > 0);
    CHECK(ratio <= bound);
}

static uint64_t work_strset(size_t n)
{
    struct strlist keys = STRLIST_INIT, l = STRLIST_INIT;
    struct strset seen = STRSET_INIT;
    for (size_t i = 0; i < n; i++)
        strlist_add_owned(&keys, xasprintf("key-%zu", i));
    uint64_t before = strset_work;
    for (size_t round = 0; round < 2; round++) /* the second round finds each one */
        for (size_t i = 0; i < n; i++)
            CHECK(strlist_add_unique(&l, &seen, keys.v[i]) == !round);
    uint64_t w = strset_work - before;
    CHECK(l.n == n && seen.n == n);
    size_t v;
    CHECK(strset_get(&seen, keys.v[n / 2], &v) && v == n / 2);
    CHECK(!strset_get(&seen, "absent", NULL));
    strset_release(&seen);
    strlist_release(&l);
    strlist_release(&keys);
    return w;
}

static uint64_t work_bundle(size_t n)
{
    size_t len;
    unsigned char *b = growth_bundle(n, &len);
    struct offload_scan s;
    memset(&s, 0, sizeof(s));
    char *err;
    uint64_t before = strset_work;
    CHECK(offload_scan_buffer(b, len, "generated", &s, &err) == 0);
    uint64_t w = strset_work - before;
    CHECK(s.targets.n == n); /* every id twice: deduplicated */
    for (size_t i = 1; i < s.targets.n; i++)
        CHECK(strcmp(s.targets.v[i - 1], s.targets.v[i]) < 0);
    offload_scan_release(&s);
    free(b);
    return w;
}

static uint64_t work_deps(size_t n)
{
    char *text = growth_deps(n);
    struct factset fs = FACTSET_INIT;
    uint64_t before = strset_work;
    rocm_libs_set_facts(&fs, text, "generated");
    uint64_t w = strset_work - before;
    const struct fact *m = fact_get(&fs, "rocm.lib_deps.missing");
    CHECK(m && m->type == FACT_LIST && fact_list_count(m) == n);
    CHECK(m && m->list.n <= FACT_LIST_MAX + 1);
    factset_release(&fs);
    free(text);
    return w;
}

static uint64_t work_firmware(size_t n)
{
    char *log = growth_kernel_log(n);
    struct strlist fw = STRLIST_INIT;
    struct factset fs = FACTSET_INIT;
    uint64_t before = strset_work;
    db_firmware_failed(log, &fw);
    fact_set_list(&fs, "kernel.dmesg.firmware_files", &fw, "kernel log");
    uint64_t w = strset_work - before;
    CHECK(fw.n == n);
    const struct fact *f = fact_get(&fs, "kernel.dmesg.firmware_files");
    CHECK(f && fact_list_count(f) == n && f->list.n <= FACT_LIST_MAX + 1);
    char *text = f ? fact_to_text(f) : NULL;
    CHECK(text && strlen(text) < 64 * FACT_LIST_MAX); /* bounded, not n names */
    free(text);
    factset_release(&fs);
    strlist_release(&fw);
    free(log);
    return w;
}

static uint64_t work_diff(size_t n)
{
    char *ta = growth_report(n, 0), *tb = growth_report(n, 1);
    struct diff_doc a, b;
    struct diff_result r;
    uint64_t before = strset_work;
    CHECK(diff_doc_parse(&a, "a.json", ta, strlen(ta)) == 0);
    CHECK(diff_doc_parse(&b, "b.json", tb, strlen(tb)) == 0);
    diff_compare(&a, &b, NULL, &r);
    uint64_t w = strset_work - before;
    /* b drops the first tenth of a's ids, adds as many and flips every
     * tenth status */
    CHECK(r.n >= n / 10 * 2);
    diff_result_release(&r);
    diff_doc_release(&a);
    diff_doc_release(&b);
    free(ta);
    free(tb);
    return w;
}

static uint64_t work_fleet(size_t n)
{
    struct fleet f;
    memset(&f, 0, sizeof(f));
    f.n = 3;
    f.nodes = xcalloc(f.n, sizeof(*f.nodes));
    char *t[3];
    uint64_t before = strset_work;
    for (size_t i = 0; i < f.n; i++) {
        t[i] = growth_report(n, (int)i);
        CHECK(diff_doc_parse(&f.nodes[i].doc, "node.json", t[i], strlen(t[i])) == 0);
        f.nodes[i].name = xasprintf("node%zu", i);
    }
    struct fleet_opts o;
    memset(&o, 0, sizeof(o));
    fleet_compare(&f, &o);
    for (size_t i = 0; i < f.differing.n; i++) /* what the writers ask */
        for (size_t k = 0; k < f.n; k++)
            CHECK(fleet_check_status(&f.nodes[k], f.differing.v[i]) != NULL);
    uint64_t w = strset_work - before;
    CHECK(f.differing.n >= n / 10);
    for (size_t i = 1; i < f.differing.n; i++)
        CHECK(strcmp(f.differing.v[i - 1], f.differing.v[i]) < 0);
    fleet_release(&f);
    for (size_t i = 0; i < 3; i++)
        free(t[i]);
    return w;
}

int main(void)
{
    check_growth("strset", 4000, work_strset);
    check_growth("offload bundle", 2000, work_bundle);
    check_growth("library deps", 2000, work_deps);
    check_growth("kernel log firmware", 2000, work_firmware);
    check_growth("diff check ids", 1000, work_diff);
    check_growth("fleet check ids", 1000, work_fleet);
    return test_report();
}
