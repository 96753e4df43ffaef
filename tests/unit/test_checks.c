/* test_checks.c - checks.yaml loading and the engine: rule order, unknown
 * facts skip instead of passing, per-GPU worst wins, probe errors. */
#include "../../src/checks.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static const char yaml[] =
    "schema: rocm-vla-doctor-checks/1\n"
    "data:\n"
    "  sup:\n"
    "    \"6.2\": [gfx1100, gfx942]\n"
    "checks:\n"
    "  - id: t.vram\n"
    "    title: vram\n"
    "    level: quick\n"
    "    per: gpu\n"
    "    skip: [{when: \"gpu.count == 0\", summary: \"no gpu\"}]\n"
    "    fail: [{when: \"gpu.vram < 12 GiB\", summary: \"small {gpu.vram}\"}]\n"
    "    warn: [{when: \"gpu.vram < 16 GiB\", summary: \"tight\", fix: \"buy\"}]\n"
    "    pass: {summary: \"ok {gpu.vram} on {gpu}\"}\n"
    "    fix: \"bigger gpu\"\n"
    "    why: w\n"
    "  - id: t.gfx\n"
    "    title: gfx\n"
    "    level: quick\n"
    "    per: gpu\n"
    "    fail: [{when: \"!(gpu.gfx in lookup(sup, rocm.series))\", summary: \"unsupported\"}]\n"
    "    pass: {summary: ok}\n"
    "    fix: f\n"
    "    why: w\n"
    "  - id: t.crash\n"
    "    title: crash\n"
    "    level: standard\n"
    "    probe: sync\n"
    "    pass: {summary: ok}\n"
    "    why: w\n";

static const struct result *find(const struct results *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].check->id, id) == 0)
            return &r->v[i];
    return NULL;
}

int main(void)
{
    struct checkset cs;
    CHECK(checks_load_string(&cs, "t.yaml", yaml, strlen(yaml)) == 0);
    CHECK(cs.n == 3);

    struct factset fs = FACTSET_INIT;
    fact_set_int(&fs, "gpu.count", 3, NULL);
    fact_set_int(&fs, "gpu.0.vram", 24LL << 30, NULL);
    fact_set_int(&fs, "gpu.1.vram", 14LL << 30, NULL);
    fact_set_unknown(&fs, "gpu.2.vram", "/sys/x", "permission denied");
    fact_set_str(&fs, "gpu.0.gfx", "gfx1100", NULL);
    fact_set_str(&fs, "gpu.1.gfx", "gfx942", NULL);
    fact_set_str(&fs, "gpu.2.gfx", "gfx1100", NULL);
    fact_set_str(&fs, "rocm.series", "6.2", NULL);
    fact_set_str(&fs, "probe.sync.status", "timeout", NULL);
    fact_set_str(&fs, "probe.sync.message", "killed after 20 s", NULL);

    struct results r;
    struct run_filter flt = {LEVEL_STANDARD, NULL};
    CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
    const struct result *v = find(&r, "t.vram");
    CHECK(v && v->st == ST_WARN); /* the warn of GPU 1 beats GPU 2's skip */
    CHECK(v && strstr(v->summary, "GPU 1: tight") != NULL);
    CHECK(v && v->fix && strcmp(v->fix, "buy") == 0);
    CHECK(v && v->nev == 3); /* gpu.0.vram gpu.1.vram gpu.2.vram */
    const struct result *g = find(&r, "t.gfx");
    CHECK(g && g->st == ST_PASS);
    CHECK(g && strstr(g->summary, "all 3 GPUs") != NULL);
    const struct result *c = find(&r, "t.crash");
    CHECK(c && c->st == ST_TIMEOUT);
    CHECK(c && strstr(c->summary, "killed after 20 s") != NULL);
    CHECK(results_exit_code(&r, 0) == 1); /* a timeout is never a silent pass */
    results_release(&r);

    /* an unknown fact on the only GPU: skip naming it, never pass */
    fact_set_int(&fs, "gpu.count", 1, NULL);
    fact_set_unknown(&fs, "gpu.0.vram", "/sys/y", "unreadable");
    struct run_filter quick = {LEVEL_QUICK, NULL};
    CHECK(checks_run(&cs, &fs, &quick, &r) == 0);
    v = find(&r, "t.vram");
    CHECK(v && v->st == ST_SKIP);
    CHECK(v && strstr(v->summary, "gpu.0.vram is unknown (unreadable)") != NULL);
    CHECK(find(&r, "t.crash") == NULL); /* standard-level check not run */
    results_release(&r);

    /* a ROCm series missing from the table: undecidable, skip */
    fact_set_str(&fs, "rocm.series", "9.9", NULL);
    CHECK(checks_run(&cs, &fs, &quick, &r) == 0);
    g = find(&r, "t.gfx");
    CHECK(g && g->st == ST_SKIP);
    CHECK(g && strstr(g->summary, "sup[9.9]") != NULL);
    results_release(&r);

    /* no GPUs: per-GPU checks evaluate once and skip by rule */
    fact_set_int(&fs, "gpu.count", 0, NULL);
    CHECK(checks_run(&cs, &fs, &quick, &r) == 0);
    v = find(&r, "t.vram");
    CHECK(v && v->st == ST_SKIP && strcmp(v->summary, "no gpu") == 0);
    results_release(&r);

    /* --only: exact ids and prefixes; unknown ids are an error */
    struct strlist only = STRLIST_INIT;
    strlist_add(&only, "t.");
    struct run_filter of = {LEVEL_QUICK, &only};
    CHECK(checks_run(&cs, &fs, &of, &r) == 0);
    CHECK(r.n == 3); /* --only overrides the level */
    results_release(&r);
    strlist_add(&only, "nope");
    CHECK(checks_run(&cs, &fs, &of, &r) == -1);
    strlist_release(&only);

    factset_release(&fs);
    checks_release(&cs);

    /* the shipped checks.yaml loads */
    CHECK(checks_load(&cs, "checks.yaml") == 0);
    CHECK(checks_find(&cs, "pcie.atomics") != NULL);
    checks_release(&cs);
    return test_report();
}
