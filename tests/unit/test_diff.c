/* test_diff.c - the comparison logic of `diff` (src/diff/diff.c): which status
 * moves are regressions, direction-aware tolerances on performance facts,
 * lost coverage and --allow-skip, and rejection of documents that are not
 * rocm-vla-doctor/1 reports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/diff/diff.h"
#include "src/core/util.h"
#include "test.h"

/* a report with the given checks ("id=status,...") and facts (JSON members) */
static int doc(struct diff_doc *d, const char *checks, const char *facts)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb,
                "{\"schema\": \"rocm-vla-doctor/1\", \"host\": {\"level\": \"quick\"}, "
                "\"facts\": {%s}, \"facts_meta\": {}, \"checks\": [",
                facts);
    struct strlist l = STRLIST_INIT;
    strlist_split(&l, checks, ",");
    for (size_t i = 0; i < l.n; i++) {
        char *eq = strchr(l.v[i], '=');
        *eq = 0;
        strbuf_addf(&sb,
                    "%s{\"id\": \"%s\", \"status\": \"%s\", \"summary\": \"s\", "
                    "\"evidence\": {}}",
                    i ? ", " : "", l.v[i], eq + 1);
    }
    strbuf_adds(&sb, "]}");
    int rc = diff_doc_parse(d, "test.json", sb.buf, sb.len);
    strlist_release(&l);
    strbuf_release(&sb);
    return rc;
}

static const struct diff_item *find(const struct diff_result *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].name, name) == 0)
            return &r->v[i];
    return NULL;
}

/* class of the one item for check "c" going from status a to status b; -1 none */
static int status_move(const char *a, const char *b, int allow_skip)
{
    char ca[64], cb[64];
    snprintf(ca, sizeof(ca), "c=%s", a);
    snprintf(cb, sizeof(cb), "c=%s", b);
    struct diff_doc x, y;
    if (doc(&x, ca, "") || doc(&y, cb, ""))
        return -2;
    struct diff_opts o = {NULL, 0, allow_skip};
    struct diff_result r;
    int rc = diff_compare(&x, &y, &o, &r);
    const struct diff_item *it = find(&r, "c");
    int cls = it ? (int)it->cls : -1;
    if (rc != (cls == DIFF_REGRESSION))
        cls = -3; /* return value disagrees with the items */
    diff_result_release(&r);
    diff_doc_release(&x);
    diff_doc_release(&y);
    return cls;
}

static void test_status_moves(void)
{
    CHECK(status_move("pass", "pass", 0) == -1);
    CHECK(status_move("pass", "warn", 0) == DIFF_REGRESSION);
    CHECK(status_move("pass", "fail", 0) == DIFF_REGRESSION);
    CHECK(status_move("pass", "error", 0) == DIFF_REGRESSION);
    CHECK(status_move("pass", "timeout", 0) == DIFF_REGRESSION);
    CHECK(status_move("warn", "fail", 0) == DIFF_REGRESSION);
    CHECK(status_move("warn", "timeout", 0) == DIFF_REGRESSION);
    CHECK(status_move("warn", "pass", 0) == DIFF_IMPROVEMENT);
    CHECK(status_move("fail", "warn", 0) == DIFF_IMPROVEMENT);
    CHECK(status_move("error", "pass", 0) == DIFF_IMPROVEMENT);
    /* still failing, another way: context */
    CHECK(status_move("fail", "error", 0) == DIFF_CHANGE);
    CHECK(status_move("timeout", "fail", 0) == DIFF_CHANGE);
    /* lost coverage */
    CHECK(status_move("pass", "skip", 0) == DIFF_REGRESSION);
    CHECK(status_move("warn", "skip", 0) == DIFF_REGRESSION);
    CHECK(status_move("pass", "skip", 1) == DIFF_CHANGE);
    CHECK(status_move("fail", "skip", 0) == DIFF_CHANGE);
    /* a check that starts to run */
    CHECK(status_move("skip", "pass", 0) == DIFF_CHANGE);
    CHECK(status_move("skip", "warn", 0) == DIFF_CHANGE);
    CHECK(status_move("skip", "fail", 0) == DIFF_REGRESSION);
    CHECK(status_move("skip", "fail", 1) == DIFF_REGRESSION);
}

