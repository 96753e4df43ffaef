/* report_prom.c - the report in the Prometheus text exposition format for
 * node_exporter's textfile collector. It renders results and facts; the
 * only arithmetic is the unit conversion of the table below (milliseconds
 * to seconds, GB/s to bytes per second), because Prometheus wants base
 * units in metric names. A fact that is unknown, absent or not a number
 * gives no sample: a 0 would read as a measurement. */
#include "report_prom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

#define P "rocm_vla_doctor_"

/* What each measured figure becomes. Adding a figure is one line; a new
 * metric name needs its own help text (rows of one metric share it). */
/* clang-format off */
const struct prom_map prom_map[] = {
    /* host <-> device copies and device memory (src: probe_bandwidth, probe_hmm) */
    {"bw.h2d_pinned_gbs", P "transfer_bandwidth_bytes_per_second", "direction=\"h2d\",memory=\"pinned\"", 1e9, "Host/device copy bandwidth measured by the bandwidth probe (best of 5).", 0},
    {"bw.d2h_pinned_gbs", P "transfer_bandwidth_bytes_per_second", "direction=\"d2h\",memory=\"pinned\"", 1e9, "Host/device copy bandwidth measured by the bandwidth probe (best of 5).", 0},
    {"bw.h2d_pageable_gbs", P "transfer_bandwidth_bytes_per_second", "direction=\"h2d\",memory=\"pageable\"", 1e9, "Host/device copy bandwidth measured by the bandwidth probe (best of 5).", 0},
    {"bw.d2h_pageable_gbs", P "transfer_bandwidth_bytes_per_second", "direction=\"d2h\",memory=\"pageable\"", 1e9, "Host/device copy bandwidth measured by the bandwidth probe (best of 5).", 0},
    {"bw.link_gbs", P "pcie_link_ceiling_bytes_per_second", NULL, 1e9, "Payload ceiling of the measured GPU's PCIe link (speed x width x encoding).", 0},
    {"bw.triad_gbs", P "device_memory_bandwidth_bytes_per_second", "kernel=\"triad\"", 1e9, "Device memory bandwidth of a STREAM triad kernel.", 0},
    {"hmm.device_gbs", P "managed_memory_bandwidth_bytes_per_second", "access=\"device\"", 1e9, "Bandwidth of a kernel reading managed (HMM) memory.", 0},
    {"hmm.pinned_host_gbs", P "managed_memory_bandwidth_bytes_per_second", "access=\"pinned_host\"", 1e9, "Bandwidth of a kernel reading managed (HMM) memory.", 0},
    {"hmm.pageable_gbs", P "managed_memory_bandwidth_bytes_per_second", "access=\"pageable\"", 1e9, "Bandwidth of a kernel reading managed (HMM) memory.", 0},
    /* launch and synchronisation latencies (probe_sync) */
    {"sync.launch_us.p50", P "sync_latency_seconds", "op=\"launch\",stat=\"p50\"", 1e-6, "Kernel launch and synchronisation latency.", 0},
    {"sync.launch_us.p99", P "sync_latency_seconds", "op=\"launch\",stat=\"p99\"", 1e-6, "Kernel launch and synchronisation latency.", 0},
    {"sync.launch_us.max", P "sync_latency_seconds", "op=\"launch\",stat=\"max\"", 1e-6, "Kernel launch and synchronisation latency.", 0},
    {"sync.stream_sync_us.p50", P "sync_latency_seconds", "op=\"stream_sync\",stat=\"p50\"", 1e-6, "Kernel launch and synchronisation latency.", 0},
    {"sync.stream_sync_us.p99", P "sync_latency_seconds", "op=\"stream_sync\",stat=\"p99\"", 1e-6, "Kernel launch and synchronisation latency.", 0},
    {"sync.stream_sync_us.max", P "sync_latency_seconds", "op=\"stream_sync\",stat=\"max\"", 1e-6, "Kernel launch and synchronisation latency.", 0},
    {"sync.device_sync_us.p50", P "sync_latency_seconds", "op=\"device_sync\",stat=\"p50\"", 1e-6, "Kernel launch and synchronisation latency.", 0},
    {"sync.device_sync_us.p99", P "sync_latency_seconds", "op=\"device_sync\",stat=\"p99\"", 1e-6, "Kernel launch and synchronisation latency.", 0},
    {"sync.device_sync_us.max", P "sync_latency_seconds", "op=\"device_sync\",stat=\"max\"", 1e-6, "Kernel launch and synchronisation latency.", 0},
    {"sync.graph10_us.p50", P "sync_latency_seconds", "op=\"graph10\",stat=\"p50\"", 1e-6, "Kernel launch and synchronisation latency.", 0},
    /* GEMM rate (probe_gemm_peak) */
    {"gpu.gemm_peak.fp16_tflops", P "gemm_flops_per_second", "dtype=\"fp16\"", 1e12, "GEMM rate (N = 8192, fp32 accumulate) in floating-point operations per second.", 0},
    {"gpu.gemm_peak.bf16_tflops", P "gemm_flops_per_second", "dtype=\"bf16\"", 1e12, "GEMM rate (N = 8192, fp32 accumulate) in floating-point operations per second.", 0},
    {"gpu.gemm_peak.fp32_tflops", P "gemm_flops_per_second", "dtype=\"fp32\"", 1e12, "GEMM rate (N = 8192, fp32 accumulate) in floating-point operations per second.", 0},
    /* the reference VLA workload (probe_vla, --level full) */
    {"vla.latency.vision_ms", P "vla_latency_seconds", "stage=\"vision\",stat=\"p50\"", 1e-3, "Reference VLA policy call latency by stage.", 0},
    {"vla.latency.prefix_ms", P "vla_latency_seconds", "stage=\"prefix\",stat=\"p50\"", 1e-3, "Reference VLA policy call latency by stage.", 0},
    {"vla.latency.step_ms", P "vla_latency_seconds", "stage=\"step\",stat=\"p50\"", 1e-3, "Reference VLA policy call latency by stage.", 0},
    {"vla.latency.post_ms", P "vla_latency_seconds", "stage=\"post\",stat=\"p50\"", 1e-3, "Reference VLA policy call latency by stage.", 0},
    {"vla.latency.total_ms", P "vla_latency_seconds", "stage=\"total\",stat=\"p50\"", 1e-3, "Reference VLA policy call latency by stage.", 0},
    {"vla.latency.total_p99_ms", P "vla_latency_seconds", "stage=\"total\",stat=\"p99\"", 1e-3, "Reference VLA policy call latency by stage.", 0},
    {"vla.cold_s", P "vla_cold_start_seconds", NULL, 1, "Reference VLA first call (weights, compilation, first pass).", 0},
    {"vla.tflops", P "vla_flops_per_second", NULL, 1e12, "Reference VLA achieved rate in floating-point operations per second.", 0},
    /* energy per policy call and the power over those calls (src/telemetry/tel_energy.c) */
    {"vla.energy_per_call_j", P "vla_energy_per_call_joules", NULL, 1, "Reference VLA energy per policy call.", 0},
    {"vla.avg_power_w", P "vla_average_power_watts", NULL, 1, "Average GPU power while the reference VLA policy ran.", 0},
    {"kernels.compile_s", P "kernel_compile_seconds", NULL, 1, "Time to compile (or load from the cache) the built-in kernels.", 0},
    /* per GPU (probe_gpu, probe_pcie) */
    {"gpu.<i>.power_w", P "gpu_power_watts", NULL, 1, "GPU power draw read from sysfs at probe time.", 0},
    {"gpu.<i>.temp_edge_c", P "gpu_temperature_celsius", "sensor=\"edge\"", 1, "GPU temperature read from sysfs at probe time.", 0},
    {"gpu.<i>.temp_junction_c", P "gpu_temperature_celsius", "sensor=\"junction\"", 1, "GPU temperature read from sysfs at probe time.", 0},
    {"gpu.<i>.temp_mem_c", P "gpu_temperature_celsius", "sensor=\"mem\"", 1, "GPU temperature read from sysfs at probe time.", 0},
    {"gpu.<i>.busy_percent", P "gpu_busy_ratio", NULL, 0.01, "GPU busy fraction (0 to 1) read from sysfs at probe time.", 0},
    {"gpu.<i>.vram_bytes", P "gpu_vram_bytes", NULL, 1, "GPU memory size.", 0},
    {"gpu.<i>.ras_ue", P "gpu_ras_errors", "kind=\"uncorrectable\"", 1, "GPU RAS error count since the driver loaded.", 0},
    {"gpu.<i>.ras_ce", P "gpu_ras_errors", "kind=\"correctable\"", 1, "GPU RAS error count since the driver loaded.", 0},
    {"gpu.<i>.link.speed_gts", P "pcie_link_speed_transfers_per_second", "state=\"current\"", 1e9, "PCIe link speed of the GPU.", 0},
    {"gpu.<i>.link.max_speed_gts", P "pcie_link_speed_transfers_per_second", "state=\"max\"", 1e9, "PCIe link speed of the GPU.", 0},
    {"gpu.<i>.link.width", P "pcie_link_width_lanes", "state=\"current\"", 1, "PCIe link width of the GPU.", 0},
    {"gpu.<i>.link.max_width", P "pcie_link_width_lanes", "state=\"max\"", 1, "PCIe link width of the GPU.", 0},
    /* the slot's link before and after the GPU probes (probe_link_watch.c, pcie.link_stable) */
    {"gpu.<i>.link.watch_start_width", P "pcie_link_width_lanes", "state=\"watch_start\"", 1, "PCIe link width of the GPU.", 0},
    {"gpu.<i>.link.watch_end_width", P "pcie_link_width_lanes", "state=\"watch_end\"", 1, "PCIe link width of the GPU.", 0},
    {"gpu.<i>.link.watch_start_speed_gts", P "pcie_link_speed_transfers_per_second", "state=\"watch_start\"", 1e9, "PCIe link speed of the GPU.", 0},
    {"gpu.<i>.link.watch_end_speed_gts", P "pcie_link_speed_transfers_per_second", "state=\"watch_end\"", 1e9, "PCIe link speed of the GPU.", 0},
    /* counters since the driver loaded: _total, TYPE counter (probe_gpu_ras.c, probe_pcie_aer.c) */
    {"gpu.<i>.ras_umc_ue", P "gpu_ras_block_errors_total", "block=\"umc\",kind=\"uncorrectable\"", 1, "GPU RAS errors since the driver loaded, by block family (umc: memory; engine: gfx, sdma, mmhub and the other engines; link: xgmi_wafl, pcie_bif).", 0},
    {"gpu.<i>.ras_umc_ce", P "gpu_ras_block_errors_total", "block=\"umc\",kind=\"correctable\"", 1, "GPU RAS errors since the driver loaded, by block family (umc: memory; engine: gfx, sdma, mmhub and the other engines; link: xgmi_wafl, pcie_bif).", 0},
    {"gpu.<i>.ras_engine_ue", P "gpu_ras_block_errors_total", "block=\"engine\",kind=\"uncorrectable\"", 1, "GPU RAS errors since the driver loaded, by block family (umc: memory; engine: gfx, sdma, mmhub and the other engines; link: xgmi_wafl, pcie_bif).", 0},
    {"gpu.<i>.ras_link_ue", P "gpu_ras_block_errors_total", "block=\"link\",kind=\"uncorrectable\"", 1, "GPU RAS errors since the driver loaded, by block family (umc: memory; engine: gfx, sdma, mmhub and the other engines; link: xgmi_wafl, pcie_bif).", 0},
    {"gpu.<i>.ras_de", P "gpu_ras_block_errors_total", "block=\"all\",kind=\"deferred\"", 1, "GPU RAS errors since the driver loaded, by block family (umc: memory; engine: gfx, sdma, mmhub and the other engines; link: xgmi_wafl, pcie_bif).", 0},
    {"gpu.<i>.pcie_replay_count", P "gpu_pcie_replays_total", NULL, 1, "PCIe replays of the GPU's link since the driver loaded (sysfs pcie_replay_count).", 0},
    /* bad pages of VRAM (probe_gpu_ras.c: amdgpu's eeprom table) */
    {"gpu.<i>.ras_pages_retired", P "gpu_bad_pages", "state=\"retired\"", 1, "VRAM pages in the GPU's bad-page table by state.", 0},
    {"gpu.<i>.ras_pages_pending", P "gpu_bad_pages", "state=\"pending\"", 1, "VRAM pages in the GPU's bad-page table by state.", 0},
    {"gpu.<i>.ras_pages_failed", P "gpu_bad_pages", "state=\"failed\"", 1, "VRAM pages in the GPU's bad-page table by state.", 0},
    {"gpu.<i>.ras_page_threshold", P "gpu_bad_page_threshold_pages", NULL, 1, "Bad pages at which amdgpu stops using the GPU (amdgpu.bad_page_threshold, resolved).", 0},
    /* power cap against the board's default and maximum (probe_gpu_drm.c) */
    {"gpu.<i>.power_cap_w", P "gpu_power_cap_watts", "limit=\"current\"", 1, "GPU power cap (hwmon power1_cap, _default, _max).", 0},
    {"gpu.<i>.power_cap_default_w", P "gpu_power_cap_watts", "limit=\"default\"", 1, "GPU power cap (hwmon power1_cap, _default, _max).", 0},
    {"gpu.<i>.power_cap_max_w", P "gpu_power_cap_watts", "limit=\"max\"", 1, "GPU power cap (hwmon power1_cap, _default, _max).", 0},
    /* CPU-GPU NUMA affinity (probe_gpu_numa.c) */
    {"gpu.<i>.numa_node", P "gpu_numa_node", NULL, 1, "NUMA node of the GPU's PCI device (-1: the firmware names none).", 0},
    {"gpu.<i>.numa_allowed_cpus", P "gpu_numa_allowed_cpus", NULL, 1, "CPUs of the GPU's NUMA node that the process may run on.", 0},
    {"host.cpus_allowed_count", P "host_allowed_cpus", NULL, 1, "CPUs the process may run on (its affinity mask).", 0},
    /* the soak (src/soak/soak_counters.c): growth over the run */
    {"soak.residency_thermal_pct", P "soak_throttle_residency_ratio", "class=\"thermal\"", 0.01, "Share of the soak that a thermal or power limiter held the clocks back (gpu_metrics residency over accumulation_counter).", 0},
    {"soak.residency_power_pct", P "soak_throttle_residency_ratio", "class=\"power\"", 0.01, "Share of the soak that a thermal or power limiter held the clocks back (gpu_metrics residency over accumulation_counter).", 0},
    {"soak.pcie_replays_grew", P "soak_pcie_link_events", "kind=\"replay\"", 1, "PCIe link events during the soak (growth of the gpu_metrics accumulators or pcie_replay_count).", 0},
    {"soak.pcie_recoveries_grew", P "soak_pcie_link_events", "kind=\"recovery\"", 1, "PCIe link events during the soak (growth of the gpu_metrics accumulators or pcie_replay_count).", 0},
    {"soak.pcie_naks_grew", P "soak_pcie_link_events", "kind=\"nak\"", 1, "PCIe link events during the soak (growth of the gpu_metrics accumulators or pcie_replay_count).", 0},
    {"soak.link_changes", P "soak_pcie_link_events", "kind=\"link_change\"", 1, "PCIe link events during the soak (growth of the gpu_metrics accumulators or pcie_replay_count).", 0},
    {"soak.link_start_width", P "soak_pcie_link_width_lanes", "state=\"start\"", 1, "The slot's PCIe link width during the soak: at the first sample and the lowest.", 0},
    {"soak.link_min_width", P "soak_pcie_link_width_lanes", "state=\"min\"", 1, "The slot's PCIe link width during the soak: at the first sample and the lowest.", 0},
    {"soak.link_start_speed_gts", P "soak_pcie_link_speed_transfers_per_second", "state=\"start\"", 1e9, "The slot's PCIe link speed during the soak: at the first sample and the lowest.", 0},
    {"soak.link_min_speed_gts", P "soak_pcie_link_speed_transfers_per_second", "state=\"min\"", 1e9, "The slot's PCIe link speed during the soak: at the first sample and the lowest.", 0},
};
/* clang-format on */
const size_t prom_map_count = ARRAY_SIZE(prom_map);

