/* test_growth.c - the work that inputs of n and 10n items cost, counted
 * (strset_work: hash slots probed and strings compared, see strset.h), for
 * every input kind whose lists come from the input: an offload bundle's
 * targets, a recorded library dependency list, a kernel log's firmware
 * names, the check ids of two reports (diff) and of a fleet, a group
 * database, a directory of libraries and Tensile files, the fact store
 * and the facts a rule reads. Each must
 * grow no faster than n log n (with slack); the quadratic dedupe that
 * issue 18 found grows 100-fold. Work, not time: timings are `make bench`
 * (tools/growth_bench.sh). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/driver_block.h"
#include "../../probes/probe.h"
#include "../../src/binscan/offload_bundle.h"
#include "../../src/core/expr.h"
#include "../../src/core/fact.h"
#include "../../src/core/strset.h"
#include "../../src/diff/diff.h"
#include "../../src/fleet/fleet.h"
#include "growth_gen.h"
#include "sysroot_tree.h"
#include "test.h"

void rocm_libs_set_facts(struct factset *fs, char *text, const char *src);
int probe_user_run(struct probe_ctx *ctx);
int probe_target_binaries_run(struct probe_ctx *ctx);

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
    size_t bad = 0; /* one CHECK per loop: a CHECK per item is most of the time under ASan */
    for (size_t round = 0; round < 2; round++) /* the second round finds each one */
        for (size_t i = 0; i < n; i++)
            bad += strlist_add_unique(&l, &seen, keys.v[i]) != !round;
    uint64_t w = strset_work - before;
    CHECK(bad == 0 && l.n == n && seen.n == n);
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
    size_t unsorted = 0;
    for (size_t i = 1; i < s.targets.n; i++)
        unsorted += strcmp(s.targets.v[i - 1], s.targets.v[i]) >= 0;
    CHECK(unsorted == 0);
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
    size_t absent = 0, unsorted = 0;
    for (size_t i = 0; i < f.differing.n; i++) /* what the writers ask */
        for (size_t k = 0; k < f.n; k++)
            absent += fleet_check_status(&f.nodes[k], f.differing.v[i]) == NULL;
    uint64_t w = strset_work - before;
    CHECK(absent == 0 && f.differing.n >= n / 10);
    for (size_t i = 1; i < f.differing.n; i++)
        unsorted += strcmp(f.differing.v[i - 1], f.differing.v[i]) >= 0;
    CHECK(unsorted == 0);
    fleet_release(&f);
    for (size_t i = 0; i < 3; i++)
        free(t[i]);
    return w;
}

/* probe_user on a sysroot whose /etc/group has n groups, all holding the
 * user, who also holds every gid (twice) in the identity query */
static uint64_t work_groupdb(size_t n)
{
    tree_fresh("growth");
    char *db = growth_group_db(n), *id = growth_identity(n);
    put("/etc/group", db);
    put("/etc/passwd", "u:x:1000:0::/home/u:/bin/sh\n");
    put(ROOTFS_SNAPSHOT_DIR "/identity", id);
    free(db);
    free(id);
    CHECK(rootfs_init(root) == 0);
    struct factset fs = FACTSET_INIT;
    struct probe_opts opts = {0};
    struct probe_ctx ctx = {&fs, LEVEL_QUICK, &opts, 0};
    uint64_t before = strset_work;
    CHECK(probe_user_run(&ctx) == 0);
    uint64_t w = strset_work - before;
    const struct fact *g = fact_get(&fs, "user.groups"), *d = fact_get(&fs, "user.db_groups");
    CHECK(g && g->type == FACT_LIST && fact_list_count(g) == n); /* each gid once, named */
    CHECK(g && g->type == FACT_LIST && strcmp(g->list.v[1], "grp1") == 0);
    CHECK(d && d->type == FACT_LIST && fact_list_count(d) == n);
    factset_release(&fs);
    tree_remove();
    return w;
}

/* probe_target_binaries on a torch/lib of n libraries and a Tensile
 * directory of n files, each naming another gfx target */
