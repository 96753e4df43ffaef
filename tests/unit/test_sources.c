/* test_sources.c - checks.yaml's data tables against copies of their cited
 * sources kept in the repository (tests/data/sources/), so that a figure
 * mistyped, a row added without a source or a Python version listed for a
 * wheel that never had it fails here, not on a user's machine.
 *
 * peaks.tsv: the vendors' published TFLOP/s, units and clocks divided back
 * into FLOPs per clock per CU, and the published bandwidth into transfers
 * per reported memory clock; each figure of checks.yaml's `peaks:` must be
 * within 1.5 % of that (the published figures are rounded to 3-4 digits),
 * a figure the vendor does not publish must be absent, a figure taken from
 * another arch must equal that arch's, and every figure of every row must be
 * confirmed by a row of the source.
 *
 * wheels.tsv: PyTorch's release matrix (RELEASE.md); for every index whose
 * torch_wheel_verified names "python", torch_wheel_python must be exactly
 * the union of the stable Python ranges of the torch versions the index
 * carries (torch_wheel_torch).
 *
 * wheel-indexes.tsv: the torch releases each ROCm wheel index carries, from
 * PyTorch's "Previous PyTorch Versions" commands; wherever
 * torch_wheel_verified names "torch", torch_wheel_torch must be exactly the
 * index's verified rows, and an index it names "index" must have one.
 *
 * The gfx support lists (gfx_supported) are checked by their own test
 * (branch support). RVD_TEST_CHECKS: a mutant of checks.yaml (make mutation). */
#include "../../probes/fact_catalog.h"
#include "../../src/core/checks.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PEAKS "tests/data/sources/peaks.tsv"
#define WHEELS "tests/data/sources/wheels.tsv"
#define INDEXES "tests/data/sources/wheel-indexes.tsv"
#define MAXCOLS 12

enum {
    C_ARCH,
    C_PRODUCT,
    C_UNITS,
    C_MATRIX_MHZ,
    C_VECTOR_MHZ,
    C_FP16,
    C_BF16,
    C_FP32,
    C_BUS,
    C_MCLK,
    C_MEM,
    C_CITATION
};
static const int fig_col[4] = {C_FP16, C_BF16, C_FP32, C_MEM};
static const char *const fig_name[4] = {"fp16_matrix", "bf16_matrix", "fp32_vector",
                                        "mem_transfers_per_clock"};

struct row {
    char *cell[MAXCOLS];
    int line;
};

struct table {
    char *text;
    struct row *v;
    size_t n;
};

/* the rows of a tab-separated source (comments and the header line left
 * out), each with exactly ncols cells; 0, or -1 after saying why */
static int table_read(const char *path, int ncols, const char *header, struct table *t)
{
    size_t len = 0;
    memset(t, 0, sizeof(*t));
    if (read_user_file(path, 1u << 20, &t->text, &len)) {
        fprintf(stderr, "  cannot read %s (run from the source tree)\n", path);
        return -1;
    }
    int line = 0;
    for (char *p = t->text, *next; p && *p; p = next) {
        next = strchr(p, '\n');
        if (next)
            *next++ = '\0';
        line++;
        if (*p == '#' || *p == '\0' || str_starts(p, header))
            continue;
        t->v = realloc(t->v, (t->n + 1) * sizeof(*t->v));
        struct row *r = &t->v[t->n++];
        memset(r, 0, sizeof(*r));
        r->line = line;
        int k = 0;
        for (char *c = p; c && k < MAXCOLS; k++) {
            r->cell[k] = c;
            c = strchr(c, '\t');
            if (c)
                *c++ = '\0';
        }
        if (k != ncols || strchr(r->cell[ncols - 1], '\t')) {
            fprintf(stderr, "  %s:%d: want %d tab-separated cells\n", path, line, ncols);
            return -1;
        }
    }
    return 0;
}

static void table_release(struct table *t)
{
    free(t->v);
    free(t->text);
}

static double num(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return end != s && *end == '\0' && v > 0 ? v : -1;
}

static double figure(const struct peak_arch *p, int k)
{
    const double f[4] = {p->fp16_matrix, p->bf16_matrix, p->fp32_vector,
                         p->mem_transfers_per_clock};
    return f[k];
}

/* the per-clock figure the published numbers give: FLOPs per clock per CU
 * (TFLOP/s x 1e6 / (units x MHz)), or transfers per reported memory clock
 * (GB/s x 8000 / (MHz x bus bits)); -1 when a cell is not a number */
static double derived(const struct row *r, int k)
{
    if (k < 3) {
        double tf = num(r->cell[fig_col[k]]), units = num(r->cell[C_UNITS]);
        double mhz = num(r->cell[k == 2 ? C_VECTOR_MHZ : C_MATRIX_MHZ]);
        return tf > 0 && units > 0 && mhz > 0 ? tf * 1e6 / (units * mhz) : -1;
    }
    double gbs = num(r->cell[C_MEM]), mclk = num(r->cell[C_MCLK]), bus = num(r->cell[C_BUS]);
    return gbs > 0 && mclk > 0 && bus > 0 ? gbs * 8000 / (mclk * bus) : -1;
}