int prom_status_code(enum status st)
{
    /* ordered by how bad: an alert is `>= 3` (what makes `check` exit 1) */
    switch (st) {
    case ST_PASS:
        return 0;
    case ST_SKIP:
        return 1;
    case ST_WARN:
        return 2;
    case ST_FAIL:
        return 3;
    case ST_ERROR:
        return 4;
    case ST_TIMEOUT:
        return 5;
    default:
        return -1;
    }
}

/* the exposition format's escapes (\\ \n \"), invalid UTF-8 as U+FFFD
 * (the format is UTF-8), and the other controls and bidi characters
 * (escape.h) visible as text (\x1b, \u202e), so that a `curl` of the
 * metrics cannot retitle or reorder a terminal */
static void write_escaped(FILE *out, const char *s, int quote)
{
    while (*s) {
        unsigned cp;
        int bad;
        size_t n = utf8_next(s, &cp, &bad);
        if (bad)
            fputs("\xef\xbf\xbd", out);
        else if (cp == '\\')
            fputs("\\\\", out);
        else if (cp == '\n')
            fputs("\\n", out);
        else if (cp == '"' && quote)
            fputs("\\\"", out);
        else if (char_unsafe(cp) && cp != '\t')
            fprintf(out, cp < 0x80 ? "\\\\x%02x" : "\\\\u%04x", cp);
        else
            fwrite(s, 1, n, out);
        s += n;
    }
}

