/* test_gfx_matrix.c - gpu.gfx_supported gives a definite answer (pass or
 * fail, never a skip) for every ROCm release of the support data and every
 * gfx target that any list names: the cited rows of
 * tests/data/sources/rocm-gfx-support.tsv, the targets of checks.yaml's
 * gfx_override_family, and gfx803 (Polaris, on older releases' lists). Each
 * case runs the real probe (probes/probe_rocm.c, on a sysroot holding
 * /opt/rocm-<version>/.info/version) and then the real check, so the
 * probe's rocm.support_series and the table's lookup are held together.
 * The answer must also be the cited one: pass exactly when the source table
 * lists the target for that release. A series between two releases (7.3,
 * 8.0) takes the list of the release below it; one newer than the table
 * (10.2) or a technology preview (7.11) is skipped, named. */
#include "../../probes/fact_catalog.h"
#include "../../probes/probe.h"
#include "../../src/core/checks.h"
#include "sysroot_tree.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_rocm_run(struct probe_ctx *ctx);

#define TSV "tests/data/sources/rocm-gfx-support.tsv"
#define CHECKS "checks.yaml"

/* the source table: one (release, target) pair per row */
struct row {
    char rel[16], gfx[16];
};

static FILE *open_data(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s (run from the repository root)\n", path);
        exit(2);
    }
    return f;
}

static size_t read_rows(struct row *v, size_t max)
{
    FILE *f = open_data(TSV);
    char line[1024];
    size_t n = 0;
    while (fgets(line, sizeof(line), f) && n < max)
        if (line[0] != '#' && sscanf(line, "%15[^\t]\t%15[^\t]", v[n].rel, v[n].gfx) == 2)
            n++;
    fclose(f);
    return n;
}

/* the keys of checks.yaml's gfx_override_family block ('    "gfx1031": [...]') */
static void override_targets(struct strlist *out)
{
    FILE *f = open_data(CHECKS);
    char line[512];
    int in = 0;
    while (fgets(line, sizeof(line), f)) {
        char key[32];
        if (strncmp(line, "  gfx_override_family:", 22) == 0)
            in = 1;
        else if (in && sscanf(line, "    \"%31[^\"]\":", key) == 1)
            strlist_add(out, key);
        else if (in)
            break;
    }
    fclose(f);
}

static int listed(const struct row *v, size_t n, const char *rel, const char *gfx)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].rel, rel) && !strcmp(v[i].gfx, gfx))
            return 1;
    return 0;
}

static int has(const struct strlist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], s))
            return 1;
    return 0;
}

static struct factset fs = FACTSET_INIT;
static struct probe_opts opts = {0};
static struct probe_ctx ctx = {&fs, LEVEL_QUICK, &opts, 0};
static int cases;

/* one installed version against every target; table_rel: whose list counts */
static void run_release(const struct checkset *cs, const char *version, const char *table_rel,
                        const struct strlist *targets, const struct row *rows, size_t nrows)
{
    tree_fresh("gfxm");
    char *path = xasprintf("/opt/rocm-%s/.info/version", version);
    putf(path, "%s\n", version);
    free(path);
    if (rootfs_init(root))
        exit(2);
    for (size_t t = 0; t < targets->n; t++) {
        factset_release(&fs);
        probe_rocm_run(&ctx);
        fact_set_int(&fs, "gpu.count", 1, "test");
        fact_set_str(&fs, "gpu.0.gfx", targets->v[t], "test");
        struct strlist only = STRLIST_INIT;
        strlist_add(&only, "gpu.gfx_supported");
        struct run_filter flt = {LEVEL_SOAK, &only};
        struct results r;
        CHECK(checks_run(cs, &fs, &flt, &r) == 0);
        const struct result *v = r.n == 1 ? &r.v[0] : NULL;
        enum status want = !table_rel                                      ? ST_SKIP
                           : listed(rows, nrows, table_rel, targets->v[t]) ? ST_PASS
                                                                           : ST_FAIL;
        /* a release without a row of its own is named, never judged */
        int ok = v && v->st == want &&
                 (table_rel || strstr(v->summary, "newer than the support data") ||
                  strstr(v->summary, "technology previews"));
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  ROCm %s (table %s) %s: got %s \"%s\", want %s\n", version,
                    table_rel ? table_rel : "none", targets->v[t],
                    v ? status_name(v->st) : "nothing", v ? v->summary : "", status_name(want));
        cases++;
        results_release(&r);
        strlist_release(&only);
    }
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema);
    struct checkset cs;
    /* RVD_TEST_CHECKS: a mutant of checks.yaml (make mutation) */
    CHECK(checks_load_default(&cs, getenv("RVD_TEST_CHECKS")) == 0);

    static struct row rows[512];
    size_t nrows = read_rows(rows, ARRAY_SIZE(rows));
    CHECK(nrows >= 50);
    struct strlist rels = STRLIST_INIT, targets = STRLIST_INIT;
    for (size_t i = 0; i < nrows; i++) {
        if (!has(&rels, rows[i].rel))
            strlist_add(&rels, rows[i].rel);
        if (!has(&targets, rows[i].gfx))
            strlist_add(&targets, rows[i].gfx);
    }
    size_t from_rows = targets.n;
    override_targets(&targets);
    CHECK(targets.n >= from_rows + 10); /* the override family was read */
    strlist_add(&targets, "gfx803");
    CHECK(has(&rels, "5.0") && has(&rels, "7.2"));

    for (size_t i = 0; i < rels.n; i++) {
        /* "6.4.0" is one release; "6.4" stands for its later patch releases */
        char version[32];
        snprintf(version, sizeof(version), "%s%s", rels.v[i],
                 strchr(strchr(rels.v[i], '.') + 1, '.') ? "" : ".9");
        run_release(&cs, version, rels.v[i], &targets, rows, nrows);
    }
    /* between two releases (never shipped): the release below it */
    run_release(&cs, "7.3.0", "7.2", &targets, rows, nrows);
    run_release(&cs, "8.0.1", "7.14", &targets, rows, nrows);
    /* newer than the table, and TheRock's previews: no verdict */
    run_release(&cs, "10.2.0", NULL, &targets, rows, nrows);
    run_release(&cs, "11.0.1", NULL, &targets, rows, nrows);
    run_release(&cs, "7.11.0", NULL, &targets, rows, nrows);
    printf("%d (release, target) cases\n", cases);

    tree_fresh("gfxm"); /* removes the last tree */
    rmdir(root);
    rootfs_release();
    factset_release(&fs);
    strlist_release(&rels);
    strlist_release(&targets);
    checks_release(&cs);
    return test_report();
}
