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
                                        "_errors",
                                        "_errors_total",
                                        "_replays_total",
                                        "_pages",
                                        "_events",
                                        "_cpus",
                                        "_numa_node"};
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
                            1.5,       0,          NULL};
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

/* ---- a strict reader of the text exposition format (promtool is not
 * installed here): every line is a HELP, a TYPE or a sample; HELP and TYPE
 * once per family, TYPE right after HELP and before the family's samples,
 * a family's samples together; names and label names by the format's
 * grammar, label values quoted with only \\ \" \n escaped; counters named
 * *_total and only they; values as Go's ParseFloat reads them; no series
 * twice. 0, or -1 with the line and why on stderr. */
static int name_ok(const char *p, size_t n, int colon)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        int alpha =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
        if (!alpha && !(i && c >= '0' && c <= '9'))
            return 0;
    }
    return n > 0;
}

/* the labels between { and }: *end after the }. 0, or -1 */
static int labels_ok(const char *p, const char **end)
{
    struct strlist seen = STRLIST_INIT;
    int rc = -1;
    while (*p != '}') {
        size_t n = strcspn(p, "=");
        char *nm = xstrndup(p, n);
        int dup = strlist_has(&seen, nm);
        strlist_add(&seen, nm);
        free(nm);
        if (!name_ok(p, n, 0) || dup || p[n] != '=' || p[n + 1] != '"')
            goto out;
        for (p += n + 2; *p != '"'; p++) {
            if (!*p || *p == '\n')
                goto out;
            if (*p == '\\' && !strchr("\\\"n", *++p))
                goto out;
        }
        p++;
        if (*p == ',')
            p++;
        else if (*p != '}')
            goto out;
    }
    *end = p + 1;
    rc = 0;
out:
    strlist_release(&seen);
    return rc;
}

static int value_ok(const char *v)
{
    if (!strcmp(v, "NaN") || !strcmp(v, "+Inf") || !strcmp(v, "-Inf"))
        return 1;
    char *end;
    strtod(v, &end);
    return end != v && !*end && !strpbrk(v, "xXpP");
}

static int lint_quiet; /* the refusals test_lint expects are not news */

static int prom_lint(const char *text)
{
    struct strlist families = STRLIST_INIT, series = STRLIST_INIT;
    char fam[256] = "", type[16] = "";
    int after_help = 0, bad = 0, lineno = 0;
    char *copy = xstrdup(text), *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l && !bad; l = strtok_r(NULL, "\n", &save)) {
        lineno++;
        const char *why = NULL;
        if (str_starts(l, "# HELP ")) {
            size_t n = strcspn(l + 7, " ");
            if (!name_ok(l + 7, n, 1) || l[7 + n] != ' ')
                why = "HELP without a name and a text";
            else if (snprintf(fam, sizeof(fam), "%.*s", (int)n, l + 7) &&
                     strlist_has(&families, fam))
                why = "a family's HELP twice (its samples split)";
            strlist_add(&families, fam);
            after_help = 1;
            type[0] = '\0';
        } else if (str_starts(l, "# TYPE ")) {
            size_t n = strlen(fam);
            if (!after_help || strncmp(l + 7, fam, n) || l[7 + n] != ' ')
                why = "TYPE not right after its family's HELP";
            else if (strcmp(l + 8 + n, "counter") && strcmp(l + 8 + n, "gauge"))
                why = "TYPE neither counter nor gauge";
            else if ((strcmp(l + 8 + n, "counter") == 0) != (str_ends(fam, "_total") != 0))
                why = "a counter not named *_total, or a *_total not a counter";
            else
                snprintf(type, sizeof(type), "%s", l + 8 + n);
            after_help = 0;
        } else if (l[0] == '#') {
            why = "a comment that is neither HELP nor TYPE";
        } else {
            size_t n = strcspn(l, "{ ");
            const char *p = l + n;
            if (!type[0] || strlen(fam) != n || strncmp(l, fam, n))
                why = "a sample outside its family (or before its TYPE)";
            else if (*p == '{' && labels_ok(p + 1, &p))
                why = "bad labels";
            else if (*p != ' ' || !value_ok(p + 1))
                why = "no value, or not a number";
            else {
                char *key = xstrndup(l, (size_t)(p - l));
                if (strlist_has(&series, key))
                    why = "the same series twice";
                strlist_add(&series, key);
                free(key);
            }
            after_help = 0;
        }
        if (why) {
            if (!lint_quiet)
                fprintf(stderr, "prom line %d: %s: %s\n", lineno, why, l);
            bad = 1;
        }
    }
    free(copy);
    strlist_release(&families);
    strlist_release(&series);
    return bad ? -1 : 0;
}