void prom_write_label_value(FILE *out, const char *s)
{
    fputc('"', out);
    write_escaped(out, s, 1);
    fputc('"', out);
}

void prom_write_help(FILE *out, const char *s)
{
    write_escaped(out, s, 0);
}

/* a metric named *_total is a counter (the exposition format's
 * convention), every other one a gauge */
static void family_head(FILE *out, const char *metric, const char *help)
{
    fprintf(out, "# HELP %s ", metric);
    prom_write_help(out, help);
    fprintf(out, "\n# TYPE %s %s\n", metric, str_ends(metric, "_total") ? "counter" : "gauge");
}

static void write_value(FILE *out, double v)
{
    if (isnan(v))
        fputs("NaN", out);
    else if (isinf(v))
        fputs(v > 0 ? "+Inf" : "-Inf", out);
    else
        fprintf(out, "%.10g", v);
}

static int fact_number(const struct fact *f, double *v)
{
    if (!f)
        return 0;
    if (f->type == FACT_INT)
        *v = (double)f->i;
    else if (f->type == FACT_FLOAT)
        *v = f->f;
    else
        return 0;
    return 1;
}

/* "gpu.12.<tail>": the index text "12", or NULL */
static const char *gpu_index(const char *tail, const char *name, size_t *len)
{
    if (strncmp(name, "gpu.", 4) != 0)
        return NULL;
    const char *d = name + 4;
    size_t n = 0;
    while (d[n] >= '0' && d[n] <= '9')
        n++;
    if (n == 0 || n > 6 || d[n] != '.' || strcmp(d + n + 1, tail) != 0)
        return NULL;
    *len = n;
    return d;
}