static void test_added_removed_checks(void)
{
    struct diff_doc x, y;
    CHECK(doc(&x, "a=pass,b=fail,c=skip,d=warn", "") == 0);
    CHECK(doc(&y, "e=fail,f=pass", "") == 0);
    struct diff_result r;
    CHECK(diff_compare(&x, &y, NULL, &r) == 1);
    const struct diff_item *it;
    CHECK((it = find(&r, "a")) && it->cls == DIFF_REGRESSION && it->what == DW_REMOVED);
    CHECK((it = find(&r, "b")) && it->cls == DIFF_CHANGE && it->what == DW_REMOVED);
    CHECK((it = find(&r, "c")) && it->cls == DIFF_CHANGE && it->what == DW_REMOVED);
    CHECK((it = find(&r, "d")) && it->cls == DIFF_REGRESSION);
    CHECK((it = find(&r, "e")) && it->cls == DIFF_REGRESSION && it->what == DW_ADDED && !it->old);
    CHECK((it = find(&r, "f")) && it->cls == DIFF_CHANGE && it->what == DW_ADDED);
    CHECK(r.count[DIFF_REGRESSION] == 3 && r.count[DIFF_CHANGE] == 3);
    diff_result_release(&r);
    struct diff_opts o = {NULL, 0, 1};
    CHECK(diff_compare(&x, &y, &o, &r) == 1); /* e still newly fails */
    CHECK(r.count[DIFF_REGRESSION] == 1);
    diff_result_release(&r);
    diff_doc_release(&x);
    diff_doc_release(&y);
}

static void test_direction(void)
{
    /* derived peaks are expectations, not measurements: never a regression */
    CHECK(diff_fact_direction("gpu.0.peak.fp16_tflops") == 0);
    CHECK(diff_fact_direction("runtime.dev.1.peak.mem_gbs") == 0);
    CHECK(diff_fact_direction("gpu.0.membw.best_peak") == 0);
    CHECK(diff_fact_direction("gpu.0.gemm_peak.fp16_tflops") == 1);
    CHECK(diff_fact_direction("sync.launch_us.p99") == -1);
    CHECK(diff_fact_direction("sync.stream_sync_us.max") == -1);
    CHECK(diff_fact_direction("vla.latency.total_ms") == -1);
    CHECK(diff_fact_direction("vla.latency.total_p99_ms") == -1);
    CHECK(diff_fact_direction("vla.cold_s") == -1);
    CHECK(diff_fact_direction("bw.h2d_pinned_gbs") == 1);
    CHECK(diff_fact_direction("gpu.gemm_peak.fp16_tflops") == 1);
    CHECK(diff_fact_direction("vla.tflops") == 1);
    CHECK(diff_fact_direction("vla.control_rate_hz") == 1);
    CHECK(diff_fact_direction("gpu.0.vram_bytes") == 0);
    CHECK(diff_fact_direction("gpu.0.temp_edge_c") == 0);
    CHECK(diff_fact_direction("gpu.0.link.speed_gts") == 0);
    CHECK(diff_fact_direction("sync.samples") == 0);
    CHECK(diff_fact_direction("probe.sync.wall_s") == 0); /* the tool's own timing */
    CHECK(diff_fact_direction("env.var.FOO_MS") == 0);
    CHECK(diff_fact_direction("status") == 0); /* "s" alone is no unit */
    CHECK(diff_fact_direction("") == 0);
    CHECK(diff_fact_is_telemetry("gpu.0.temp_edge_c"));
    CHECK(diff_fact_is_telemetry("gpu.3.power_w"));
    CHECK(!diff_fact_is_telemetry("driver.version"));
}