/* one figure of one source row against checks.yaml; 1 when it confirms
 * the figure (or its absence), 0 when the row says nothing of it */
static int check_figure(const struct checkset *cs, const struct row *r, const struct peak_arch *p,
                        int k)
{
    const char *cell = r->cell[fig_col[k]];
    double have = figure(p, k);
    if (!strcmp(cell, "."))
        return 0;
    if (!strcmp(cell, "-") || (k == 3 && !strcmp(r->cell[C_MCLK], "-"))) {
        /* nothing published (or no reported clock to divide by): no figure */
        CHECK(have == 0);
        if (have != 0)
            fprintf(stderr, "  %s:%d: %s %s = %g, but its source publishes none\n", PEAKS, r->line,
                    p->arch, fig_name[k], have);
        return 1;
    }
    if (cell[0] == '=') {
        const struct peak_arch *q = peaks_find(&cs->peaks, cell + 1);
        int same = q && figure(q, k) == have && have > 0;
        CHECK(same);
        if (!same)
            fprintf(stderr, "  %s:%d: %s %s = %g, want %s's (%g)\n", PEAKS, r->line, p->arch,
                    fig_name[k], have, cell + 1, q ? figure(q, k) : -1);
        return 1;
    }
    double want = derived(r, k);
    int near = want > 0 && fabs(have - want) <= 0.015 * want;
    CHECK(near);
    if (!near)
        fprintf(stderr, "  %s:%d: %s %s = %g, the published figures give %.4g\n", PEAKS, r->line,
                p->arch, fig_name[k], have, want);
    return 1;
}

static void check_peaks(const struct checkset *cs)
{
    struct table t;
    int rd = table_read(PEAKS, MAXCOLS, "arch\t", &t);
    CHECK(rd == 0);
    /* per checks.yaml row and figure: confirmed by a source row */
    char(*seen)[4] = calloc(cs->peaks.n + 1, sizeof(*seen));
    for (size_t i = 0; !rd && i < t.n; i++) {
        const struct row *r = &t.v[i];
        const struct peak_arch *p = peaks_find(&cs->peaks, r->cell[C_ARCH]);
        CHECK(p != NULL);
        if (!p) {
            fprintf(stderr, "  %s:%d: %s has a source but no row in checks.yaml's peaks\n", PEAKS,
                    r->line, r->cell[C_ARCH]);
            continue;
        }
        CHECK(r->cell[C_CITATION][0] != '\0');
        for (int k = 0; k < 4; k++)
            if (check_figure(cs, r, p, k))
                seen[p - cs->peaks.v][k] = 1;
    }
    for (size_t i = 0; !rd && i < cs->peaks.n; i++)
        for (int k = 0; k < 4; k++) {
            const struct peak_arch *p = &cs->peaks.v[i];
            int sourced = seen[i][k] || figure(p, k) == 0;
            CHECK(sourced);
            if (!sourced)
                fprintf(stderr, "  checks.yaml:%lu: %s %s = %g has no row in %s\n", p->line,
                        p->arch, fig_name[k], figure(p, k), PEAKS);
        }
    free(seen);
    table_release(&t);
}

/* "3.9" of ">=3.9, <=3.13, (3.13t experimental)" and of "<=(3.14, ...)":
 * the minor after the operator; -1 when absent */
static int py_minor(const char *cell, const char *op)
{
    const char *s = strstr(cell, op);
    if (!s)
        return -1;
    s += strlen(op);
    if (*s == '(')
        s++;
    int major, minor;
    return sscanf(s, "%d.%d", &major, &minor) == 2 && major == 3 ? minor : -1;
}

/* the release matrix row of a torch version ("2.6.0" and "2.9" -> "2.6",
 * "2.9"), or NULL */
static const struct row *release_of(const struct table *t, const char *version)
{
    const char *dot = strchr(version, '.');
    size_t n = dot ? (size_t)(strchr(dot + 1, '.') ? strchr(dot + 1, '.') - version
                                                   : (ptrdiff_t)strlen(version))
                   : strlen(version);
    for (size_t i = 0; i < t->n; i++)
        if (strlen(t->v[i].cell[0]) == n && !strncmp(t->v[i].cell[0], version, n))
            return &t->v[i];
    return NULL;
}

