/* telemetry.c - the sampler (telemetry.h): the sources of tel_source.h in
 * table order, paired by PCI address; the PCIe path of every GPU whose
 * address is known; the processes' busy % between samples. */
#include "telemetry.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/gpu_enum.h"
#include "../core/pci_path.h"
#include "monitor.h"
#include "tel_source.h"

/* the PCIe path's link files are re-read this often, not every frame: the
 * dashboard samples every 100 ms and a path is 2-6 hops of 4 link files
 * each, while an upstream link retrains rarely (a change shows within 1 s);
 * the path itself (a symlink resolution and the hops' ids) is read once */
#define PATH_EVERY_S 1.0
#define STATUS_MAX 600

#define TEL_KEY_NAME(e, name, unit, what) name,
static const char *const key_names[TEL_NKEYS] = {TEL_KEYS(TEL_KEY_NAME)};
#undef TEL_KEY_NAME
#define TEL_KEY_UNIT(e, name, unit, what) unit,
static const char *const key_units[TEL_NKEYS] = {TEL_KEYS(TEL_KEY_UNIT)};
#undef TEL_KEY_UNIT
#define TEL_KEY_WHAT(e, name, unit, what) what,
static const char *const key_whats[TEL_NKEYS] = {TEL_KEYS(TEL_KEY_WHAT)};
#undef TEL_KEY_WHAT

const char *tel_key_name(enum tel_key k)
{
    return (unsigned)k < TEL_NKEYS ? key_names[k] : "?";
}

const char *tel_key_unit(enum tel_key k)
{
    return (unsigned)k < TEL_NKEYS ? key_units[k] : "?";
}

const char *tel_key_meaning(enum tel_key k)
{
    return (unsigned)k < TEL_NKEYS ? key_whats[k] : "?";
}

/* engine time of one (pid, GPU) at the last sample, for busy % */
struct prev_engine {
    int pid;
    char pdev[16];
    int64_t ns;
};

/* one GPU's PCIe path as last read (PATH_EVERY_S) */
struct tel_path {
    double at; /* t of the read; < 0 never read */
    struct pci_hop *hops;
    size_t n;
    int rc; /* pci_path_read / pci_path_pick: 0 or -errno */
    double gts;
    unsigned width;
    char hop[16];
    double slot_gts; /* the slot's link (pci_path_slot); 0 when unreadable */
    unsigned slot_width;
};

/* one source as opened */
struct tel_src {
    const struct tel_source_ops *ops;
    void *st; /* NULL: not opened or failed */
    char status[STATUS_MAX];
    size_t n;
    int *gpu; /* per device: the GPU (index into struct tel's list) it reads, -1 none */
};

struct tel {
    size_t nsrc;
    struct tel_src *src;
    /* the GPUs, in the order the sources added them: owner[g] the source
     * that added GPU g, dev[g * nsrc + s] source s's device of it (-1 none) */
    size_t ngpu;
    size_t *owner;
    int *dev;
    char (*key)[16]; /* per GPU: struct tel_gpu.pci */
    /* per GPU: the last read of its PCIe path */
    struct tel_path *path;
    double recheck_s;
    int procs;
    double t0;
    double last_t;
    struct prev_engine *prev;
    size_t nprev;
};