static void test_tolerances(void)
{
    struct diff_opts o = {0};
    CHECK(diff_tol_for(&o, "sync.launch_us.p99") == DIFF_DEFAULT_TOL_PCT);
    CHECK(diff_tol_add(&o, "sync.*=25") == 0);
    CHECK(diff_tol_add(&o, "sync.launch_us.p99=40%") == 0);
    CHECK(diff_tol_add(&o, "vla.cold_s=off") == 0);
    CHECK(diff_tol_add(&o, "gpu.*.x=0") == 0);
    CHECK(diff_tol_for(&o, "sync.stream_sync_us.p50") == 25);
    CHECK(diff_tol_for(&o, "sync.launch_us.p99") == 40);
    CHECK(diff_tol_for(&o, "vla.cold_s") < 0);
    CHECK(diff_tol_for(&o, "gpu.3.x") == 0);
    CHECK(diff_tol_for(&o, "bw.link_gbs") == DIFF_DEFAULT_TOL_PCT);
    /* malformed: no '=', no name, no value, negative, not a number */
    CHECK(diff_tol_add(&o, "sync.launch_us.p99") < 0);
    CHECK(diff_tol_add(&o, "=5") < 0);
    CHECK(diff_tol_add(&o, "x=") < 0);
    CHECK(diff_tol_add(&o, "x=-5") < 0);
    CHECK(diff_tol_add(&o, "x=fast") < 0);
    CHECK(diff_tol_add(&o, "x=nan") < 0);
    CHECK(o.ntol == 4);
    diff_opts_release(&o);
}

static void test_perf_facts(void)
{
    struct diff_doc x, y;
    CHECK(doc(&x, "",
              "\"sync.launch_us.p99\": 10, \"sync.launch_us.p50\": 5, \"bw.h2d_gbs\": 50,"
              "\"bw.d2h_gbs\": 50, \"vla.tflops\": 100, \"vla.cold_s\": 2.0,"
              "\"hmm.pass_gbs\": 0, \"gpu.gemm_peak.fp16_tflops\": 600,"
              "\"bw.triad_gbs\": 900, \"gpu.0.vram_bytes\": 100, \"gpu.0.temp_edge_c\": 40,"
              "\"driver.version\": \"6.8.5\", \"rocm.version\": null") == 0);
    CHECK(doc(&y, "",
              "\"sync.launch_us.p99\": 11.5, \"sync.launch_us.p50\": 5.4, \"bw.h2d_gbs\": 40,"
              "\"bw.d2h_gbs\": 56, \"vla.tflops\": 95, \"vla.cold_s\": 9.0,"
              "\"hmm.pass_gbs\": 3, \"gpu.gemm_peak.fp16_tflops\": null,"
              "\"gpu.0.vram_bytes\": 50, \"gpu.0.temp_edge_c\": 45,"
              "\"driver.version\": \"6.10.5\", \"rocm.version\": \"6.2.0\", \"new.fact\": true") ==
          0);
    struct diff_opts o = {0};
    CHECK(diff_tol_add(&o, "vla.cold_s=off") == 0);
    struct diff_result r;
    CHECK(diff_compare(&x, &y, &o, &r) == 1);
    const struct diff_item *it;
    /* +15% on a latency at 10%: regression, signed change kept */
    CHECK((it = find(&r, "sync.launch_us.p99")) && it->cls == DIFF_REGRESSION &&
          it->what == DW_PERF && fabs(it->change_pct - 15) < 1e-9 && it->direction == -1 &&
          it->tol_pct == 10);
    /* +8%: within tolerance, a change */
    CHECK((it = find(&r, "sync.launch_us.p50")) && it->cls == DIFF_CHANGE && it->what == DW_PERF);
    /* -20% bandwidth: regression; +12%: improvement */
    CHECK((it = find(&r, "bw.h2d_gbs")) && it->cls == DIFF_REGRESSION &&
          fabs(it->change_pct + 20) < 1e-9 && it->direction == 1);
    CHECK((it = find(&r, "bw.d2h_gbs")) && it->cls == DIFF_IMPROVEMENT);
    CHECK((it = find(&r, "vla.tflops")) && it->cls == DIFF_CHANGE); /* -5% */
    /* tolerance off: reported, never gated */
    CHECK((it = find(&r, "vla.cold_s")) && it->cls == DIFF_CHANGE && it->tol_pct < 0);
    /* from 0: an infinite relative change, the good way for a bandwidth */
    CHECK((it = find(&r, "hmm.pass_gbs")) && it->cls == DIFF_IMPROVEMENT && isinf(it->change_pct));
    /* a measurement that became unknown or vanished: lost coverage */
    CHECK((it = find(&r, "gpu.gemm_peak.fp16_tflops")) && it->cls == DIFF_REGRESSION &&
          it->what == DW_UNKNOWN);
    CHECK((it = find(&r, "bw.triad_gbs")) && it->cls == DIFF_REGRESSION && it->what == DW_REMOVED);
    /* not performance facts: context only, however far they move */
    CHECK((it = find(&r, "gpu.0.vram_bytes")) && it->cls == DIFF_CHANGE && it->what == DW_VALUE);
    CHECK((it = find(&r, "gpu.0.temp_edge_c")) && it->cls == DIFF_CHANGE);
    CHECK((it = find(&r, "driver.version")) && it->cls == DIFF_CHANGE && it->what == DW_VALUE);
    CHECK((it = find(&r, "rocm.version")) && it->cls == DIFF_CHANGE && it->what == DW_KNOWN);
    CHECK((it = find(&r, "new.fact")) && it->cls == DIFF_CHANGE && it->what == DW_ADDED);
    CHECK(r.count[DIFF_REGRESSION] == 4 && r.count[DIFF_IMPROVEMENT] == 2);
    diff_result_release(&r);

    /* a looser tolerance and --allow-skip clear the gate */
    CHECK(diff_tol_add(&o, "sync.*=20") == 0);
    CHECK(diff_tol_add(&o, "bw.*=25") == 0);
    o.allow_skip = 1;
    CHECK(diff_compare(&x, &y, &o, &r) == 0);
    CHECK(r.count[DIFF_REGRESSION] == 0);
    CHECK((it = find(&r, "gpu.gemm_peak.fp16_tflops")) && it->cls == DIFF_CHANGE);
    diff_result_release(&r);

    /* a report against itself: nothing at all */
    CHECK(diff_compare(&x, &x, NULL, &r) == 0 && r.n == 0);
    diff_result_release(&r);
    diff_opts_release(&o);
    diff_doc_release(&x);
    diff_doc_release(&y);
}

