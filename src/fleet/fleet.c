/* fleet.c - load many node reports (diff's strict reader, diff_doc_load)
 * and compare the nodes with each other: the check verdicts that differ,
 * the figures against the fleet's median, the versions against the
 * majority (see fleet.h for what gates). The renderers are in fleet_out.c. */
#include "fleet.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/fact.h"
#include "../core/util.h"
#include "../snapshot/snapshot_linkplan.h"

/* The figures that matter and how far from the median a node may be before
 * it is marked. Defaults: copies over PCIe vary run to run by a few percent
 * on one node (docs/PERFORMANCE.md), so 15% is a real difference; a GEMM
 * rate is steadier (10%); the VLA latency includes the host, 15%. */
/* clang-format off */
const struct fleet_figure fleet_figures[] = {
    {"bw.h2d_pinned_gbs", "H2D GB/s", "GB/s", +1, 15},
    {"bw.d2h_pinned_gbs", "D2H GB/s", "GB/s", +1, 15},
    {"gpu.gemm_peak.bf16_tflops", "bf16 TFLOP/s", "TFLOP/s", +1, 10},
    {"gpu.gemm_peak.fp32_tflops", "fp32 TFLOP/s", "TFLOP/s", +1, 10},
    {"vla.latency.total_ms", "VLA p50 ms", "ms", -1, 15},
};
const size_t fleet_nfigures = ARRAY_SIZE(fleet_figures);

const struct fleet_version fleet_versions[] = {
    {"driver", "driver.version", NULL},
    {"rocm", "rocm.version", NULL},
    {"kernel", "kernel.release", NULL},
    {"vbios", "gpu.<i>.vbios", "gpu.<i>.device_id"},
};
const size_t fleet_nversions = ARRAY_SIZE(fleet_versions);
/* clang-format on */

_Static_assert(ARRAY_SIZE(fleet_figures) <= FLEET_MAX_FIGURES, "raise FLEET_MAX_FIGURES");
_Static_assert(ARRAY_SIZE(fleet_versions) <= FLEET_MAX_VERSIONS, "raise FLEET_MAX_VERSIONS");

/* ---- loading ---------------------------------------------------------- */

static int add_file(struct fleet *f, const char *path)
{
    f->nodes = xrealloc(f->nodes, (f->n + 1) * sizeof(*f->nodes));
    struct fleet_node *n = &f->nodes[f->n];
    memset(n, 0, sizeof(*n));
    if (diff_doc_load(&n->doc, path))
        return -1;
    f->n++;
    const struct json *h = json_get(n->doc.facts, "host.hostname");
    if (h && h->type == JSON_STR && h->str[0]) {
        n->name = xstrdup(h->str);
    } else {
        const char *slash = strrchr(path, '/');
        n->name = xstrdup(slash ? slash + 1 : path);
    }
    return 0;
}

static int add_dir(struct fleet *f, const char *dir)
{
    struct strlist names = STRLIST_INIT;
    if (snapshot_list_dir(dir, &names))
        return -1;
    strlist_sort(&names);
    size_t before = f->n;
    int rc = 0;
    for (size_t i = 0; i < names.n && !rc; i++) {
        if (!str_ends(names.v[i], ".json") || names.v[i][0] == '.')
            continue;
        char *p = xasprintf("%s/%s", dir, names.v[i]);
        rc = add_file(f, p);
        free(p);
    }
    strlist_release(&names);
    if (!rc && f->n == before)
        rc = error("fleet: directory '%s' holds no *.json report", dir);
    return rc;
}

int fleet_load(struct fleet *f, char **args, int nargs)
{
    memset(f, 0, sizeof(*f));
    for (int i = 0; i < nargs; i++) {
        struct stat st;
        /* a directory is listed; anything else is a report for the reader,
         * which refuses what is not a regular file with its own message */
        int rc = stat(args[i], &st) == 0 && S_ISDIR(st.st_mode) ? add_dir(f, args[i])
                                                                : add_file(f, args[i]);
        if (rc)
            return -1;
    }
    return 0;
}

