/* test_prom.c - the Prometheus renderer: label and HELP escaping, the
 * fact -> metric table (names, units, shared help, every fact declared),
 * and a rendered factset: scaled values, per-GPU labels, no sample (and no
 * family) for unknown, absent and non-numeric facts. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/fact_catalog.h"
#include "../../src/report/report_prom.h"
#include "test.h"

/* what a writer (label value or HELP text) makes of s */
static char *capture(void (*writer)(FILE *, const char *), const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    writer(f, s);
    fclose(f);
    return buf;
}

#define CHECK_LABEL(in, want)                                                                      \
    do {                                                                                           \
        char *got_ = capture(prom_write_label_value, in);                                          \
        CHECK_STR(got_, want);                                                                     \
        free(got_);                                                                                \
    } while (0)

static void test_escaping(void)
{
    CHECK_LABEL("0000:03:00.0", "\"0000:03:00.0\"");
    CHECK_LABEL("a\\b", "\"a\\\\b\"");
    CHECK_LABEL("say \"hi\"", "\"say \\\"hi\\\"\"");
    CHECK_LABEL("two\nlines", "\"two\\nlines\"");
    CHECK_LABEL("", "\"\"");
    /* invalid UTF-8 (a lone continuation byte, a truncated sequence) */
    CHECK_LABEL("x\x80y", "\"x\xef\xbf\xbdy\"");
    CHECK_LABEL("\xc3", "\"\xef\xbf\xbd\"");
    CHECK_LABEL("°C", "\"°C\""); /* valid UTF-8 kept */
    char *h = capture(prom_write_help, "quote \" stays, \\ and\nnewline escaped");
    CHECK_STR(h, "quote \" stays, \\\\ and\\nnewline escaped");
    free(h);
}

/* the unit suffixes a metric of this tool may end in (base units) */
static int base_unit(const char *metric)
{
    static const char *const units[] = {"_seconds",
                                        "_bytes",
                                        "_bytes_per_second",
                                        "_flops_per_second",
                                        "_joules",
                                        "_watts",
                                        "_celsius",
                                        "_ratio",
                                        "_lanes",
                                        "_transfers_per_second",
                                        "_errors"};
    for (size_t i = 0; i < ARRAY_SIZE(units); i++)
        if (str_ends(metric, units[i]))
            return 1;
    return 0;
}

static void test_table(void)
{
    regex_t name, label;
    CHECK(regcomp(&name, "^rocm_vla_doctor_[a-z][a-z0-9_]*[a-z]$", REG_EXTENDED | REG_NOSUB) == 0);
    /* constant labels: k="v" pairs, no gpu/pci (added per GPU) */
    CHECK(regcomp(&label, "^[a-z_]+=\"[a-z0-9_.]+\"(,[a-z_]+=\"[a-z0-9_.]+\")*$",
                  REG_EXTENDED | REG_NOSUB) == 0);
    CHECK(prom_map_count >= 40);
    for (size_t i = 0; i < prom_map_count; i++) {
        const struct prom_map *r = &prom_map[i];
        int ok_name = regexec(&name, r->metric, 0, NULL, 0) == 0 && base_unit(r->metric);
        if (!ok_name)
            fprintf(stderr, "metric name '%s' breaks the conventions\n", r->metric);
        CHECK(ok_name);
        CHECK(!r->labels || regexec(&label, r->labels, 0, NULL, 0) == 0);
        CHECK(!r->labels || (!strstr(r->labels, "gpu=") && !strstr(r->labels, "pci=")));
        CHECK(r->scale > 0);
        CHECK(r->help && r->help[0] && !strchr(r->help, '\n'));
        /* a row maps a fact a probe declares (numeric); a pending row maps
         * one no probe has yet: when one does, clear `pending` */
        const struct fact_decl *d = NULL;
        const char *probe;
        char concrete[FACT_NAME_MAX], per_gpu[FACT_NAME_MAX + 8];
        if (str_starts(r->fact, "gpu.<i>."))
            snprintf(concrete, sizeof(concrete), "gpu.0.%s", r->fact + 8);
        else
            snprintf(concrete, sizeof(concrete), "%s", r->fact);
        /* or in the form of a probe run once per GPU: gpu.<j>.R */
        snprintf(per_gpu, sizeof(per_gpu), "gpu.0.%s",
                 str_starts(concrete, "gpu.") ? concrete + 4 : concrete);
        int declared = fact_catalog_find(concrete, &d, &probe) == 0 ||
                       fact_catalog_find(per_gpu, &d, &probe) == 0;
        if (declared == r->pending)
            fprintf(stderr, "prom_map '%s': declared=%d but pending=%d\n", r->fact, declared,
                    r->pending);
        CHECK(declared != r->pending);
        CHECK(!declared || d->type == FACT_INT || d->type == FACT_FLOAT);
        for (size_t j = 0; j < i; j++) {
            CHECK(strcmp(prom_map[j].fact, r->fact) != 0); /* one row per fact */
            if (strcmp(prom_map[j].metric, r->metric) == 0) {
                CHECK_STR(prom_map[j].help, r->help); /* one HELP per family */
                /* rows of one family differ by their labels */
                CHECK(!r->labels || !prom_map[j].labels ||
                      strcmp(r->labels, prom_map[j].labels) != 0);
            }
        }
    }
    regfree(&name);
    regfree(&label);

    CHECK(prom_status_code(ST_PASS) == 0);
    CHECK(prom_status_code(ST_SKIP) == 1);
    CHECK(prom_status_code(ST_WARN) == 2);
    CHECK(prom_status_code(ST_FAIL) == 3);
    CHECK(prom_status_code(ST_ERROR) == 4);
    CHECK(prom_status_code(ST_TIMEOUT) == 5);
}