static int parses(const char *text)
{
    struct diff_doc d;
    int rc = diff_doc_parse(&d, "bad.json", text, strlen(text));
    if (rc == 0)
        diff_doc_release(&d);
    return rc == 0;
}

static void test_rejects(void)
{
    const char *ok = "{\"schema\": \"rocm-vla-doctor/1\", \"facts\": {}, \"checks\": []}";
    CHECK(parses(ok));
    CHECK(!parses(""));
    CHECK(!parses("{"));
    CHECK(!parses("{\"schema\": \"rocm-vla-doctor/1\", \"facts\": {}, \"checks\": []} x"));
    CHECK(!parses("[]"));
    CHECK(!parses("null"));
    CHECK(!parses("{\"facts\": {}, \"checks\": []}"));
    CHECK(!parses("{\"schema\": \"rocm-vla-doctor/2\", \"facts\": {}, \"checks\": []}"));
    CHECK(!parses("{\"schema\": \"rocm-vla-doctor-diff/1\", \"facts\": {}, \"checks\": []}"));
    CHECK(!parses("{\"schema\": 1, \"facts\": {}, \"checks\": []}"));
    CHECK(!parses("{\"schema\": \"rocm-vla-doctor/1\", \"facts\": [], \"checks\": []}"));
    CHECK(!parses("{\"schema\": \"rocm-vla-doctor/1\", \"facts\": {}}"));
    CHECK(!parses("{\"schema\": \"rocm-vla-doctor/1\", \"facts\": {}, \"checks\": [1]}"));
    CHECK(!parses("{\"schema\": \"rocm-vla-doctor/1\", \"facts\": {}, "
                  "\"checks\": [{\"id\": \"a\", \"status\": \"great\"}]}"));
    CHECK(!parses("{\"schema\": \"rocm-vla-doctor/1\", \"facts\": {}, "
                  "\"checks\": [{\"id\": \"a\", \"status\": \"pass\"}, "
                  "{\"id\": \"a\", \"status\": \"fail\"}]}"));
    /* duplicate keys are refused by the strict parser */
    CHECK(!parses("{\"schema\": \"rocm-vla-doctor/1\", \"facts\": {\"a\": 1, \"a\": 2}, "
                  "\"checks\": []}"));
    /* a NUL inside the text */
    struct diff_doc d;
    const char nul[] = "{\"schema\": \"rocm-vla-doctor/1\"\0}";
    CHECK(diff_doc_parse(&d, "nul.json", nul, sizeof(nul) - 1) < 0);
    CHECK(diff_doc_load(&d, "/nonexistent/report.json") < 0);
    CHECK(diff_doc_load(&d, "/") < 0);
}