/* the reader refuses what the format forbids */
static void test_lint(void)
{
    lint_quiet = 1;
    CHECK(prom_lint("# HELP a_total x\n# TYPE a_total counter\na_total{k=\"v\"} 1\n") == 0);
    CHECK(prom_lint("# HELP a x\n# TYPE a counter\na 1\n") < 0); /* counter not _total */
    CHECK(prom_lint("# HELP a_total x\n# TYPE a_total gauge\na_total 1\n") < 0);
    CHECK(prom_lint("# HELP a x\n# TYPE a gauge\na{k=\"v} 1\n") < 0);     /* unterminated */
    CHECK(prom_lint("# HELP a x\n# TYPE a gauge\na{k=\"\\t\"} 1\n") < 0); /* bad escape */
    CHECK(prom_lint("# HELP a x\n# TYPE a gauge\na{k=\"1\",k=\"2\"} 1\n") < 0);
    CHECK(prom_lint("# HELP a x\n# TYPE a gauge\na 1\na 2\n") < 0); /* series twice */
    CHECK(prom_lint("# HELP a x\n# TYPE a gauge\nb 1\n") < 0);      /* other family */
    CHECK(prom_lint("# HELP a x\n# TYPE a gauge\na one\n") < 0);
    CHECK(prom_lint("# HELP a x\n# TYPE a gauge\na 1\n# HELP a x\n# TYPE a gauge\n") < 0);
    lint_quiet = 0;
}

/* the facts of the last rounds (RAS per block, bad pages, partitions,
 * power caps, NUMA, the link watch, the soak's counters) as an MI300X-like
 * node gives them, rendered and read back strictly */
