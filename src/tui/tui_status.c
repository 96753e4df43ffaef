/* tui_status.c - the status that colours each part of a GPU panel (see
 * tui_status.h). */
#include "tui_status.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* the per-GPU fact names (after "gpu." or "gpu.N.") each part shows; an
 * entry ending in '*' is a prefix */
static const char *const part_facts[TP__COUNT][6] = {
    [TP_CLOCKS] = {"sclk*", "mclk*"},
    [TP_POWER] = {"power*", "busy_percent", "fan*"},
    [TP_TEMP] = {"temp_*"},
    [TP_VRAM] = {"vram_bytes", "vis_vram_bytes", "vram_used*", "gtt*"},
    [TP_PCIE] = {"link.*", "pcie_replay_count"},
    [TP_THROTTLE] = {"throttle*"},
    [TP_USERS] = {"users"},
};

static int name_matches(const char *pat, const char *rest)
{
    size_t n = strlen(pat);
    if (n && pat[n - 1] == '*')
        return strncmp(pat, rest, n - 1) == 0;
    return strcmp(pat, rest) == 0;
}

/* the part that fact `name` stands for on GPU g, or -1: "gpu.x" in a
 * per-GPU check (judged on each GPU), "gpu.G.x" in any check */
static int fact_part(const char *name, int per_gpu, int g)
{
    if (strncmp(name, "gpu.", 4) != 0)
        return -1;
    const char *rest = name + 4;
    if (isdigit((unsigned char)*rest)) {
        char *end;
        long i = strtol(rest, &end, 10);
        if (i != g || *end != '.')
            return -1;
        rest = end + 1;
    } else if (!per_gpu) {
        return -1;
    }
    for (int p = 0; p < TP__COUNT; p++)
        for (size_t k = 0; k < 6 && part_facts[p][k]; k++)
            if (name_matches(part_facts[p][k], rest))
                return p;
    return -1;
}

/* the result's status on GPU g: its per-GPU verdict there, else the
 * result's own */
static enum status status_on(const struct result *r, int g)
{
    if (r->check->per_gpu && r->gst)
        return (size_t)g < r->ngst ? r->gst[g] : ST__COUNT;
    return r->st;
}

int tui_status_severity(enum status st)
{
    static const int sev[ST__COUNT] = {
        [ST_WARN] = 1, [ST_TIMEOUT] = 2, [ST_ERROR] = 3, [ST_FAIL] = 4};
    return st < ST__COUNT ? sev[st] : 0;
}

void tui_status_parts(const struct tui_model *m, int g, enum status out[TP__COUNT])
{
    for (int p = 0; p < TP__COUNT; p++)
        out[p] = ST_PASS;
    for (size_t i = 0; m->have_res && i < m->res.n; i++) {
        const struct result *r = &m->res.v[i];
        enum status st = status_on(r, g);
        if (!tui_status_severity(st))
            continue;
        struct strlist facts = STRLIST_INIT;
        check_facts(r->check, &facts);
        for (size_t k = 0; k < facts.n; k++) {
            int p = fact_part(facts.v[k], r->check->per_gpu, g);
            if (p >= 0 && tui_status_severity(st) > tui_status_severity(out[p]))
                out[p] = st;
        }
        strlist_release(&facts);
    }
}
