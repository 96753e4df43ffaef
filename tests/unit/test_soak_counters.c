/* test_soak_counters.c - the soak's counter facts (src/soak/soak_counters.c)
 * on synthetic timelines, each both ways: a v1_6-like GPU whose thermal or
 * power residency grows against its accumulation counter, a v3_0-like APU
 * that has no accumulation counter (growth known, share unknown), PCIe
 * replays and recoveries that grow or stay, a link that loses lanes or
 * retrains slower between two samples and comes back, and a revision that
 * lacks the counters (unknown with the sampler's reason, never 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/fact.h"
#include "../../src/soak/soak_counters.h"
#include "test.h"

#define NS 9

static struct tel_sample s[NS];

static void set(struct tel_gpu *g, enum tel_key k, double v)
{
    g->v[k] = v;
    g->src[k] = "gpu_metrics";
}

/* NS samples of one GPU, every key unknown with the reason a v1_3 gives */
static void mk(void)
{
    for (int i = 0; i < NS; i++) {
        tel_sample_release(&s[i]);
        s[i].t_s = 10.0 + i;
        s[i].ngpu = 1;
        s[i].gpus = calloc(1, sizeof(struct tel_gpu));
        for (int k = 0; k < TEL_NKEYS; k++)
            snprintf(s[i].gpus[0].why[k], TEL_WHY_MAX, "gpu_metrics 1.3: no %s",
                     tel_key_name((enum tel_key)k));
    }
}

static double num(struct factset *fs, const char *n)
{
    const struct fact *f = fact_get(fs, n);
    return !f ? NAN : f->type == FACT_INT ? (double)f->i : f->type == FACT_FLOAT ? f->f : NAN;
}

static const char *str(struct factset *fs, const char *n)
{
    const struct fact *f = fact_get(fs, n);
    return f && f->type == FACT_STR ? f->s : "";
}

static const char *why(struct factset *fs, const char *n)
{
    const struct fact *f = fact_get(fs, n);
    return f && f->type == FACT_UNKNOWN ? f->reason : NULL;
}

/* v1_6: the accumulation counter advances 100 a sample; socket thermal
 * residency thermal_step a sample, PPT power_step */
static void residency(double thermal_step, double power_step)
{
    mk();
    for (int i = 0; i < NS; i++) {
        struct tel_gpu *g = &s[i].gpus[0];
        set(g, TEL_THR_ACC, 5000 + 100.0 * i);
        set(g, TEL_THR_PROCHOT, 7);
        set(g, TEL_THR_SOCKET_THM, 40 + thermal_step * i);
        set(g, TEL_THR_VR_THM, 0);
        set(g, TEL_THR_HBM_THM, 0);
        set(g, TEL_THR_PPT, 900 + power_step * i);
    }
}

static void test_residency(void)
{
    struct factset fs = FACTSET_INIT;
    residency(0, 0);
    soak_counter_facts(&fs, s, NS);
    CHECK(num(&fs, "soak.residency_thermal_grew") == 0);
    CHECK(num(&fs, "soak.residency_power_grew") == 0);
    CHECK(num(&fs, "soak.residency_thermal_pct") == 0);
    CHECK(!strcmp(str(&fs, "soak.residency_detail"), "none grew"));
    factset_release(&fs);

    /* socket thermal 25 of every 100: 25 % of the run, power steady */
    residency(25, 0);
    soak_counter_facts(&fs, s, NS);
    CHECK(num(&fs, "soak.residency_thermal_grew") == 200);
    CHECK(fabs(num(&fs, "soak.residency_thermal_pct") - 25) < 1e-9);
    CHECK(num(&fs, "soak.residency_power_grew") == 0);
    CHECK(strstr(str(&fs, "soak.residency_detail"), "socket thermal 25.0%") != NULL);
    CHECK(strstr(str(&fs, "soak.residency_detail"), "PPT") == NULL);
    factset_release(&fs);

    /* PPT only: the power class, not the thermal one */
    residency(0, 50);
    soak_counter_facts(&fs, s, NS);
    CHECK(num(&fs, "soak.residency_thermal_grew") == 0);
    CHECK(fabs(num(&fs, "soak.residency_power_pct") - 50) < 1e-9);
    CHECK(strstr(str(&fs, "soak.residency_detail"), "PPT 50.0%") != NULL);
    factset_release(&fs);
}

/* v3_0: counters without an accumulation counter */
static void test_v3_0(void)
{
    struct factset fs = FACTSET_INIT;
    mk();
    for (int i = 0; i < NS; i++) {
        struct tel_gpu *g = &s[i].gpus[0];
        snprintf(g->why[TEL_THR_ACC], TEL_WHY_MAX, "gpu_metrics 3.0 has no accumulation_counter");
        set(g, TEL_THR_THM_GFX, 3.0 * i);
        set(g, TEL_THR_SPL, 11);
    }
    soak_counter_facts(&fs, s, NS);
    CHECK(num(&fs, "soak.residency_thermal_grew") == 24);
    CHECK(num(&fs, "soak.residency_power_grew") == 0);
    const char *w = why(&fs, "soak.residency_thermal_pct");
    CHECK(w && strstr(w, "accumulation_counter"));
    CHECK(strstr(str(&fs, "soak.residency_detail"), "gfx thermal +24") != NULL);
    factset_release(&fs);
}

