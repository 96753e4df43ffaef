/* soak_counters.c - see soak_counters.h. */
#include "soak_counters.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SRC "soak"
#define WHY_N (TEL_WHY_MAX + 32)
#define LINK_LIST_MAX 64 /* changes listed; soak.link_changes counts them all */

/* a limiter's residency counter, its class and its name in the detail */
enum cls { THERMAL, POWER };
static const struct {
    enum tel_key k;
    enum cls c;
    const char *name;
} limiters[] = {
    /* PROCHOT is the platform's "processor hot" line: the board or the
     * host asserts it for heat (a VR or the chassis), so it counts as
     * thermal, with its own name in the detail */
    {TEL_THR_PROCHOT, THERMAL, "PROCHOT"},
    {TEL_THR_SOCKET_THM, THERMAL, "socket thermal"},
    {TEL_THR_VR_THM, THERMAL, "VR thermal"},
    {TEL_THR_HBM_THM, THERMAL, "HBM thermal"},
    {TEL_THR_THM_CORE, THERMAL, "core thermal"},
    {TEL_THR_THM_GFX, THERMAL, "gfx thermal"},
    {TEL_THR_THM_SOC, THERMAL, "SoC thermal"},
    {TEL_THR_PPT, POWER, "PPT"},
    {TEL_THR_SPL, POWER, "SPL"},
    {TEL_THR_FPPT, POWER, "fast PPT"},
    {TEL_THR_SPPT, POWER, "slow PPT"},
};

/* growth of counter k of GPU g from its first to its last known sample:
 * 0 and *d, 1 when it is not known at two samples, -1 when it went back
 * (the driver reloaded: the run's count is lost) */
void soak_first_last(const struct tel_sample *s, size_t ns, size_t g, enum tel_key k, long *a,
                     long *b)
{
    *a = *b = -1;
    for (size_t i = 0; i < ns; i++)
        if (g < s[i].ngpu && s[i].gpus[g].src[k]) {
            if (*a < 0)
                *a = (long)i;
            *b = (long)i;
        }
}

static int growth(const struct tel_sample *s, size_t ns, size_t g, enum tel_key k, double *d)
{
    long a, b;
    soak_first_last(s, ns, g, k, &a, &b);
    if (a < 0 || b <= a)
        return 1;
    *d = s[b].gpus[g].v[k] - s[a].gpus[g].v[k];
    return *d < 0 ? -1 : 0;
}

/* the reason a counter of GPU g is unknown, from its last sample */
static const char *why_unknown(const struct tel_sample *s, size_t ns, size_t g, enum tel_key k)
{
    for (size_t i = ns; i-- > 0;)
        if (g < s[i].ngpu && s[i].gpus[g].why[k][0])
            return s[i].gpus[g].why[k];
    return "not read in two samples";
}

static size_t max_gpus(const struct tel_sample *s, size_t ns)
{
    size_t n = 0;
    for (size_t i = 0; i < ns; i++)
        n = s[i].ngpu > n ? s[i].ngpu : n;
    return n;
}

/* one class's growth summed over its counters and its largest share of
 * the accumulation counter; names of those that grew into detail */
struct cls_sum {
    int known, pct_known;
    double grew, pct;
};

static void residency_gpu(const struct tel_sample *s, size_t ns, size_t g, struct cls_sum *sum,
                          struct strbuf *detail, char (*why)[WHY_N])
{
    double acc = 0; /* read only when acc_ok; gcc -O3 cannot see that */
    int acc_ok = growth(s, ns, g, TEL_THR_ACC, &acc) == 0 && acc > 0;
    size_t n0 = detail->len;
    for (size_t i = 0; i < ARRAY_SIZE(limiters); i++) {
        double d;
        int rc = growth(s, ns, g, limiters[i].k, &d);
        char *w = why[limiters[i].c];
        if (rc == 1) {
            if (!w[0])
                snprintf(w, WHY_N, "GPU %zu: %s", g, why_unknown(s, ns, g, limiters[i].k));
            continue;
        }
        if (rc < 0) {
            snprintf(w, WHY_N, "GPU %zu: the %s counter went back (driver reloaded?)", g,
                     limiters[i].name);
            continue;
        }
        struct cls_sum *c = &sum[limiters[i].c];
        c->known = 1;
        c->grew += d;
        if (acc_ok) {
            double p = d / acc * 100;
            if (!c->pct_known || p > c->pct)
                c->pct = p;
            c->pct_known = 1;
        }
        if (d > 0) {
            if (detail->len == n0)
                strbuf_addf(detail, "%sGPU %zu:", detail->len ? "; " : "", g);
            if (acc_ok)
                strbuf_addf(detail, " %s %.1f%%", limiters[i].name, d / acc * 100);
            else
                strbuf_addf(detail, " %s +%.0f", limiters[i].name, d);
        }
    }
    if (detail->len > n0 && acc_ok)
        strbuf_addf(detail, " of the run (accumulation_counter +%.0f)", acc);
}