/* ---- comparing -------------------------------------------------------- */

static int is_failing(const char *st)
{
    return strcmp(st, "fail") == 0 || strcmp(st, "error") == 0 || strcmp(st, "timeout") == 0;
}

const char *fleet_check_status(const struct fleet_node *n, const char *id)
{
    const struct json *ck = diff_find_check(&n->doc, id);
    return ck ? json_get(ck, "status")->str : "-";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* GPU i's model for a grouped version: the group fact's text, "?" when
 * the report lacks it (such GPUs are compared with each other) */
static const char *gpu_model(const struct fleet_node *n, const char *group, int i)
{
    char name[FACT_NAME_MAX];
    snprintf(name, sizeof(name), "gpu.%d.%s", i, group + 8);
    const struct json *v = json_get(n->doc.facts, name);
    return v && v->type == JSON_STR && v->str[0] ? v->str : "?";
}

/* the node's version text: the fact, or for "gpu.<i>.X" the distinct
 * values of every GPU joined by ", " in GPU order, only the GPUs whose
 * model (group) is model when that is not NULL; NULL when unknown. With
 * models, each model the node's GPUs have is added to models once. */
static char *version_of(const struct fleet_node *n, const struct fleet_version *fv,
                        const char *model, struct strlist *models, struct strset *mseen)
{
    const char *fact = fv->fact;
    if (!str_starts(fact, "gpu.<i>.")) {
        const struct json *v = json_get(n->doc.facts, fact);
        return v && v->type == JSON_STR && v->str[0] ? xstrdup(v->str) : NULL;
    }
    struct strset seen = STRSET_INIT; /* borrows the report's strings */
    struct strbuf sb = STRBUF_INIT;
    for (int i = 0; i < 4096; i++) {
        char name[FACT_NAME_MAX];
        snprintf(name, sizeof(name), "gpu.%d.%s", i, fact + 8);
        const struct json *v = json_get(n->doc.facts, name);
        if (!v) {
            char pci[48];
            snprintf(pci, sizeof(pci), "gpu.%d.pci", i);
            if (!json_get(n->doc.facts, pci))
                break; /* past the last GPU */
            continue;
        }
        if (v->type != JSON_STR || !v->str[0])
            continue;
        if (fv->group && models)
            strlist_add_unique(models, mseen, gpu_model(n, fv->group, i));
        if (fv->group && model && strcmp(gpu_model(n, fv->group, i), model) != 0)
            continue;
        if (!strset_add(&seen, v->str, 0))
            continue;
        strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", v->str);
    }
    strset_release(&seen);
    return sb.len ? strbuf_detach(&sb) : (strbuf_release(&sb), NULL);
}

static double threshold_for(const struct fleet_opts *o, size_t k)
{
    double pct = fleet_figures[k].threshold_pct;
    for (size_t i = 0; o && i < o->tol.ntol; i++)
        if (fnmatch(o->tol.tol[i].pattern, fleet_figures[k].fact, 0) == 0)
            pct = o->tol.tol[i].pct;
    return pct;
}

static void compare_checks(struct fleet *f)
{
    /* the union of the nodes' ids, each once (the set borrows the copies in
     * ids), sorted for the output */
    struct strlist ids = STRLIST_INIT;
    struct strset seen = STRSET_INIT;
    for (size_t i = 0; i < f->n; i++) {
        struct fleet_node *n = &f->nodes[i];
        for (size_t c = 0; c < n->doc.checks->n; c++) {
            const struct json *ck = n->doc.checks->items[c];
            const char *id = json_get(ck, "id")->str;
            if (is_failing(json_get(ck, "status")->str))
                n->failed = 1, n->nfailed++;
            strlist_add_unique(&ids, &seen, id);
        }
        f->nfailing += n->failed;
    }
    strset_release(&seen);
    strlist_sort(&ids);
    for (size_t c = 0; c < ids.n; c++)
        for (size_t i = 1; i < f->n; i++)
            if (strcmp(fleet_check_status(&f->nodes[0], ids.v[c]),
                       fleet_check_status(&f->nodes[i], ids.v[c])) != 0) {
                strlist_add(&f->differing, ids.v[c]);
                break;
            }
    strlist_release(&ids);
}

/* the node's figure: the fact itself, else, from a report whose probe ran
 * once per GPU (gpu.<j>.R, R the fact without a leading "gpu."), its worst
 * GPU: the node is as good as its slowest GPU. 0 when unknown. */
static int node_figure(const struct fleet_node *n, size_t k, double *out)
{
    const char *fact = fleet_figures[k].fact;
    const struct json *v = json_get(n->doc.facts, fact);
    if (v && v->type == JSON_NUM && isfinite(v->num)) {
        *out = v->num;
        return 1;
    }
    const char *tail = str_starts(fact, "gpu.") ? fact + 4 : fact;
    int found = 0;
    for (size_t i = 0; i < n->doc.facts->n; i++) {
        const char *key = n->doc.facts->keys[i], *d = key + 4;
        const struct json *g = n->doc.facts->items[i];
        size_t len = 0;
        if (!str_starts(key, "gpu.") || g->type != JSON_NUM || !isfinite(g->num))
            continue;
        while (d[len] >= '0' && d[len] <= '9')
            len++;
        if (!len || d[len] != '.' || strcmp(d + len + 1, tail) != 0)
            continue;
        if (!found || (fleet_figures[k].direction > 0 ? g->num < *out : g->num > *out))
            *out = g->num;
        found = 1;
    }
    return found;
}

static void compare_figures(struct fleet *f, const struct fleet_opts *o)
{
    double *vals = xcalloc(f->n ? f->n : 1, sizeof(double));
    for (size_t k = 0; k < fleet_nfigures; k++) {
        size_t m = 0;
        f->threshold[k] = threshold_for(o, k);
        for (size_t i = 0; i < f->n; i++) {
            struct fleet_node *n = &f->nodes[i];
            if (node_figure(n, k, &n->fig[k])) {
                n->has[k] = 1;
                vals[m++] = n->fig[k];
            }
        }
        if (m < 2)
            continue; /* one node is its own median */
        qsort(vals, m, sizeof(double), cmp_double);
        double med = m % 2 ? vals[m / 2] : (vals[m / 2 - 1] + vals[m / 2]) / 2;
        f->has_median[k] = 1;
        f->median[k] = med;
        for (size_t i = 0; i < f->n; i++) {
            struct fleet_node *n = &f->nodes[i];
            if (!n->has[k] || med == 0)
                continue;
            n->dev_pct[k] = (n->fig[k] - med) / fabs(med) * 100.0;
            double worse = -fleet_figures[k].direction * n->dev_pct[k];
            if (f->threshold[k] >= 0 && worse > f->threshold[k]) {
                n->outlier[k] = 1;
                f->noutliers++;
            }
        }
    }
    free(vals);
}

/* the majority of n values (NULL: unknown there) into *maj, marking in
 * mismatch[] the nodes that differ from it; when two or more values tie
 * for most the fleet is split: *maj is NULL and every node that knows the
 * value is marked. Returns how many nodes were marked. */
static size_t majority_of(char *const *val, size_t n, const char **maj, int *mismatch)
{
    size_t best = 0, known = 0, marked = 0;
    *maj = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t count = 0;
        if (!val[i])
            continue;
        known++;
        for (size_t j = 0; j < n; j++)
            count += val[j] && strcmp(val[i], val[j]) == 0;
        if (count > best)
            best = count, *maj = val[i];
    }
    if (!known)
        return 0;
    int tie = 0;
    for (size_t i = 0; i < n; i++) {
        size_t count = 0;
        if (!val[i] || strcmp(val[i], *maj) == 0)
            continue;
        for (size_t j = 0; j < n; j++)
            count += val[j] && strcmp(val[i], val[j]) == 0;
        tie |= count == best;
    }
    if (tie)
        *maj = NULL;
    for (size_t i = 0; i < n; i++)
        if (val[i] && (tie || strcmp(val[i], *maj) != 0))
            mismatch[i] = 1, marked++;
    return marked;
}