static void sample_open(FILE *out, const char *metric, const char *labels)
{
    fputs(metric, out);
    if (labels)
        fprintf(out, "{%s", labels);
}

/* A row "gpu.<i>.X" has only per-GPU samples. Any other row F has its own
 * sample and also one per GPU for gpu.<j>.R (R: F without a leading
 * "gpu."): that is how a probe run once per GPU names the same figure, so
 * a report from such a run maps through the same row. */
static void write_row(FILE *out, const struct prom_map *row, const struct factset *fs)
{
    double v;
    int per_gpu_only = strncmp(row->fact, "gpu.<i>.", 8) == 0;
    const char *tail = per_gpu_only                         ? row->fact + 8
                       : strncmp(row->fact, "gpu.", 4) == 0 ? row->fact + 4
                                                            : row->fact;
    if (!per_gpu_only && fact_number(fact_get(fs, row->fact), &v)) {
        sample_open(out, row->metric, row->labels);
        fputs(row->labels ? "} " : " ", out);
        write_value(out, v * row->scale);
        fputc('\n', out);
    }
    for (size_t i = 0; i < fs->n; i++) {
        size_t n;
        const char *idx = gpu_index(tail, fs->v[i]->name, &n);
        if (!idx || !fact_number(fs->v[i], &v))
            continue;
        char pci_name[FACT_NAME_MAX];
        snprintf(pci_name, sizeof(pci_name), "gpu.%.*s.pci", (int)n, idx);
        const struct fact *pci = fact_get(fs, pci_name);
        sample_open(out, row->metric, row->labels);
        fprintf(out, "%sgpu=\"%.*s\"", row->labels ? "," : "{", (int)n, idx);
        if (pci && pci->type == FACT_STR) {
            fputs(",pci=", out);
            prom_write_label_value(out, pci->s);
        }
        fputs("} ", out);
        write_value(out, v * row->scale);
        fputc('\n', out);
    }
}