static double now_real(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the GPU whose key is pci (case-insensitive), -1 none */
static int gpu_of_key(const struct tel *t, const char *pci)
{
    for (size_t g = 0; *pci && g < t->ngpu; g++)
        if (!strcasecmp(t->key[g], pci))
            return (int)g;
    return -1;
}

static void add_gpu(struct tel *t, size_t s, size_t d)
{
    size_t g = t->ngpu++;
    t->owner = xrealloc(t->owner, t->ngpu * sizeof(*t->owner));
    t->dev = xrealloc(t->dev, t->ngpu * t->nsrc * sizeof(*t->dev));
    t->key = xrealloc(t->key, t->ngpu * sizeof(*t->key));
    t->owner[g] = s;
    for (size_t k = 0; k < t->nsrc; k++)
        t->dev[g * t->nsrc + k] = k == s ? (int)d : -1;
    const char *pci = t->src[s].ops->pci(t->src[s].st, d);
    if (*pci)
        snprintf(t->key[g], sizeof(t->key[g]), "%s", pci);
    else { /* the source cannot tell the address: its name and index ("nvml:0") */
        char k[48];
        snprintf(k, sizeof(k), "%.20s:%zu", t->src[s].ops->name, d);
        snprintf(t->key[g], sizeof(t->key[g]), "%.15s", k);
    }
    t->src[s].gpu[d] = (int)g;
}

/* source s's devices: an overlay's onto the GPUs listed at their addresses,
 * another's as new GPUs unless listed already */
static void pair(struct tel *t, size_t s)
{
    struct tel_src *src = &t->src[s];
    const struct tel_source_ops *o = src->ops;
    if (o->overlay) {
        for (size_t g = 0; g < t->ngpu; g++) {
            int d = -1;
            if (o->find) {
                d = o->find(src->st, t->key[g]);
            } else {
                for (size_t k = 0; k < src->n && d < 0; k++)
                    if (!strcasecmp(o->pci(src->st, k), t->key[g]))
                        d = (int)k;
            }
            if (d >= 0 && (size_t)d < src->n && src->gpu[d] < 0) {
                t->dev[g * t->nsrc + s] = d;
                src->gpu[d] = (int)g;
            }
        }
        return;
    }
    for (size_t d = 0; d < src->n; d++)
        if (gpu_of_key(t, o->pci(src->st, d)) < 0) /* never one GPU twice */
            add_gpu(t, s, d);
}

struct tel *tel_open_sources(const struct tel_source_ops *const *srcs, size_t n,
                             const struct strlist *amd_bdfs, int vendor_libs, int procs)
{
    struct tel *t = xcalloc(1, sizeof(*t));
    t->nsrc = n;
    t->src = xcalloc(n + 1, sizeof(*t->src));
    t->recheck_s = TEL_RECHECK_S;
    t->procs = procs;
    for (size_t s = 0; s < n; s++) {
        struct tel_src *src = &t->src[s];
        src->ops = srcs[s];
        snprintf(src->status, sizeof(src->status), "not asked");
        if ((src->ops->vendor_lib && !vendor_libs) || (src->ops->overlay && !t->ngpu))
            continue;
        src->st = src->ops->open(amd_bdfs, src->status, sizeof(src->status));
        src->n = src->st ? src->ops->count(src->st) : 0;
        src->gpu = xcalloc(src->n + 1, sizeof(*src->gpu));
        for (size_t d = 0; d < src->n; d++)
            src->gpu[d] = -1;
        if (src->st)
            pair(t, s);
    }
    t->path = xcalloc(t->ngpu + 1, sizeof(*t->path));
    for (size_t g = 0; g < t->ngpu; g++)
        t->path[g].at = -1;
    t->t0 = util_mono_s();
    t->last_t = -1;
    return t;
}

struct tel *tel_open(const struct strlist *amd_bdfs, int vendor_libs, int procs)
{
    return tel_open_sources(tel_sources, tel_nsources, amd_bdfs, vendor_libs, procs);
}

const char *tel_source_status(const struct tel *t, const char *name)
{
    for (size_t s = 0; s < t->nsrc; s++)
        if (!strcmp(t->src[s].ops->name, name))
            return t->src[s].status;
    return NULL;
}

const char *tel_nvml_status(const struct tel *t)
{
    const char *s = tel_source_status(t, "nvml");
    return s ? s : "not asked";
}

const char *tel_rsmi_status(const struct tel *t)
{
    const char *s = tel_source_status(t, "rsmi");
    return s ? s : "not asked";
}

void tel_close(struct tel *t)
{
    if (!t)
        return;
    for (size_t s = 0; s < t->nsrc; s++) {
        if (t->src[s].st)
            t->src[s].ops->close(t->src[s].st);
        free(t->src[s].gpu);
    }
    for (size_t g = 0; g < t->ngpu; g++)
        free(t->path[g].hops);
    free(t->src);
    free(t->owner);
    free(t->dev);
    free(t->key);
    free(t->path);
    free(t->prev);
    free(t);
}

void tel_gpu_set(struct tel_gpu *g, enum tel_key k, double v, const char *src)
{
    g->v[k] = v;
    g->src[k] = src;
    g->why[k][0] = '\0';
}

void tel_gpu_unknown(struct tel_gpu *g, enum tel_key k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g->src[k] = NULL;
    vsnprintf(g->why[k], sizeof(g->why[k]), fmt, ap);
    va_end(ap);
}

void tel_set_recheck(struct tel *t, double seconds)
{
    t->recheck_s = seconds;
}

/* the narrowest and the slowest hop up to the root port (pci_path.h picks
 * them as the pcie.link check does), and whether they hold the GPU back */
static void pcie_path(struct tel_path *p, const char *bdf, struct tel_gpu *g, double now)
{
    if (p->at < 0 || now - p->at >= PATH_EVERY_S) {
        long narrow, slow;
        int first = p->at < 0;
        p->at = now;
        if (first)
            p->rc = pci_path_read(bdf, &p->hops, &p->n);
        else if (p->hops)
            pci_path_relink(p->hops, p->n);
        if (p->hops) {
            const struct pci_hop *h = p->hops;
            p->rc = pci_path_pick(h, p->n, &narrow, &slow);
            if (p->rc == 0) {
                p->width = h[narrow].width;
                p->gts = h[slow].speed;
                snprintf(p->hop, sizeof(p->hop), "%s", h[narrow].bdf);
            }
            const struct pci_hop *slot = &h[pci_path_slot(h, p->n)];
            p->slot_width = slot->has_link ? slot->width : 0;
            p->slot_gts = slot->has_link ? slot->speed : 0;
        }
    }
    if (p->slot_width > 0 && p->slot_gts > 0) {
        tel_gpu_set(g, TEL_LINK_SLOT_WIDTH, p->slot_width, "current_link_width");
        tel_gpu_set(g, TEL_LINK_SLOT_GTS, p->slot_gts, "current_link_speed");
    } else {
        tel_gpu_unknown(g, TEL_LINK_SLOT_WIDTH, "the slot's link files are not readable");
        tel_gpu_unknown(g, TEL_LINK_SLOT_GTS, "the slot's link files are not readable");
    }
    if (p->rc) {
        const char *why =
            p->rc == -ENOENT ? "no hop on the path has readable link files" : strerror(-p->rc);
        tel_gpu_unknown(g, TEL_PCIE_PATH_WIDTH, "PCIe path: %s", why);
        tel_gpu_unknown(g, TEL_PCIE_PATH_GTS, "PCIe path: %s", why);
        tel_gpu_unknown(g, TEL_PCIE_PATH_LIMITED, "PCIe path: %s", why);
        return;
    }
    snprintf(g->path_hop, sizeof(g->path_hop), "%s", p->hop);
    tel_gpu_set(g, TEL_PCIE_PATH_WIDTH, p->width, "PCIe path");
    tel_gpu_set(g, TEL_PCIE_PATH_GTS, p->gts, "PCIe path");
    if (!g->src[TEL_PCIE_MAX_WIDTH] || !g->src[TEL_PCIE_GTS]) {
        tel_gpu_unknown(g, TEL_PCIE_PATH_LIMITED, "the GPU's own link is unknown");
        return;
    }
    int limited = p->width < g->v[TEL_PCIE_MAX_WIDTH] || p->gts < g->v[TEL_PCIE_GTS] - 1e-9;
    tel_gpu_set(g, TEL_PCIE_PATH_LIMITED, limited, "PCIe path");
}

static void busy_from_prev(struct tel *t, struct tel_sample *s)
{
    double dt = t->last_t >= 0 ? s->t_s - t->last_t : -1;
    for (size_t i = 0; i < s->nproc; i++) {
        struct tel_proc *p = &s->procs[i];
        if (p->engine_ns < 0 || dt <= 0)
            continue;
        for (size_t k = 0; k < t->nprev; k++)
            if (t->prev[k].pid == p->pid && !strcmp(t->prev[k].pdev, s->gpus[p->gpu].pci) &&
                p->engine_ns >= t->prev[k].ns) {
                double pct = (double)(p->engine_ns - t->prev[k].ns) / (dt * 1e9) * 100.0;
                p->busy_pct = pct > 100 ? 100 : pct;
            }
    }
    free(t->prev);
    t->prev = xcalloc(s->nproc + 1, sizeof(*t->prev));
    t->nprev = 0;
    for (size_t i = 0; i < s->nproc; i++)
        if (s->procs[i].engine_ns >= 0) {
            struct prev_engine *pe = &t->prev[t->nprev++];
            pe->pid = s->procs[i].pid;
            pe->ns = s->procs[i].engine_ns;
            snprintf(pe->pdev, sizeof(pe->pdev), "%s", s->gpus[s->procs[i].gpu].pci);
        }
    t->last_t = s->t_s;
}

/* the GPUs' keys and vendors in s, without values */
static void list_gpus(const struct tel *t, struct tel_sample *s)
{
    s->ngpu = t->ngpu;
    s->gpus = xcalloc(s->ngpu + 1, sizeof(*s->gpus));
    for (size_t g = 0; g < t->ngpu; g++) {
        snprintf(s->gpus[g].pci, sizeof(s->gpus[g].pci), "%s", t->key[g]);
        snprintf(s->gpus[g].vendor, sizeof(s->gpus[g].vendor), "%s",
                 t->src[t->owner[g]].ops->vendor);
    }
}

/* every source's processes that owns a GPU of s: 0 when one of them read
 * its list, else the first -errno (0 when no source has a list to read) */
static int scan_procs(struct tel *t, struct tel_sample *s)
{
    size_t cap = 0;
    int rc = 0, read = 0;
    for (size_t k = 0; k < t->nsrc; k++) {
        struct tel_src *src = &t->src[k];
        int owns = 0;
        for (size_t g = 0; g < t->ngpu && !owns; g++)
            owns = t->owner[g] == k;
        if (!owns || !src->ops->processes)
            continue;
        int r = src->ops->processes(src->st, s, &cap, src->gpu);
        if (r == 0)
            read = 1;
        else if (!rc)
            rc = r;
    }
    return read ? 0 : rc;
}

void tel_sample(struct tel *t, struct tel_sample *s)
{
    memset(s, 0, sizeof(*s));
    s->t_s = util_mono_s() - t->t0;
    s->wall_s = now_real();
    list_gpus(t, s);
    struct tel_src_ctx c = {s->t_s, t->recheck_s};
    for (size_t g = 0; g < t->ngpu; g++) {
        /* a key no source reads for this GPU says so, never an empty reason */
        for (int k = 0; k < TEL_NKEYS; k++)
            tel_gpu_unknown(&s->gpus[g], (enum tel_key)k, "no source reads it for this GPU");
        /* the owner first, then the overlays in table order: what an
         * overlay gives wins, the rest stays the owner's */
        for (size_t k = 0; k < t->nsrc; k++) {
            int d = t->dev[g * t->nsrc + k];
            if (d >= 0)
                t->src[k].ops->sample(t->src[k].st, (size_t)d, &s->gpus[g], &c);
        }
        /* after the GPU's own link, from whichever source */
        const struct tel_src *o = &t->src[t->owner[g]];
        const char *pci = o->ops->pci(o->st, (size_t)t->dev[g * t->nsrc + t->owner[g]]);
        if (*pci)
            pcie_path(&t->path[g], pci, &s->gpus[g], s->t_s);
    }
    if (t->procs && s->ngpu) {
        scan_procs(t, s);
        busy_from_prev(t, s);
    }
}

int tel_sample_procs(struct tel *t, struct tel_sample *s)
{
    memset(s, 0, sizeof(*s));
    list_gpus(t, s);
    int rc = scan_procs(t, s);
    if (rc)
        tel_sample_release(s);
    return rc;
}

void tel_sample_release(struct tel_sample *s)
{
    free(s->gpus);
    free(s->procs);
    memset(s, 0, sizeof(*s));
}

const char *tel_gpu_key(struct tel *t, const char *pci, char *buf, size_t n)
{
    if (!t || !pci || !*pci)
        return NULL;
    int g = gpu_of_key(t, pci);
    /* another spelling of the address: the sources' own lookup */
    for (size_t k = 0; g < 0 && k < t->nsrc; k++) {
        const struct tel_src *src = &t->src[k];
        int d = src->st && src->ops->find ? src->ops->find(src->st, pci) : -1;
        if (d >= 0 && (size_t)d < src->n)
            g = src->gpu[d];
    }
    if (g < 0)
        return NULL;
    snprintf(buf, n, "%s", t->key[g]);
    return buf;
}

void tel_list_amd(struct strlist *bdfs)
{
    struct gpu_enum e;
    if (gpu_enumerate(&e))
        return;
    for (size_t i = 0; i < e.n; i++)
        if (e.v[i].vendor == PCI_VENDOR_AMD)
            strlist_add(bdfs, e.v[i].bdf);
    gpu_enum_release(&e);
}