static char *render(const struct factset *fs, const struct results *r)
{
    struct report_meta m = {"9.9.9",   "standard", NULL, "(built in)",
                            "node\"1", "6.8.0",    "os", "2026-11-30T18:00:00Z",
                            1.5,       0};
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    CHECK(report_prom_write(f, &m, fs, r) == 0);
    fclose(f);
    return buf;
}

static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p++)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
            return 1;
    return 0;
}

#define CHECK_LINE(text, line)                                                                     \
    do {                                                                                           \
        if (!has_line(text, line)) {                                                               \
            fprintf(stderr, "missing line: %s\n", line);                                           \
            CHECK(0);                                                                              \
        } else                                                                                     \
            CHECK(1);                                                                              \
    } while (0)

static void test_render(void)
{
    struct factset fs = FACTSET_INIT;
    fact_set_float(&fs, "bw.h2d_pinned_gbs", 55.3, NULL);
    fact_set_unknown(&fs, "bw.d2h_pinned_gbs", NULL, "not measured");
    fact_set_float(&fs, "vla.latency.total_ms", 30.25, NULL);
    fact_set_float(&fs, "gpu.gemm_peak.bf16_tflops", 766, NULL);
    fact_set_int(&fs, "sync.launch_us.p99", 12, NULL);
    fact_set_str(&fs, "sync.launch_us.p50", "fast", NULL); /* wrong type: no sample */
    fact_set_str(&fs, "gpu.0.pci", "0000:03:00.0", NULL);
    fact_set_float(&fs, "gpu.0.power_w", 147, NULL);
    fact_set_float(&fs, "gpu.1.power_w", 90.5, NULL); /* no pci fact: gpu label only */
    fact_set_unknown(&fs, "gpu.0.temp_edge_c", NULL, "no sensor");
    fact_set_int(&fs, "gpu.0.busy_percent", 40, NULL);
    fact_set_str(&fs, "rocm.version", "6.2.0", NULL);
    /* the same figures from a probe run once per GPU */
    fact_set_float(&fs, "gpu.0.bw.h2d_pinned_gbs", 50, NULL);
    fact_set_float(&fs, "gpu.1.gemm_peak.bf16_tflops", 700, NULL);
    fact_set_unknown(&fs, "gpu.1.bw.h2d_pinned_gbs", NULL, "hung");
    fact_set_str(&fs, "driver.version", "6.8.5 \"dkms\"", NULL);

    struct check ck[2];
    memset(ck, 0, sizeof(ck));
    ck[0].id = "pcie.atomics";
    ck[1].id = "gpu.vram";
    struct result res[2];
    memset(res, 0, sizeof(res));
    res[0].check = &ck[0];
    res[0].st = ST_FAIL;
    res[1].check = &ck[1];
    res[1].st = ST_PASS;
    struct results r = {res, 2, {0}};

    char *t = render(&fs, &r);
    CHECK_LINE(t, "# TYPE rocm_vla_doctor_build_info gauge");
    CHECK_LINE(t, "rocm_vla_doctor_build_info{version=\"9.9.9\",rocm=\"6.2.0\",driver=\"6.8.5 "
                  "\\\"dkms\\\"\",kernel=\"6.8.0\",level=\"standard\"} 1");
    CHECK_LINE(t, "rocm_vla_doctor_check_status{check=\"pcie.atomics\"} 3");
    CHECK_LINE(t, "rocm_vla_doctor_check_status{check=\"gpu.vram\"} 0");
    CHECK_LINE(t, "rocm_vla_doctor_check{check=\"pcie.atomics\",status=\"fail\"} 1");
    CHECK_LINE(t, "rocm_vla_doctor_check{check=\"pcie.atomics\",status=\"pass\"} 0");
    CHECK_LINE(t, "rocm_vla_doctor_check{check=\"gpu.vram\",status=\"pass\"} 1");
    CHECK_LINE(t, "rocm_vla_doctor_run_duration_seconds 1.5");
    CHECK_LINE(t, "# HELP rocm_vla_doctor_transfer_bandwidth_bytes_per_second Host/device copy "
                  "bandwidth measured by the bandwidth probe (best of 5).");
    CHECK_LINE(t, "rocm_vla_doctor_transfer_bandwidth_bytes_per_second{direction=\"h2d\","
                  "memory=\"pinned\"} 5.53e+10");
    CHECK(!strstr(t, "direction=\"d2h\",memory=\"pinned\"")); /* unknown: no sample */
    CHECK_LINE(t, "rocm_vla_doctor_transfer_bandwidth_bytes_per_second{direction=\"h2d\","
                  "memory=\"pinned\",gpu=\"0\",pci=\"0000:03:00.0\"} 5e+10");
    CHECK(!strstr(t, "memory=\"pinned\",gpu=\"1\"")); /* unknown on GPU 1 */
    CHECK_LINE(t, "rocm_vla_doctor_gemm_flops_per_second{dtype=\"bf16\",gpu=\"1\"} 7e+14");
    CHECK_LINE(t, "rocm_vla_doctor_vla_latency_seconds{stage=\"total\",stat=\"p50\"} 0.03025");
    CHECK_LINE(t, "rocm_vla_doctor_gemm_flops_per_second{dtype=\"bf16\"} 7.66e+14");
    CHECK_LINE(t, "rocm_vla_doctor_sync_latency_seconds{op=\"launch\",stat=\"p99\"} 1.2e-05");
    CHECK(!strstr(t, "op=\"launch\",stat=\"p50\"")); /* a string: no sample */
    CHECK_LINE(t, "rocm_vla_doctor_gpu_power_watts{gpu=\"0\",pci=\"0000:03:00.0\"} 147");
    CHECK_LINE(t, "rocm_vla_doctor_gpu_power_watts{gpu=\"1\"} 90.5");
    CHECK_LINE(t, "rocm_vla_doctor_gpu_busy_ratio{gpu=\"0\",pci=\"0000:03:00.0\"} 0.4");
    /* a family with no known fact has neither samples nor HELP/TYPE */
    CHECK(!strstr(t, "gpu_temperature_celsius"));
    CHECK(!strstr(t, "vla_energy_per_call_joules"));
    CHECK(!strstr(t, "rocm_vla_doctor_vla_cold_start_seconds"));
    /* HELP and TYPE once per family, before its samples */
    const char *help = strstr(t, "# TYPE rocm_vla_doctor_gpu_power_watts gauge");
    const char *s0 = strstr(t, "rocm_vla_doctor_gpu_power_watts{");
    CHECK(help && s0 && help < s0);
    CHECK(help && !strstr(help + 1, "# TYPE rocm_vla_doctor_gpu_power_watts"));
    free(t);

    /* nothing known: the info metric (empty labels) and the checks only */
    struct factset none = FACTSET_INIT;
    struct results empty = {NULL, 0, {0}};
    t = render(&none, &empty);
    CHECK_LINE(t, "rocm_vla_doctor_build_info{version=\"9.9.9\",rocm=\"\",driver=\"\","
                  "kernel=\"6.8.0\",level=\"standard\"} 1");
    CHECK(!strstr(t, "bytes_per_second"));
    CHECK(!strstr(t, "rocm_vla_doctor_check_status{"));
    free(t);
    factset_release(&fs);
}

int main(void)
{
    test_escaping();
    test_table();
    test_render();
    return test_report();
}