/* a grouped version: a majority per model among the nodes that have it;
 * a node is marked once however many of its models differ */
static void compare_grouped(struct fleet *f, size_t k)
{
    struct strlist models = STRLIST_INIT;
    struct strset mseen = STRSET_INIT;
    for (size_t i = 0; i < f->n; i++)
        f->nodes[i].ver[k] = version_of(&f->nodes[i], &fleet_versions[k], NULL, &models, &mseen);
    strset_release(&mseen);
    strlist_sort(&models);
    f->nvgroup[k] = models.n;
    f->vgroup[k] = xcalloc(models.n ? models.n : 1, sizeof(struct fleet_vgroup));
    for (size_t g = 0; g < models.n; g++) {
        struct fleet_vgroup *vg = &f->vgroup[k][g];
        vg->model = xstrdup(models.v[g]);
        vg->val = xcalloc(f->n ? f->n : 1, sizeof(char *));
        vg->mismatch = xcalloc(f->n ? f->n : 1, sizeof(int));
        for (size_t i = 0; i < f->n; i++)
            vg->val[i] = version_of(&f->nodes[i], &fleet_versions[k], vg->model, NULL, NULL);
        majority_of(vg->val, f->n, &vg->majority, vg->mismatch);
        for (size_t i = 0; i < f->n; i++)
            f->nodes[i].mismatch[k] |= vg->mismatch[i];
    }
    strlist_release(&models);
    for (size_t i = 0; i < f->n; i++)
        f->nmismatches += f->nodes[i].mismatch[k];
    /* one model: its majority is the version's; several: per model only */
    f->majority[k] = f->nvgroup[k] == 1 ? f->vgroup[k][0].majority : NULL;
}