static void test_new_facts(void)
{
    struct factset fs = FACTSET_INIT;
    fact_set_str(&fs, "gpu.0.pci", "0000:0c:00.0", NULL);
    fact_set_str(&fs, "gpu.1.pci", "0000:22:00.0 \"odd\"\n", NULL); /* escaped in labels */
    fact_set_int(&fs, "gpu.0.ras_umc_ue", 2, NULL);
    fact_set_int(&fs, "gpu.0.ras_umc_ce", 37, NULL);
    fact_set_int(&fs, "gpu.0.ras_engine_ue", 0, NULL);
    fact_set_unknown(&fs, "gpu.0.ras_link_ue", NULL, "no xgmi_wafl or pcie_bif counters");
    fact_set_int(&fs, "gpu.0.ras_pages_retired", 12, NULL);
    fact_set_int(&fs, "gpu.0.ras_pages_pending", 1, NULL);
    fact_set_int(&fs, "gpu.0.ras_page_threshold", 128, NULL);
    fact_set_int(&fs, "gpu.0.pcie_replay_count", 5, NULL);
    fact_set_str(&fs, "gpu.0.compute_partition", "SPX", NULL);
    fact_set_str(&fs, "gpu.0.memory_partition", "NPS1", NULL);
    fact_set_str(&fs, "gpu.1.compute_partition", "CPX", NULL);
    fact_set_float(&fs, "gpu.0.power_cap_w", 550, NULL);
    fact_set_float(&fs, "gpu.0.power_cap_default_w", 750, NULL);
    fact_set_int(&fs, "gpu.0.numa_node", 0, NULL);
    fact_set_int(&fs, "gpu.0.numa_allowed_cpus", 48, NULL);
    fact_set_int(&fs, "host.cpus_allowed_count", 96, NULL);
    fact_set_int(&fs, "gpu.0.link.watch_start_width", 16, NULL);
    fact_set_int(&fs, "gpu.0.link.watch_end_width", 8, NULL);
    fact_set_float(&fs, "gpu.0.link.watch_start_speed_gts", 32, NULL);
    fact_set_float(&fs, "soak.residency_thermal_pct", 12.5, NULL);
    fact_set_unknown(&fs, "soak.residency_power_pct", NULL, "v3_0");
    fact_set_int(&fs, "soak.pcie_replays_grew", 16, NULL);
    fact_set_int(&fs, "soak.link_min_width", 8, NULL);
    struct results none = {NULL, 0, {0}};
    char *t = render(&fs, &none);
    CHECK(prom_lint(t) == 0);
    CHECK_LINE(t, "# TYPE rocm_vla_doctor_gpu_ras_block_errors_total counter");
    CHECK_LINE(t, "rocm_vla_doctor_gpu_ras_block_errors_total{block=\"umc\",kind=\"uncorrectable\","
                  "gpu=\"0\",pci=\"0000:0c:00.0\"} 2");
    CHECK_LINE(t, "rocm_vla_doctor_gpu_ras_block_errors_total{block=\"engine\",kind="
                  "\"uncorrectable\",gpu=\"0\",pci=\"0000:0c:00.0\"} 0"); /* a measured 0 */
    CHECK(!strstr(t, "block=\"link\"")); /* unknown: no sample, never 0 */
    CHECK_LINE(t, "# TYPE rocm_vla_doctor_gpu_pcie_replays_total counter");
    CHECK_LINE(
        t, "rocm_vla_doctor_gpu_bad_pages{state=\"retired\",gpu=\"0\",pci=\"0000:0c:00.0\"} 12");
    CHECK_LINE(t, "rocm_vla_doctor_gpu_power_cap_watts{limit=\"default\",gpu=\"0\",pci=\"0000:0c:"
                  "00.0\"} 750");
    CHECK_LINE(t, "# TYPE rocm_vla_doctor_gpu_partition_info gauge");
    CHECK_LINE(t, "rocm_vla_doctor_gpu_partition_info{gpu=\"0\",pci=\"0000:0c:00.0\","
                  "compute=\"SPX\",memory=\"NPS1\"} 1");
    CHECK_LINE(t,
               "rocm_vla_doctor_gpu_partition_info{gpu=\"1\",pci=\"0000:22:00.0 \\\"odd\\\"\\n\","
               "compute=\"CPX\",memory=\"\"} 1");
    CHECK_LINE(t, "rocm_vla_doctor_pcie_link_width_lanes{state=\"watch_end\",gpu=\"0\",pci=\"0000:"
                  "0c:00.0\"} 8");
    CHECK_LINE(
        t, "rocm_vla_doctor_pcie_link_speed_transfers_per_second{state=\"watch_start\",gpu=\"0\","
           "pci=\"0000:0c:00.0\"} 3.2e+10");
    CHECK_LINE(t, "rocm_vla_doctor_soak_throttle_residency_ratio{class=\"thermal\"} 0.125");
    CHECK(!strstr(t, "class=\"power\""));
    CHECK_LINE(t, "rocm_vla_doctor_soak_pcie_link_events{kind=\"replay\"} 16");
    CHECK_LINE(t, "rocm_vla_doctor_host_allowed_cpus 96");
    free(t);
    factset_release(&fs);
    /* the earlier renders pass the reader too */
    struct factset empty = FACTSET_INIT;
    t = render(&empty, &none);
    CHECK(prom_lint(t) == 0);
    free(t);
}

int main(void)
{
    test_escaping();
    test_table();
    test_render();
    test_lint();
    test_new_facts();
    return test_report();
}
