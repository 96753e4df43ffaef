/* probe_python_wheel.c - which PyTorch ROCm wheel index a fix may name.
 *
 * Deriving the index from the installed ROCm series alone can name an index
 * with no wheel for this interpreter (ROCm 5.2 with Python 3.11: whl/rocm5.2
 * only ever had torch 1.13 for cp37-cp310) or none for this GPU. The indexes,
 * their Python tags and gfx targets are data (checks.yaml torch_wheel_*
 * tables, each row with its source); this walks them. A ROCm wheel carries
 * its own user space in torch/lib, so what must fit is the kernel driver:
 * AMD supports a user space within 2 releases of its kernel driver (the
 * "User and kernel-space support matrix" of the ROCm install docs), counted
 * in the rocm_release_order table. */
#include "probe.h"
#include "probe_python.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* releases either side of the kernel driver's that AMD supports */
#define WHEEL_DRIVER_SPAN 2

static int list_has(const struct data_table *t, const char *s)
{
    return t && s && strlist_has(&t->values, s);
}

/* "rocm6.2.4" -> "6.2" */
static void index_series(const char *index, char *buf, size_t n)
{
    unsigned maj = 0, min = 0;
    if (sscanf(index, "rocm%u.%u", &maj, &min) == 2)
        snprintf(buf, n, "%u.%u", maj, min);
    else
        snprintf(buf, n, "?");
}

static int release_pos(const struct data_table *order, const char *series)
{
    for (size_t i = 0; order && series && i < order->values.n; i++)
        if (strcmp(order->values.v[i], series) == 0)
            return (int)i;
    return -1;
}

struct wheel_row {
    const char *index;
    const struct data_table *python, *gfx, *torch;
    int verified_index, verified_gfx, pos;
};

/* A row's gfx list excludes it where that list was confirmed at its
 * source (torch_wheel_verified names "gfx"). An unconfirmed list excludes
 * nothing by itself, or a guess would become advice (a gfx1101 card sent
 * from its own ROCm's wheel to another's because one build script was
 * misread); but a target that no row of the table lists at all (gfx803,
 * long dropped) has no known wheel, and no unconfirmed row is offered for
 * it either. `anywhere` says, per target, whether some row lists it. */
static int gfx_fit(const struct wheel_row *r, const struct strlist *gfx, const int *anywhere)
{
    for (size_t i = 0; gfx && i < gfx->n; i++) {
        if (r->verified_gfx ? !list_has(r->gfx, gfx->v[i]) : !anywhere[i])
            return 0;
    }
    return 1;
}

/* "cp38 cp39 cp310" as "Python 3.8-3.10" */
static void python_span(const struct data_table *py, struct strbuf *out)
{
    if (!py || !py->values.n) {
        strbuf_addf(out, "no Python");
        return;
    }
    const char *a = py->values.v[0], *b = py->values.v[py->values.n - 1];
    if (str_starts(a, "cp3") && str_starts(b, "cp3"))
        strbuf_addf(out, "Python 3.%s-3.%s", a + 3, b + 3);
    else
        strbuf_addf(out, "%s-%s", a, b);
}

static void describe_want(struct strbuf *sb, const char *cp, const struct strlist *gfx)
{
    strbuf_addf(sb, "%s", cp ? cp : "this Python");
    for (size_t i = 0; gfx && i < gfx->n; i++)
        strbuf_addf(sb, "%s%s", i ? "/" : " and ", gfx->v[i]);
}

/* Nothing fits: say what to change. The nearest driver-compatible index
 * with this GPU tells which Python to use; the oldest index with this cpXY
 * and GPU tells which ROCm (kernel driver) to install. */
static char *none_why(const struct wheel_row *rows, size_t n, int d, const char *series,
                      const char *cp, const struct strlist *gfx, const int *anywhere)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "no PyTorch ROCm wheel index has a wheel for ");
    describe_want(&sb, cp, gfx);
    strbuf_addf(&sb,
                " that the kernel driver of ROCm %s supports (AMD: user space within %d "
                "releases of the driver)",
                series, WHEEL_DRIVER_SPAN);
    const struct wheel_row *py_alt = NULL, *rocm_alt = NULL;
    int best = -1;
    for (size_t i = 0; i < n; i++) {
        const struct wheel_row *r = &rows[i];
        if (!r->verified_index || !gfx_fit(r, gfx, anywhere))
            continue;
        int dist = r->pos < 0 ? -1 : abs(r->pos - d);
        if (dist >= 0 && dist <= WHEEL_DRIVER_SPAN && (best < 0 || dist <= best)) {
            best = dist;
            py_alt = r;
        }
        if (!rocm_alt && list_has(r->python, cp))
            rocm_alt = r;
    }
    if (py_alt) {
        strbuf_addf(&sb, "; use ");
        python_span(py_alt->python, &sb);
        strbuf_addf(&sb, " (whl/%s)", py_alt->index);
    }
    if (rocm_alt) {
        char s[16];
        index_series(rocm_alt->index, s, sizeof(s));
        strbuf_addf(&sb, "%s install ROCm %s or newer with its amdgpu driver (whl/%s has %s)",
                    py_alt ? ", or" : "; ", s, rocm_alt->index, cp);
    }
    if (!py_alt && !rocm_alt)
        strbuf_addf(&sb, "; no index in checks.yaml's torch_wheel tables fits this GPU");
    return strbuf_detach(&sb);
}