static void info_label(FILE *out, const char *name, const char *value, int *first)
{
    fprintf(out, "%s%s=", *first ? "" : ",", name);
    *first = 0;
    /* an empty value is the format's "label absent": the fact is unknown */
    prom_write_label_value(out, value ? value : "");
}

static const char *fact_text(const struct factset *fs, const char *name)
{
    const struct fact *f = fact_get(fs, name);
    return f && f->type == FACT_STR ? f->s : NULL;
}

/* string facts as an info metric: one series per GPU whose value is 1,
 * the strings as labels (an unknown one is the empty, absent label) */
/* clang-format off */
static const struct prom_info prom_info[] = {
    {P "gpu_partition_info", "MI300-class compute and memory partition mode of the GPU (always 1).",
     {{"compute", "compute_partition"}, {"memory", "memory_partition"}}},
};
/* clang-format on */
static const size_t prom_info_count = ARRAY_SIZE(prom_info);

static void write_info(FILE *out, const struct prom_info *in, const struct factset *fs)
{
    int head = 0;
    char fn[FACT_NAME_MAX];
    for (size_t i = 0; i < fs->n; i++) {
        size_t n;
        const char *idx = gpu_index("pci", fs->v[i]->name, &n);
        if (!idx)
            continue;
        int any = 0;
        for (size_t l = 0; l < PROM_INFO_LABELS && in->label[l].name; l++) {
            snprintf(fn, sizeof(fn), "gpu.%.*s.%s", (int)n, idx, in->label[l].fact);
            any |= fact_text(fs, fn) != NULL;
        }
        if (!any)
            continue; /* no sample without a value: the family stays out */
        if (!head++)
            family_head(out, in->metric, in->help);
        fprintf(out, "%s{gpu=\"%.*s\"", in->metric, (int)n, idx);
        if (fs->v[i]->type == FACT_STR) {
            fputs(",pci=", out);
            prom_write_label_value(out, fs->v[i]->s);
        }
        for (size_t l = 0; l < PROM_INFO_LABELS && in->label[l].name; l++) {
            snprintf(fn, sizeof(fn), "gpu.%.*s.%s", (int)n, idx, in->label[l].fact);
            fprintf(out, ",%s=", in->label[l].name);
            const char *v = fact_text(fs, fn);
            prom_write_label_value(out, v ? v : "");
        }
        fputs("} 1\n", out);
    }
}