/* per-GPU figures are compared by the GPU's PCI address, not its index: the
 * same two GPUs enumerated the other way round, the slower one named under
 * the current report's index; a GPU only one report has is added/removed
 * (an NVIDIA device's slot carries gpu.<j>.runtime_pci, not gpu.<j>.pci) */
static void test_per_gpu_by_pci(void)
{
    struct diff_doc x, y;
    CHECK(doc(&x, "",
              "\"gpu.0.pci\": \"0000:05:00.0\", \"gpu.1.pci\": \"0000:15:00.0\","
              "\"gpu.0.sync.launch_us.p50\": 5, \"gpu.1.sync.launch_us.p50\": 8,"
              "\"gpu.2.runtime_pci\": \"0000:c1:00.0\", \"gpu.2.bw.triad_gbs\": 900,"
              "\"gpu.3.runtime_pci\": \"0000:99:00.0\", \"gpu.3.bw.triad_gbs\": 700") == 0);
    CHECK(doc(&y, "",
              "\"gpu.0.pci\": \"0000:15:00.0\", \"gpu.1.pci\": \"0000:05:00.0\","
              "\"gpu.0.sync.launch_us.p50\": 8, \"gpu.1.sync.launch_us.p50\": 50,"
              "\"gpu.3.runtime_pci\": \"0000:c1:00.0\", \"gpu.3.bw.triad_gbs\": 910") == 0);
    struct diff_result r;
    CHECK(diff_compare(&x, &y, NULL, &r) == 1);
    const struct diff_item *it;
    /* 0000:05:00.0 went from 5 to 50 us: under its current name gpu.1 */
    CHECK((it = find(&r, "gpu.1.sync.launch_us.p50")) && it->cls == DIFF_REGRESSION &&
          it->what == DW_PERF && fabs(it->change_pct - 900) < 1e-9);
    /* 0000:15:00.0: 8 -> 8, nothing; gpu.0/gpu.1.pci swapped: no value change either */
    CHECK(!find(&r, "gpu.0.sync.launch_us.p50") && !find(&r, "gpu.0.pci") &&
          !find(&r, "gpu.1.pci"));
    /* the device at 0000:c1:00.0 moved from slot 2 to 3: +1%, a change; the one at
     * 0000:99:00.0 is gone (lost coverage) */
    int moved = 0, gone = 0;
    for (size_t i = 0; i < r.n; i++) {
        it = &r.v[i];
        if (strcmp(it->name, "gpu.3.bw.triad_gbs") != 0)
            continue;
        moved += it->cls == DIFF_CHANGE && it->what == DW_PERF && it->old->num == 900 &&
                 it->cur->num == 910;
        gone += it->cls == DIFF_REGRESSION && it->what == DW_REMOVED && it->old->num == 700;
    }
    CHECK(moved == 1 && gone == 1);
    CHECK(r.count[DIFF_REGRESSION] == 2);
    diff_result_release(&r);
    diff_doc_release(&x);
    diff_doc_release(&y);
}

int main(void)
{
    test_status_moves();
    test_added_removed_checks();
    test_direction();
    test_tolerances();
    test_perf_facts();
    test_per_gpu_by_pci();
    test_rejects();
    return test_report();
}