/* the row carries the pinned torch: "2.5.1" is in its torch list, or the
 * list names the release line ("2.9", from the release matrix) it is of */
static int torch_fit(const struct wheel_row *r, const char *pin)
{
    for (size_t i = 0; pin && r->torch && i < r->torch->values.n; i++) {
        const char *v = r->torch->values.v[i];
        size_t n = strlen(v);
        int line = strchr(v, '.') == strrchr(v, '.'); /* "2.9": one dot */
        if (!strcmp(v, pin) || (line && !strncmp(v, pin, n) && pin[n] == '.'))
            return 1;
    }
    return 0;
}

static void torch_span(const struct wheel_row *r, struct strbuf *sb)
{
    for (size_t i = 0; r->torch && i < r->torch->values.n; i++)
        strbuf_addf(sb, "%s%s", i ? ", " : "", r->torch->values.v[i]);
    if (!r->torch || !r->torch->values.n)
        strbuf_addf(sb, "no torch version the data knows");
}

int python_wheel_pick(const struct checkset *cs, const char *cp, const struct strlist *gfx,
                      const char *series, char **index, char **why)
{
    return python_wheel_pick_pin(cs, cp, gfx, series, NULL, index, why);
}

int python_wheel_pick_pin(const struct checkset *cs, const char *cp, const struct strlist *gfx,
                          const char *series, const char *pin, char **index, char **why)
{
    *index = *why = NULL;
    const struct data_table *order = cs ? checks_data_find(cs, "rocm_release_order", NULL) : NULL;
    size_t n = 0;
    for (size_t i = 0; cs && i < cs->ndata; i++)
        n += strcmp(cs->data[i].name, "torch_wheel_python") == 0 && cs->data[i].key;
    if (!order || !n)
        return -ENOENT;
    struct wheel_row *rows = xcalloc(n, sizeof(*rows));
    n = 0;
    for (size_t i = 0; i < cs->ndata; i++) {
        const struct data_table *t = &cs->data[i];
        if (strcmp(t->name, "torch_wheel_python") != 0 || !t->key)
            continue;
        struct wheel_row *r = &rows[n++];
        char s[16];
        r->index = t->key;
        r->python = t;
        r->gfx = checks_data_find(cs, "torch_wheel_gfx", t->key);
        r->torch = checks_data_find(cs, "torch_wheel_torch", t->key);
        const struct data_table *v = checks_data_find(cs, "torch_wheel_verified", t->key);
        r->verified_index = list_has(v, "index");
        r->verified_gfx = list_has(v, "gfx");
        index_series(t->key, s, sizeof(s));
        r->pos = release_pos(order, s);
    }
    int *anywhere = xcalloc(gfx && gfx->n ? gfx->n : 1, sizeof(int));
    for (size_t g = 0; gfx && g < gfx->n; g++)
        for (size_t i = 0; i < n && !anywhere[g]; i++)
            anywhere[g] = list_has(rows[i].gfx, gfx->v[g]);
    int d = release_pos(order, series);
    const struct wheel_row *pick = NULL, *pinned = NULL;
    int best = -1, best_pinned = -1;
    /* file order is oldest first: a tie goes to the later (newer) row; a
     * pinned torch goes only to an index that carries it (whl/rocm6.2.4
     * has 2.6.0 alone: torch==2.5.1 there fails to resolve) */
    for (size_t i = 0; i < n; i++) {
        const struct wheel_row *r = &rows[i];
        if (!r->verified_index || (cp && !list_has(r->python, cp)) || !gfx_fit(r, gfx, anywhere))
            continue;
        int dist = d < 0 ? 0 : r->pos < 0 ? -1 : abs(r->pos - d);
        if (dist < 0 || dist > WHEEL_DRIVER_SPAN)
            continue;
        if (best < 0 || dist <= best) {
            best = dist;
            pick = r;
        }
        if (pin && torch_fit(r, pin) && (best_pinned < 0 || dist <= best_pinned)) {
            best_pinned = dist;
            pinned = r;
        }
    }
    const struct wheel_row *unpinned = pin && !pinned ? pick : NULL;
    if (pin)
        pick = pinned;
    struct strbuf sb = STRBUF_INIT;
    if (pick) {
        *index = xstrdup(pick->index);
        strbuf_addf(&sb, "whl/%s has ", pick->index);
        describe_want(&sb, cp, gfx);
        if (!pick->verified_gfx && gfx && gfx->n)
            strbuf_addf(&sb, " (its gfx targets are not confirmed at the source: checks.yaml "
                             "torch_wheel_gfx)");
        if (pin)
            strbuf_addf(&sb, " and torch %s", pin);
        if (d >= 0)
            strbuf_addf(&sb, "; the kernel driver of ROCm %s supports it", series);
        else if (series)
            strbuf_addf(&sb, "; ROCm %s is not in rocm_release_order, so the driver was not judged",
                        series);
        else
            strbuf_addf(&sb, "; no ROCm installed: the newest such index");
        *why = strbuf_detach(&sb);
    } else if (unpinned) {
        /* an index fits all but the pin: the pin moves, not the machine */
        strbuf_addf(&sb, "the requirements pin torch==%s, which no PyTorch ROCm wheel index for ",
                    pin);
        describe_want(&sb, cp, gfx);
        strbuf_addf(&sb, " carries; move the pin to a version whl/%s has (", unpinned->index);
        torch_span(unpinned, &sb);
        strbuf_addf(&sb, ")");
        if (!list_has(checks_data_find(cs, "torch_wheel_verified", unpinned->index), "torch"))
            strbuf_addf(&sb, " (its torch versions are not confirmed at the source)");
        *why = strbuf_detach(&sb);
    } else if (d >= 0) {
        *why = none_why(rows, n, d, series, cp, gfx, anywhere);
    } else {
        strbuf_addf(&sb, "no PyTorch ROCm wheel index in checks.yaml has a wheel for ");
        describe_want(&sb, cp, gfx);
        *why = strbuf_detach(&sb);
    }
    free(anywhere);
    free(rows);
    return 0;
}