int report_prom_write(FILE *out, const struct report_meta *m, const struct factset *fs,
                      const struct results *r)
{
    family_head(out, P "build_info",
                "The tool's version and the machine's ROCm, driver and kernel (always 1).");
    fputs(P "build_info{", out);
    int first = 1;
    info_label(out, "version", m->version, &first);
    info_label(out, "rocm", fact_text(fs, "rocm.version"), &first);
    info_label(out, "driver", fact_text(fs, "driver.version"), &first);
    info_label(out, "kernel", m->kernel, &first);
    info_label(out, "level", m->level, &first);
    fputs("} 1\n", out);

    family_head(out, P "check_status",
                "Check verdict: 0 pass, 1 skip, 2 warn, 3 fail, 4 error, 5 timeout "
                "(>= 3 makes check exit 1); a per-GPU check also has a series per GPU "
                "judged (gpu, pci labels) beside its worst (no gpu label).");
    for (size_t i = 0; i < r->n; i++) {
        fputs(P "check_status{check=", out);
        prom_write_label_value(out, r->v[i].check->id);
        fprintf(out, "} %d\n", prom_status_code(r->v[i].st));
        /* issue 34: which GPU to drain, not only that one of them is bad */
        for (size_t j = 0; j < r->v[i].ngpus; j++) {
            const struct gpu_verdict *g = &r->v[i].gpus[j];
            fputs(P "check_status{check=", out);
            prom_write_label_value(out, r->v[i].check->id);
            fprintf(out, ",gpu=\"%d\",pci=", g->gpu);
            prom_write_label_value(out, g->pci ? g->pci : "");
            fprintf(out, "} %d\n", prom_status_code(g->st));
        }
    }
    family_head(out, P "check",
                "Check verdict as one series per status, 1 for the check's status, else 0.");
    for (size_t i = 0; i < r->n; i++)
        for (int s = 0; s < ST__COUNT; s++) {
            fputs(P "check{check=", out);
            prom_write_label_value(out, r->v[i].check->id);
            fprintf(out, ",status=\"%s\"} %d\n", status_name((enum status)s),
                    r->v[i].st == (enum status)s);
        }

    family_head(out, P "run_duration_seconds", "Wall time of the doctor's run.");
    fputs(P "run_duration_seconds ", out);
    write_value(out, m->duration_s);
    fputc('\n', out);

    /* one family at a time: all rows of a metric, wherever they sit */
    for (size_t i = 0; i < prom_map_count; i++) {
        size_t j;
        for (j = 0; j < i && strcmp(prom_map[j].metric, prom_map[i].metric) != 0; j++)
            ;
        if (j < i)
            continue; /* written with its first row */
        /* a family without a sample gets no HELP either: promtool and
         * readers see only what was measured */
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        if (!mem)
            return -1;
        for (size_t k = i; k < prom_map_count; k++)
            if (strcmp(prom_map[k].metric, prom_map[i].metric) == 0)
                write_row(mem, &prom_map[k], fs);
        if (fclose(mem)) {
            free(buf);
            return -1;
        }
        if (len) {
            family_head(out, prom_map[i].metric, prom_map[i].help);
            fwrite(buf, 1, len, out);
        }
        free(buf);
    }
    for (size_t i = 0; i < prom_info_count; i++)
        write_info(out, &prom_info[i], fs);
    return ferror(out) ? -1 : 0;
}