/* a revision without the counters: unknown naming the sampler's reason */
static void test_unknown(void)
{
    struct factset fs = FACTSET_INIT;
    mk();
    soak_counter_facts(&fs, s, NS);
    const char *w = why(&fs, "soak.residency_thermal_grew");
    CHECK(w && strstr(w, "gpu_metrics 1.3: no"));
    CHECK(why(&fs, "soak.residency_power_pct") != NULL);
    w = why(&fs, "soak.pcie_replays_grew");
    CHECK(w && strstr(w, "gpu_metrics 1.3: no"));
    CHECK(why(&fs, "soak.pcie_recoveries_grew") != NULL);
    w = why(&fs, "soak.link_changes");
    CHECK(w && strstr(w, "slot's link"));
    factset_release(&fs);
    /* no sample at all */
    soak_counter_facts(&fs, NULL, 0);
    CHECK(why(&fs, "soak.residency_thermal_grew") && why(&fs, "soak.link_min_width"));
    factset_release(&fs);
}

static void test_pcie(void)
{
    for (int pass = 0; pass < 3; pass++) {
        struct factset fs = FACTSET_INIT;
        mk();
        for (int i = 0; i < NS; i++) {
            struct tel_gpu *g = &s[i].gpus[0];
            if (pass < 2) {
                /* gpu_metrics v1_5 accumulators: replays grow in pass 1,
                 * one recovery at the 5th sample */
                set(g, TEL_PCIE_REPLAY_ACC, 100 + (pass ? 2.0 * i : 0));
                set(g, TEL_PCIE_REPLAY_ROVER, 0);
                set(g, TEL_PCIE_L0_RECOV, 3 + (pass && i >= 5));
                set(g, TEL_PCIE_NAK_SENT, 0);
                set(g, TEL_PCIE_NAK_RCVD, 0);
            } else {
                /* no gpu_metrics counter: sysfs pcie_replay_count stands in */
                set(g, TEL_PCIE_REPLAYS, 10 + (i >= 4));
            }
        }
        soak_counter_facts(&fs, s, NS);
        if (pass == 0) {
            CHECK(num(&fs, "soak.pcie_replays_grew") == 0);
            CHECK(num(&fs, "soak.pcie_recoveries_grew") == 0);
            CHECK(num(&fs, "soak.pcie_naks_grew") == 0);
            CHECK(!strcmp(str(&fs, "soak.pcie_counter_detail"), "none grew"));
        } else if (pass == 1) {
            CHECK(num(&fs, "soak.pcie_replays_grew") == 16);
            CHECK(num(&fs, "soak.pcie_recoveries_grew") == 1);
            CHECK(strstr(str(&fs, "soak.pcie_counter_detail"), "GPU 0 recoveries +1") != NULL);
        } else {
            CHECK(num(&fs, "soak.pcie_replays_grew") == 1);
            CHECK(why(&fs, "soak.pcie_recoveries_grew") != NULL); /* sysfs has none */
        }
        factset_release(&fs);
    }
    /* a counter that went back (the driver reloaded): unknown, not negative */
    struct factset fs = FACTSET_INIT;
    mk();
    for (int i = 0; i < NS; i++)
        set(&s[i].gpus[0], TEL_PCIE_L0_RECOV, i < 4 ? 50 : 1);
    soak_counter_facts(&fs, s, NS);
    const char *w = why(&fs, "soak.pcie_recoveries_grew");
    CHECK(w && strstr(w, "went back"));
    factset_release(&fs);
}

/* the slot's link: x16 16 GT/s, in pass 1 x8 in samples 3-4, in pass 2
 * 8 GT/s from sample 6 on */
static void test_link(void)
{
    for (int pass = 0; pass < 3; pass++) {
        struct factset fs = FACTSET_INIT;
        mk();
        for (int i = 0; i < NS; i++) {
            struct tel_gpu *g = &s[i].gpus[0];
            set(g, TEL_LINK_SLOT_WIDTH, pass == 1 && (i == 3 || i == 4) ? 8 : 16);
            set(g, TEL_LINK_SLOT_GTS, pass == 2 && i >= 6 ? 8 : 16);
        }
        soak_counter_facts(&fs, s, NS);
        CHECK(num(&fs, "soak.link_start_width") == 16);
        CHECK(num(&fs, "soak.link_start_speed_gts") == 16);
        const struct fact *l = fact_get(&fs, "soak.link_change_list");
        if (pass == 0) {
            CHECK(num(&fs, "soak.link_min_width") == 16 && num(&fs, "soak.link_changes") == 0);
            CHECK(l && l->type == FACT_LIST && l->list.n == 0);
        } else if (pass == 1) {
            /* it came back: the minimum still records it, two changes */
            CHECK(num(&fs, "soak.link_min_width") == 8 && num(&fs, "soak.link_changes") == 2);
            CHECK(num(&fs, "soak.link_min_speed_gts") == 16);
            CHECK(l && l->list.n == 2 && strstr(l->list.v[0], "t=3.0s GPU 0 x16 16 GT/s -> x8"));
        } else {
            CHECK(num(&fs, "soak.link_min_width") == 16);
            CHECK(num(&fs, "soak.link_min_speed_gts") == 8 && num(&fs, "soak.link_changes") == 1);
        }
        factset_release(&fs);
    }
}

int main(void)
{
    test_residency();
    test_v3_0();
    test_unknown();
    test_pcie();
    test_link();
    for (int i = 0; i < NS; i++)
        tel_sample_release(&s[i]);
    return test_report();
}