/* gpu.<i>.gfx of each AMD GPU, without feature suffixes ("gfx90a:xnack-") */
static void gpu_targets(const struct factset *fs, struct strlist *out)
{
    const struct fact *count = fact_get(fs, "gpu.count");
    for (int64_t i = 0; count && count->type == FACT_INT && i < count->i; i++) {
        char name[FACT_NAME_MAX];
        snprintf(name, sizeof(name), "gpu.%lld.gfx", (long long)i);
        const struct fact *g = fact_get(fs, name);
        if (!g || g->type != FACT_STR || !*g->s)
            continue;
        char *t = xstrndup(g->s, strcspn(g->s, ":"));
        if (!strlist_has(out, t))
            strlist_add(out, t);
        free(t);
    }
}

void python_wheel_fact(struct factset *fs, const struct checkset *cs, const char *version)
{
    const char *idx = "python.torch_wheel_index", *why_name = "python.torch_wheel_index_why";
    const char *src = "checks.yaml torch_wheel tables";
    unsigned maj, min;
    char cp[16];
    int have_cp = version && sscanf(version, "%u.%u", &maj, &min) == 2;
    if (have_cp)
        snprintf(cp, sizeof(cp), "cp%u%u", maj, min);
    const struct fact *series = fact_get(fs, "rocm.series");
    const char *s = series && series->type == FACT_STR && *series->s ? series->s : NULL;
    struct strlist gfx = STRLIST_INIT;
    gpu_targets(fs, &gfx);
    /* probe_python sets the requirements' torch pin before this runs */
    const struct fact *pf = fact_get(fs, "python.requirements_torch_pin");
    const char *pin = pf && pf->type == FACT_STR && *pf->s ? pf->s : NULL;
    char *index, *why;
    if (python_wheel_pick_pin(cs, have_cp ? cp : NULL, &gfx, s, pin, &index, &why)) {
        fact_set_unknown(fs, idx, src, "no torch_wheel_python or rocm_release_order table in %s",
                         cs ? checks_origin(cs) : "the checks (none loaded)");
        fact_set_unknown(fs, why_name, src, "no wheel index tables");
    } else {
        if (index) {
            char *url = xasprintf("https://download.pytorch.org/whl/%s", index);
            fact_set_str(fs, idx, url, src);
            free(url);
        } else {
            fact_set_str(fs, idx, "none", src);
        }
        fact_set_str(fs, why_name, why, src);
    }
    free(index);
    free(why);
    strlist_release(&gfx);
}