static void residency_facts(struct factset *fs, const struct tel_sample *s, size_t ns)
{
    struct cls_sum sum[2] = {{0}};
    struct strbuf detail = STRBUF_INIT;
    char why[2][WHY_N] = {"", ""};
    for (size_t g = 0; g < max_gpus(s, ns); g++)
        residency_gpu(s, ns, g, sum, &detail, why);
    static const char *const grew[2] = {"soak.residency_thermal_grew", "soak.residency_power_grew"};
    static const char *const pct[2] = {"soak.residency_thermal_pct", "soak.residency_power_pct"};
    for (int c = 0; c < 2; c++) {
        if (sum[c].known)
            fact_set_int(fs, grew[c], (int64_t)sum[c].grew, SRC);
        else
            fact_set_unknown(fs, grew[c], SRC, "no residency counter in two samples (%s)",
                             why[c][0] ? why[c] : "no sample");
        if (sum[c].pct_known)
            fact_set_float(fs, pct[c], sum[c].pct, SRC);
        else
            fact_set_unknown(fs, pct[c], SRC,
                             sum[c].known ? "no accumulation_counter to divide by (gpu_metrics "
                                            "v3_0 has none): only the growth is known"
                                          : "no residency counter in two samples");
    }
    if (sum[0].known || sum[1].known)
        fact_set_str(fs, "soak.residency_detail", detail.len ? detail.buf : "none grew", SRC);
    else
        fact_set_unknown(fs, "soak.residency_detail", SRC, "%s", why[0][0] ? why[0] : "no sample");
    strbuf_release(&detail);
}

/* the PCIe counters of one kind summed over the GPUs (keys: the
 * gpu_metrics accumulators; sysfs' pcie_replay_count stands in for the
 * replays where gpu_metrics has none) */
static void pcie_kind(struct factset *fs, const struct tel_sample *s, size_t ns, const char *fact,
                      const enum tel_key *keys, size_t nk, enum tel_key fallback,
                      struct strbuf *detail, const char *label)
{
    int known = 0;
    double total = 0;
    char why[TEL_WHY_MAX + 16] = "";
    for (size_t g = 0; g < max_gpus(s, ns); g++) {
        int gk = 0;
        double sum = 0;
        for (size_t i = 0; i < nk; i++) {
            double d;
            int rc = growth(s, ns, g, keys[i], &d);
            if (rc == 0)
                sum += d, gk = 1;
            else if (!why[0])
                snprintf(why, sizeof(why), "GPU %zu: %s", g,
                         rc < 0 ? "a counter went back" : why_unknown(s, ns, g, keys[i]));
        }
        double d;
        if (!gk && fallback != TEL_NKEYS && growth(s, ns, g, fallback, &d) == 0)
            sum = d, gk = 1;
        if (!gk)
            continue;
        known = 1;
        total += sum;
        if (sum > 0)
            strbuf_addf(detail, "%sGPU %zu %s +%.0f", detail->len ? "; " : "", g, label, sum);
    }
    if (known)
        fact_set_int(fs, fact, (int64_t)total, SRC);
    else
        fact_set_unknown(fs, fact, SRC, "%s", why[0] ? why : "no sample");
}

static void pcie_facts(struct factset *fs, const struct tel_sample *s, size_t ns)
{
    static const enum tel_key replay[] = {TEL_PCIE_REPLAY_ACC, TEL_PCIE_REPLAY_ROVER};
    static const enum tel_key recov[] = {TEL_PCIE_L0_RECOV, TEL_PCIE_OTHER_RECOV};
    static const enum tel_key nak[] = {TEL_PCIE_NAK_SENT, TEL_PCIE_NAK_RCVD};
    struct strbuf detail = STRBUF_INIT;
    pcie_kind(fs, s, ns, "soak.pcie_replays_grew", replay, ARRAY_SIZE(replay), TEL_PCIE_REPLAYS,
              &detail, "replays");
    pcie_kind(fs, s, ns, "soak.pcie_recoveries_grew", recov, ARRAY_SIZE(recov), TEL_NKEYS, &detail,
              "recoveries");
    pcie_kind(fs, s, ns, "soak.pcie_naks_grew", nak, ARRAY_SIZE(nak), TEL_NKEYS, &detail, "NAKs");
    fact_set_str(fs, "soak.pcie_counter_detail", detail.len ? detail.buf : "none grew", SRC);
    strbuf_release(&detail);
}

