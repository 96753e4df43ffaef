/* tel_table.c - see tel_table.h. The only string from outside in a row is
 * the throttle reasons' names (the sampler's own words), sanitised anyway;
 * the process list stays in the JSON and CSV. */
#include "tel_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/escape.h"
#include "../core/util.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* a numeric column: its key, width (the wider of its header and its
 * widest plausible value), scale and decimals */
struct tcol {
    const char *name, *unit;
    int key, width;
    double scale;
    int decimals;
};

/* what `amd-smi monitor` shows by default (power, hotspot and memory
 * temperatures, clocks, activity, VRAM) and the fan; the edge temperature,
 * the limits and the rest are in the JSON and CSV. Widths: power to
 * 9999 W, temperatures to 999 C, clocks to 99999 MHz, percentages to 100,
 * VRAM to 9999.9 GiB (a 288 GiB MI355X fits many times) */
/* clang-format off */
static const struct tcol cols[] = {
    {"pwr", "W", TEL_POWER_W, 4, 1, 0},
    {"junc", "C", TEL_TEMP_JUNCTION_C, 4, 1, 0},
    {"memT", "C", TEL_TEMP_MEM_C, 4, 1, 0},
    {"sclk", "MHz", TEL_SCLK_MHZ, 5, 1, 0},
    {"mclk", "MHz", TEL_MCLK_MHZ, 5, 1, 0},
    {"gfx", "%", TEL_BUSY_PCT, 4, 1, 0},
    {"mem", "%", TEL_MEM_BUSY_PCT, 4, 1, 0},
    {"vram", "GiB", TEL_VRAM_USED_B, 6, GIB, 1},
    {"fan", "%", TEL_FAN_PCT, 4, 1, 0},
};
/* clang-format on */

#define TIME_W 8 /* HH:MM:SS */
#define GPU_W 3
#define PCIE_W 7      /* "2.5x16", "32x16", "128x16" */
#define THROTTLE_W 24 /* the names of the reasons on; cut with "..." past it */
#define RES_W 14      /* "thm:12%,ppt:3%" */

/* the residency counters by class: PROCHOT (the platform's hot line),
 * thermal, power */
static const struct {
    const char *name;
    enum tel_key k[6];
    size_t n;
} res_cls[] = {
    {"hot", {TEL_THR_PROCHOT}, 1},
    {"thm",
     {TEL_THR_SOCKET_THM, TEL_THR_VR_THM, TEL_THR_HBM_THM, TEL_THR_THM_CORE, TEL_THR_THM_GFX,
      TEL_THR_THM_SOC},
     6},
    {"ppt", {TEL_THR_PPT, TEL_THR_SPL, TEL_THR_FPPT, TEL_THR_SPPT}, 4},
};

void tel_residency_cell(const struct tel_gpu *prev, const struct tel_gpu *cur, char *buf, size_t n)
{
    snprintf(buf, n, "-");
    if (!prev)
        return;
    int acc_ok = prev->src[TEL_THR_ACC] && cur->src[TEL_THR_ACC] &&
                 cur->v[TEL_THR_ACC] > prev->v[TEL_THR_ACC];
    double acc = acc_ok ? cur->v[TEL_THR_ACC] - prev->v[TEL_THR_ACC] : 0;
    int known = 0;
    size_t used = 0;
    for (size_t c = 0; c < ARRAY_SIZE(res_cls); c++) {
        double grew = 0;
        for (size_t i = 0; i < res_cls[c].n; i++) {
            enum tel_key k = res_cls[c].k[i];
            /* a counter that went back (driver reload) is no growth */
            if (!prev->src[k] || !cur->src[k] || cur->v[k] < prev->v[k])
                continue;
            known = 1;
            double d = cur->v[k] - prev->v[k];
            grew = d > grew ? d : grew;
        }
        if (grew <= 0 || used >= n)
            continue;
        int w = acc_ok ? snprintf(buf + used, n - used, "%s%s:%.0f%%", used ? "," : "",
                                  res_cls[c].name, grew / acc * 100)
                       : snprintf(buf + used, n - used, "%s%s:+%.0f", used ? "," : "",
                                  res_cls[c].name, grew);
        used = w < 0 ? n : used + (size_t)w;
    }
    if (known && !used)
        snprintf(buf, n, "none");
    else if (!known)
        snprintf(buf, n, "-");
}

void tel_table_release(struct tel_table *t)
{
    free(t->prev);
    t->prev = NULL;
    t->nprev = 0;
}

static void header(FILE *out)
{
    fprintf(out, "%-*s %*s", TIME_W + 2, "# time", GPU_W, "gpu");
    for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
        fprintf(out, " %*s", cols[c].width, cols[c].name);
    fprintf(out, " %*s %-*s %s\n", PCIE_W, "pcie", RES_W, "res", "throttle");
    fprintf(out, "%-*s %*s", TIME_W + 2, "# HH:MM:SS", GPU_W, "idx");
    for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
        fprintf(out, " %*s", cols[c].width, cols[c].unit);
    fprintf(out, " %*s %-*s %s\n", PCIE_W, "GT/s x", RES_W, "%acc", "reasons on");
}

static void row(FILE *out, const struct tel_sample *s, size_t i, const struct tel_gpu *prev)
{
    const struct tel_gpu *g = &s->gpus[i];
    char when[16];
    time_t tt = (time_t)s->wall_s;
    struct tm tm;
    localtime_r(&tt, &tm);
    strftime(when, sizeof(when), "%H:%M:%S", &tm);
    fprintf(out, "  %-*s %*zu", TIME_W, when, GPU_W, i);
    for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
        double v = g->v[cols[c].key];
        if (!g->src[cols[c].key] || !isfinite(v))
            fprintf(out, " %*s", cols[c].width, "-");
        else
            fprintf(out, " %*.*f", cols[c].width, cols[c].decimals, v / cols[c].scale);
    }
    char pcie[32] = "-";
    if (g->src[TEL_PCIE_GTS] && g->src[TEL_PCIE_WIDTH] && isfinite(g->v[TEL_PCIE_GTS]))
        snprintf(pcie, sizeof(pcie), "%gx%.0f", g->v[TEL_PCIE_GTS], g->v[TEL_PCIE_WIDTH]);
    char res[64];
    tel_residency_cell(prev, g, res, sizeof(res));
    fprintf(out, " %*s %-*s ", PCIE_W, pcie, RES_W, res);
    if (!g->throttle_known) {
        fputs("-\n", out);
        return;
    }
    char *t = str_sanitize(g->throttle[0] ? g->throttle : "none", 0);
    if (strlen(t) > THROTTLE_W)
        fprintf(out, "%.*s...\n", THROTTLE_W - 3, t);
    else
        fprintf(out, "%s\n", t);
    free(t);
}

void tel_write_table(FILE *out, struct tel_table *t, const struct tel_sample *s)
{
    if (t->rows < 0 || t->rows + (long)s->ngpu > TEL_TABLE_HEADER_EVERY) {
        header(out);
        t->rows = 0;
    }
    for (size_t i = 0; i < s->ngpu; i++)
        row(out, s, i, i < t->nprev ? &t->prev[i] : NULL);
    t->rows += (long)s->ngpu;
    free(t->prev);
    t->prev = xcalloc(s->ngpu + 1, sizeof(*t->prev));
    if (s->ngpu)
        memcpy(t->prev, s->gpus, s->ngpu * sizeof(*t->prev));
    t->nprev = s->ngpu;
}