static uint64_t work_target_dir(size_t n)
{
    tree_fresh("growth");
    char rel[96];
    for (size_t i = 0; i < n; i++) {
        snprintf(rel, sizeof(rel), "/torch/lib/lib%zu.so", i);
        put(rel, "x");
        snprintf(rel, sizeof(rel), "/torch/lib/rocblas/library/TensileLibrary_gfx%zx.dat",
                 0x1000 + i);
        put(rel, "x");
    }
    CHECK(rootfs_init(root) == 0);
    struct factset fs = FACTSET_INIT;
    fact_set_str(&fs, "python.torch_dir", "/torch", "test");
    struct probe_opts opts = {0};
    struct probe_ctx ctx = {&fs, LEVEL_STANDARD, &opts, 0};
    uint64_t before = strset_work;
    CHECK(probe_target_binaries_run(&ctx) == 0);
    uint64_t w = strset_work - before;
    const struct fact *sc = fact_get(&fs, "binaries.scanned");
    CHECK(sc && sc->type == FACT_INT && sc->i == (int64_t)n + 1); /* + the Tensile dir */
    /* the libraries hold no code (errors); the Tensile dir every target once */
    const struct fact *l = fact_get(&fs, "binaries.libraries");
    size_t gfx = 0;
    for (const char *p = l && l->list.n == 1 ? l->list.v[0] : ""; (p = strstr(p, " gfx")); p++)
        gfx++;
    CHECK(gfx == n);
    factset_release(&fs);
    tree_remove();
    return w;
}

/* n facts set, looked up, replaced, copied, moved and sorted: fact_get()'s
 * index stays right through each (the values are checked) */
static uint64_t work_factset(size_t n)
{
    struct factset fs = FACTSET_INIT, tail = FACTSET_INIT;
    char name[32];
    uint64_t before = strset_work;
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "gpu.%zu.f", i);
        fact_set_int(&fs, name, (int64_t)i, "test");
    }
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) { /* replace: the same fact, a new value */
        snprintf(name, sizeof(name), "gpu.%zu.f", i);
        const struct fact *f = fact_get(&fs, name);
        bad += !f || f->i != (int64_t)i;
        fact_set_int(&fs, name, (int64_t)i + 1, "test");
        bad += fact_get(&fs, name) != f || !f || f->i != (int64_t)i + 1;
    }
    for (size_t i = 0; i < n; i++) { /* copies under new names, appended */
        snprintf(name, sizeof(name), "copy.%zu", i);
        fact_copy_as(&fs, fs.v[i], name);
    }
    factset_take_tail(&fs, n, &tail); /* the copies move to tail */
    factset_sort(&fs);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "gpu.%zu.f", i);
        const struct fact *f = fact_get(&fs, name);
        bad += !f || f->i != (int64_t)i + 1;
        snprintf(name, sizeof(name), "copy.%zu", i);
        bad += fact_get(&fs, name) != NULL;
        f = fact_get(&tail, name);
        bad += !f || f->i != (int64_t)i + 1 || strcmp(f->name, name) != 0;
    }
    uint64_t w = strset_work - before;
    CHECK(bad == 0 && fs.n == n && tail.n == n);
    factset_release(&fs);
    CHECK(fact_get(&fs, "gpu.0.f") == NULL);
    fact_set_bool(&fs, "again", 1, NULL); /* usable after a release */
    CHECK(fact_get(&fs, "again") && fs.n == 1);
    factset_release(&fs);
    factset_release(&tail);
    return w;
}

/* the facts a rule of n identifiers (each twice) reads, for its evidence */
static uint64_t work_idents(size_t n)
{
    char *src = growth_rule(n), *err = NULL;
    size_t col;
    struct expr *e = expr_parse(src, &col, &err);
    CHECK(e != NULL);
    struct strlist ids = STRLIST_INIT;
    strlist_add(&ids, "x"); /* already there: not added again */
    uint64_t before = strset_work;
    expr_idents(e, &ids);
    uint64_t w = strset_work - before;
    CHECK(ids.n == n + 1);
    char id[3];
    growth_ident(n - 1, id);
    CHECK(ids.n == n + 1 && strcmp(ids.v[n], id) == 0);
    strlist_release(&ids);
    expr_free(e);
    free(err);
    free(src);
    return w;
}

int main(void)
{
    check_growth("strset", 4000, work_strset);
    check_growth("offload bundle", 2000, work_bundle);
    check_growth("library deps", 2000, work_deps);
    /* 200, not 2000: ASan's strstr() checks the whole rest of the haystack
     * per call, which makes db_firmware_failed()'s scan quadratic under
     * ASan alone (71 s at 2000); the ratio tells n log n from n^2 at 200 */
    check_growth("kernel log firmware", 200, work_firmware);
    check_growth("diff check ids", 500, work_diff);
    check_growth("fleet check ids", 500, work_fleet);
    check_growth("group database", 300, work_groupdb);
    check_growth("library directory", 100, work_target_dir); /* 2 files an item */
    check_growth("fact store", 1000, work_factset);
    check_growth("rule identifiers", 45, work_idents);
    return test_report();
}