static void check_wheels(const struct checkset *cs)
{
    struct table t;
    int rd = table_read(WHEELS, 3, "torch\t", &t);
    CHECK(rd == 0);
    size_t checked = 0;
    for (size_t i = 0; !rd && i < cs->ndata; i++) {
        const struct data_table *py = &cs->data[i];
        if (strcmp(py->name, "torch_wheel_python") != 0 || !py->key)
            continue;
        const struct data_table *ver = checks_data_find(cs, "torch_wheel_verified", py->key);
        if (!ver || !strlist_has(&ver->values, "python"))
            continue; /* the row says its Python tags are not confirmed */
        const struct data_table *tv = checks_data_find(cs, "torch_wheel_torch", py->key);
        CHECK(tv != NULL && tv->values.n > 0);
        if (!tv)
            continue;
        int want[100] = {0};
        for (size_t j = 0; j < tv->values.n; j++) {
            const struct row *r = release_of(&t, tv->values.v[j]);
            int lo = r ? py_minor(r->cell[1], ">=") : -1, hi = r ? py_minor(r->cell[1], "<=") : -1;
            CHECK(lo >= 0 && hi >= lo && hi < 100);
            if (lo < 0 || hi < lo || hi >= 100) {
                fprintf(stderr, "  %s: torch %s has no Python range in %s\n", py->key,
                        tv->values.v[j], WHEELS);
                continue;
            }
            for (int m = lo; m <= hi; m++)
                want[m] = 1;
        }
        for (int m = 0; m < 100; m++) {
            char tag[16];
            snprintf(tag, sizeof(tag), "cp3%d", m);
            int has = strlist_has(&py->values, tag);
            CHECK(has == want[m]);
            if (has != want[m])
                fprintf(stderr, "  torch_wheel_python %s: %s %s, but PyTorch's matrix %s it\n",
                        py->key, tag, has ? "listed" : "missing",
                        want[m] ? "has" : "does not have");
        }
        for (size_t j = 0; j < py->values.n; j++) {
            int m = -1;
            int ok = sscanf(py->values.v[j], "cp3%d", &m) == 1 && m >= 0 && m < 100;
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  torch_wheel_python %s: '%s' is no CPython 3 tag\n", py->key,
                        py->values.v[j]);
        }
        checked++;
    }
    /* the indexes whose Python tags are verified: every row but one today */
    CHECK(checked >= 10);
    table_release(&t);
}

/* the row of `index` and `torch` in wheel-indexes.tsv, marked verified */
static int index_has(const struct table *t, const char *index, const char *torch)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].cell[0], index) && (!torch || !strcmp(t->v[i].cell[1], torch)) &&
            !strcmp(t->v[i].cell[2], "verified"))
            return 1;
    return 0;
}

static void check_wheel_indexes(const struct checkset *cs)
{
    struct table t;
    int rd = table_read(INDEXES, 4, "index\t", &t);
    CHECK(rd == 0);
    for (size_t i = 0; !rd && i < t.n; i++)
        CHECK(!strcmp(t.v[i].cell[2], "verified") || !strcmp(t.v[i].cell[2], "unverified"));
    size_t checked = 0;
    for (size_t i = 0; !rd && i < cs->ndata; i++) {
        const struct data_table *ver = &cs->data[i];
        if (strcmp(ver->name, "torch_wheel_verified") != 0 || !ver->key)
            continue;
        if (strlist_has(&ver->values, "index") && !index_has(&t, ver->key, NULL)) {
            CHECK(0);
            fprintf(stderr, "  %s: named a verified index, but %s has no verified row of it\n",
                    ver->key, INDEXES);
        }
        if (!strlist_has(&ver->values, "torch"))
            continue;
        const struct data_table *tv = checks_data_find(cs, "torch_wheel_torch", ver->key);
        CHECK(tv != NULL);
        if (!tv)
            continue;
        for (size_t j = 0; j < tv->values.n; j++)
            if (!index_has(&t, ver->key, tv->values.v[j])) {
                CHECK(0);
                fprintf(stderr, "  torch_wheel_torch %s: torch %s, which %s does not confirm\n",
                        ver->key, tv->values.v[j], INDEXES);
            }
        for (size_t r = 0; r < t.n; r++)
            if (!strcmp(t.v[r].cell[0], ver->key) && !strcmp(t.v[r].cell[2], "verified") &&
                !strlist_has(&tv->values, t.v[r].cell[1])) {
                CHECK(0);
                fprintf(stderr, "  torch_wheel_torch %s: torch %s missing (%s:%d)\n", ver->key,
                        t.v[r].cell[1], INDEXES, t.v[r].line);
            }
        checked++;
    }
    /* every index but rocm7.1 has its torch releases verified today */
    CHECK(checked >= 11);
    table_release(&t);
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    struct checkset cs;
    CHECK(checks_load_default(&cs, getenv("RVD_TEST_CHECKS")) == 0);
    check_peaks(&cs);
    check_wheels(&cs);
    check_wheel_indexes(&cs);
    checks_release(&cs);
    return test_report();
}