/* one GPU's slot link over the run: its first reading and its lowest */
struct link_run {
    int known;
    double w0, g0, wmin, gmin;
};

static void link_gpu(const struct tel_sample *s, size_t ns, size_t g, struct link_run *r,
                     long *changes, struct strlist *list, const char **why)
{
    const struct tel_gpu *prev = NULL;
    for (size_t i = 0; i < ns; i++) {
        if (g >= s[i].ngpu)
            continue;
        const struct tel_gpu *cur = &s[i].gpus[g];
        if (!cur->src[TEL_LINK_SLOT_WIDTH] || !cur->src[TEL_LINK_SLOT_GTS]) {
            if (cur->why[TEL_LINK_SLOT_WIDTH][0])
                *why = cur->why[TEL_LINK_SLOT_WIDTH];
            continue;
        }
        double w = cur->v[TEL_LINK_SLOT_WIDTH], sp = cur->v[TEL_LINK_SLOT_GTS];
        if (!r->known) {
            r->known = 1;
            r->w0 = r->wmin = w;
            r->g0 = r->gmin = sp;
        } else if (w != prev->v[TEL_LINK_SLOT_WIDTH] || sp != prev->v[TEL_LINK_SLOT_GTS]) {
            (*changes)++;
            if (list->n < LINK_LIST_MAX)
                strlist_add_owned(list,
                                  xasprintf("t=%.1fs GPU %zu x%.0f %g GT/s -> x%.0f %g GT/s",
                                            s[i].t_s - s[0].t_s, g, prev->v[TEL_LINK_SLOT_WIDTH],
                                            prev->v[TEL_LINK_SLOT_GTS], w, sp));
        }
        r->wmin = w < r->wmin ? w : r->wmin;
        r->gmin = sp < r->gmin ? sp : r->gmin;
        prev = cur;
    }
}

/* pcie.link_stable's question sample by sample: the slot link at the
 * first sample against every later one; the GPU that lost the most lanes
 * (then speed) is reported */
static void link_facts(struct factset *fs, const struct tel_sample *s, size_t ns)
{
    struct strlist list = STRLIST_INIT;
    long changes = 0;
    struct link_run worst = {0};
    const char *why = "no telemetry sample";
    for (size_t g = 0; g < max_gpus(s, ns); g++) {
        struct link_run r = {0};
        link_gpu(s, ns, g, &r, &changes, &list, &why);
        if (r.known &&
            (!worst.known || r.w0 - r.wmin > worst.w0 - worst.wmin ||
             (r.w0 - r.wmin == worst.w0 - worst.wmin && r.g0 - r.gmin > worst.g0 - worst.gmin)))
            worst = r;
    }
    if (!worst.known) {
        static const char *const names[] = {"soak.link_start_width", "soak.link_start_speed_gts",
                                            "soak.link_min_width",   "soak.link_min_speed_gts",
                                            "soak.link_changes",     "soak.link_change_list"};
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
            fact_set_unknown(fs, names[i], SRC, "the slot's link: %s", why);
        strlist_release(&list);
        return;
    }
    fact_set_int(fs, "soak.link_start_width", (int64_t)worst.w0, SRC);
    fact_set_float(fs, "soak.link_start_speed_gts", worst.g0, SRC);
    fact_set_int(fs, "soak.link_min_width", (int64_t)worst.wmin, SRC);
    fact_set_float(fs, "soak.link_min_speed_gts", worst.gmin, SRC);
    fact_set_int(fs, "soak.link_changes", changes, SRC);
    fact_set_list(fs, "soak.link_change_list", &list, SRC);
    strlist_release(&list);
}

void soak_counter_facts(struct factset *fs, const struct tel_sample *s, size_t ns)
{
    residency_facts(fs, s, ns);
    pcie_facts(fs, s, ns);
    link_facts(fs, s, ns);
}
