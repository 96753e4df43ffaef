/* tui_model.c - the dashboard's data: checks as facts, telemetry from the
 * shared sampler (see tui_model.h). */
#include "tui_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../probes/probe.h"
#include "../core/rootfs.h"
#include "../snapshot/snapshot.h"
#include "../telemetry/monitor.h"
#include "tui_layout.h"

static void local_time(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, n, "%H:%M:%S", &tm);
}

int tui_model_open(struct tui_model *m, const char *sysroot, const char *checks,
                   const struct probe_opts *popts, int hist_cap)
{
    memset(m, 0, sizeof(*m));
    m->sysroot = sysroot;
    m->popts = popts;
    m->hist_cap = hist_cap > 0 ? hist_cap : 1;
    if (sysroot_open(sysroot, &m->unpacked))
        return -1;
    int rc = checks_load_default(&m->cs, checks);
    if (rc) {
        tui_model_close(m);
        return -1;
    }
    m->have_cs = 1;
    /* the GPU list once (the gpu probe's numbering, as the checks use);
     * NVML only on the live host: a sysroot is another machine */
    struct strlist bdfs = STRLIST_INIT;
    tel_list_amd(&bdfs);
    m->tel = tel_open(&bdfs, rootfs_is_live(), 0);
    strlist_release(&bdfs);
    return 0;
}

static void hist_free(struct tui_model *m)
{
    for (int i = 0; i < m->nhist * TS__COUNT; i++)
        tui_ring_release(&m->hist[i]);
    free(m->hist);
    free(m->first_throttle);
    free(m->first_throttle_known);
    m->hist = NULL;
    m->first_throttle = NULL;
    m->first_throttle_known = NULL;
    m->nhist = 0;
}

void tui_model_close(struct tui_model *m)
{
    if (m->have_res)
        results_release(&m->res);
    factset_release(&m->check_facts);
    if (m->have_sample)
        tel_sample_release(&m->cur);
    if (m->have_procs)
        tel_sample_release(&m->procs);
    hist_free(m);
    tel_close(m->tel);
    if (m->have_cs)
        checks_release(&m->cs);
    sysroot_close(m->unpacked);
    memset(m, 0, sizeof(*m));
}

void tui_model_run_checks(struct tui_model *m)
{
    double t0 = util_mono_s();
    if (m->have_res)
        results_release(&m->res);
    m->have_res = 0;
    factset_release(&m->check_facts);
    struct probe_opts po = m->popts ? *m->popts : (struct probe_opts){0};
    po.checks = &m->cs;
    struct probe_ctx pctx = {&m->check_facts, LEVEL_QUICK, &po, 0};
    probes_run_all(&pctx);
    struct run_filter flt = {LEVEL_QUICK, NULL};
    if (checks_run(&m->cs, &m->check_facts, &flt, &m->res) == 0)
        m->have_res = 1;
    m->checks_s = util_mono_s() - t0;
    local_time(m->checks_time, sizeof(m->checks_time));
}

static double known(const struct tel_gpu *g, enum tel_key k)
{
    return g->src[k] ? g->v[k] : NAN;
}

/* history for the GPUs of the first sample; a GPU that appears later (or
 * falls off) keeps no plot rather than a shifted one */
static void push_history(struct tui_model *m)
{
    if (!m->hist) {
        m->nhist = (int)m->cur.ngpu;
        m->hist = xcalloc((size_t)m->nhist * TS__COUNT + 1, sizeof(*m->hist));
        m->first_throttle = xcalloc((size_t)m->nhist + 1, sizeof(uint64_t));
        m->first_throttle_known = xcalloc((size_t)m->nhist + 1, sizeof(int));
        for (int i = 0; i < m->nhist * TS__COUNT; i++)
            tui_ring_init(&m->hist[i], m->hist_cap);
        for (int g = 0; g < m->nhist; g++) {
            m->first_throttle_known[g] = m->cur.gpus[g].throttle_known;
            m->first_throttle[g] = m->cur.gpus[g].throttle_bits;
        }
    }
    for (int g = 0; g < m->nhist; g++) {
        const struct tel_gpu *tg = (size_t)g < m->cur.ngpu ? &m->cur.gpus[g] : NULL;
        struct tui_ring *r = &m->hist[g * TS__COUNT];
        tui_ring_push(&r[TS_BUSY], tg ? known(tg, TEL_BUSY_PCT) : NAN);
        tui_ring_push(&r[TS_POWER], tg ? known(tg, TEL_POWER_W) : NAN);
        tui_ring_push(&r[TS_JUNCTION], tg ? known(tg, TEL_TEMP_JUNCTION_C) : NAN);
        tui_ring_push(&r[TS_SCLK], tg ? known(tg, TEL_SCLK_MHZ) : NAN);
        /* a GPU whose first sample had no throttle status learns it later */
        if (tg && !m->first_throttle_known[g] && tg->throttle_known) {
            m->first_throttle_known[g] = 1;
            m->first_throttle[g] = tg->throttle_bits;
        }
    }
}

void tui_model_refresh_telemetry(struct tui_model *m)
{
    if (m->have_sample)
        tel_sample_release(&m->cur);
    tel_sample(m->tel, &m->cur);
    m->have_sample = 1;
    push_history(m);
    double now = util_mono_s();
    if (!m->have_procs || now - m->procs_at >= TUI_PROCS_EVERY_S) {
        if (m->have_procs)
            tel_sample_release(&m->procs);
        m->have_procs = tel_sample_procs(m->tel, &m->procs) == 0;
        m->procs_at = now;
    }
    local_time(m->tele_time, sizeof(m->tele_time));
}

int tui_model_gpu_count(const struct tui_model *m)
{
    if (!m->have_sample)
        return 0;
    return m->cur.ngpu > TUI_MAX_GPUS ? TUI_MAX_GPUS : (int)m->cur.ngpu;
}

const struct tui_ring *tui_model_hist(const struct tui_model *m, int g, enum tui_series s)
{
    if (g < 0 || g >= m->nhist || (unsigned)s >= TS__COUNT)
        return NULL;
    return &m->hist[g * TS__COUNT + s];
}

int tui_model_bad_checks(const struct tui_model *m)
{
    if (!m->have_res)
        return 0;
    const size_t *c = m->res.counts;
    return (int)(c[ST_FAIL] + c[ST_ERROR] + c[ST_TIMEOUT] + c[ST_WARN]);
}

size_t tui_model_check_order(const struct tui_model *m, size_t *order)
{
    static const enum status rank[] = {ST_FAIL, ST_ERROR, ST_TIMEOUT, ST_WARN, ST_SKIP, ST_PASS};
    size_t no = 0;
    for (size_t q = 0; m->have_res && q < ARRAY_SIZE(rank); q++)
        for (size_t i = 0; i < m->res.n; i++)
            if (m->res.v[i].st == rank[q])
                order[no++] = i;
    return no;
}