static void compare_versions(struct fleet *f)
{
    char **val = xcalloc(f->n ? f->n : 1, sizeof(char *));
    int *mismatch = xcalloc(f->n ? f->n : 1, sizeof(int));
    for (size_t k = 0; k < fleet_nversions; k++) {
        if (fleet_versions[k].group) {
            compare_grouped(f, k);
            continue;
        }
        for (size_t i = 0; i < f->n; i++)
            val[i] = f->nodes[i].ver[k] =
                version_of(&f->nodes[i], &fleet_versions[k], NULL, NULL, NULL);
        memset(mismatch, 0, (f->n ? f->n : 1) * sizeof(int));
        f->nmismatches += majority_of(val, f->n, &f->majority[k], mismatch);
        for (size_t i = 0; i < f->n; i++)
            f->nodes[i].mismatch[k] = mismatch[i];
    }
    free(mismatch);
    free(val);
}

size_t fleet_compare(struct fleet *f, const struct fleet_opts *o)
{
    compare_checks(f);
    compare_figures(f, o);
    compare_versions(f);
    return f->nfailing + f->noutliers + f->nmismatches;
}

void fleet_release(struct fleet *f)
{
    for (size_t i = 0; i < f->n; i++) {
        diff_doc_release(&f->nodes[i].doc);
        free(f->nodes[i].name);
        for (size_t k = 0; k < FLEET_MAX_VERSIONS; k++)
            free(f->nodes[i].ver[k]);
    }
    for (size_t k = 0; k < FLEET_MAX_VERSIONS; k++) {
        for (size_t g = 0; g < f->nvgroup[k]; g++) {
            for (size_t i = 0; i < f->n; i++)
                free(f->vgroup[k][g].val[i]);
            free(f->vgroup[k][g].val);
            free(f->vgroup[k][g].mismatch);
            free(f->vgroup[k][g].model);
        }
        free(f->vgroup[k]);
    }
    free(f->nodes);
    strlist_release(&f->differing);
    memset(f, 0, sizeof(*f));
}
