/* test_thermal.c - gpu.thermal judges each sensor (edge, junction, mem)
 * against its own limit and names the one that decided: the hwmon reader on
 * small trees (labels, crit, emergency, missing sensors) and the rules of the
 * shipped checks.yaml on fact sets, one case per sensor deciding. */
#include "../../probes/fact_catalog.h"
#include "../../probes/gpu_pci.h"
#include "../../src/core/checks.h"
#include "sysroot_tree.h"
#include "test.h"

#include <stdlib.h>

#include <math.h>

static struct factset fs = FACTSET_INIT;

static double fflt(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_FLOAT ? f->f : NAN;
}

static int is_unknown(const char *name)
{
    const struct fact *f = fact_get(&fs, name);
    return f && f->type == FACT_UNKNOWN;
}

#define HW "/sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon2"

/* one sensor: index, label (NULL: none), input, crit and emergency in
 * millidegrees (0: file absent) */
static void sensor(unsigned i, const char *label, long input, long crit, long emerg)
{
    char rel[160];
    if (label) {
        snprintf(rel, sizeof(rel), HW "/temp%u_label", i);
        putf(rel, "%s\n", label);
    }
    snprintf(rel, sizeof(rel), HW "/temp%u_input", i);
    putf(rel, "%ld\n", input);
    if (crit) {
        snprintf(rel, sizeof(rel), HW "/temp%u_crit", i);
        putf(rel, "%ld\n", crit);
    }
    if (emerg) {
        snprintf(rel, sizeof(rel), HW "/temp%u_emergency", i);
        putf(rel, "%ld\n", emerg);
    }
}

static void read_tree(void)
{
    factset_release(&fs);
    if (rootfs_init(root))
        exit(2);
    gp_drm_facts(&fs, 0, "0000:03:00.0", -1, NULL);
}

static void test_reader(void)
{
    /* labelled, each with its own crit; emergency ignored when crit exists */
    tree_fresh("thermal");
    sensor(1, "edge", 53000, 100000, 105000);
    sensor(2, "junction", 61000, 110000, 115000);
    sensor(3, "mem", 68000, 108000, 113000);
    read_tree();
    CHECK(fflt("gpu.0.temp_edge_c") == 53.0);
    CHECK(fflt("gpu.0.temp_junction_c") == 61.0);
    CHECK(fflt("gpu.0.temp_mem_c") == 68.0);
    CHECK(fflt("gpu.0.temp_edge_limit_c") == 100.0);
    CHECK(fflt("gpu.0.temp_junction_limit_c") == 110.0);
    CHECK(fflt("gpu.0.temp_mem_limit_c") == 108.0);
    const struct fact *l = fact_get(&fs, "gpu.0.temp_sensors");
    CHECK(l && l->type == FACT_LIST && l->list.n == 3);
    CHECK(l && l->type == FACT_LIST && strlist_has(&l->list, "junction 61 °C (limit 110 °C)"));

    /* only temp*_emergency: that is the limit; labels in another order */
    tree_fresh("thermal");
    sensor(1, "mem", 70000, 0, 95000);
    sensor(2, "edge", 50000, 0, 0);
    read_tree();
    CHECK(fflt("gpu.0.temp_mem_c") == 70.0);
    CHECK(fflt("gpu.0.temp_mem_limit_c") == 95.0);
    CHECK(str_ends(fact_get(&fs, "gpu.0.temp_mem_limit_c")->source, "temp1_emergency"));
    CHECK(fflt("gpu.0.temp_edge_c") == 50.0);
    CHECK(is_unknown("gpu.0.temp_edge_limit_c")); /* no crit, no emergency */
    /* junction absent: unknown, never 0, and so is its limit */
    CHECK(is_unknown("gpu.0.temp_junction_c"));
    CHECK(is_unknown("gpu.0.temp_junction_limit_c"));
    l = fact_get(&fs, "gpu.0.temp_sensors");
    CHECK(l && l->type == FACT_LIST && l->list.n == 2 && strlist_has(&l->list, "edge 50 °C"));

    /* unlabelled sensors: amdgpu's fixed order edge, junction, mem */
    tree_fresh("thermal");
    sensor(1, NULL, 40000, 95000, 0);
    sensor(2, NULL, 45000, 0, 0);
    read_tree();
    CHECK(fflt("gpu.0.temp_edge_c") == 40.0);
    CHECK(fflt("gpu.0.temp_edge_limit_c") == 95.0);
    CHECK(fflt("gpu.0.temp_junction_c") == 45.0);
    CHECK(is_unknown("gpu.0.temp_mem_c"));

    /* no hwmon directory at all */
    tree_fresh("thermal");
    put_dir("/sys/bus/pci/devices/0000:03:00.0");
    read_tree();
    CHECK(is_unknown("gpu.0.temp_edge_c"));
    CHECK(is_unknown("gpu.0.temp_mem_limit_c"));
    tree_remove();
    rootfs_release();
}

/* ---- the rules -------------------------------------------------------------- */

static struct checkset cs;

/* NAN: the fact is unknown */
static void temp(const char *sensor_name, double c, double limit)
{
    char n[FACT_NAME_MAX];
    snprintf(n, sizeof(n), "gpu.0.temp_%s_c", sensor_name);
    if (isnan(c))
        fact_set_unknown(&fs, n, "hwmon", "no readable '%s' temperature sensor", sensor_name);
    else
        fact_set_float(&fs, n, c, "hwmon");
    snprintf(n, sizeof(n), "gpu.0.temp_%s_limit_c", sensor_name);
    if (isnan(limit))
        fact_set_unknown(&fs, n, "hwmon", "no temp*_crit");
    else
        fact_set_float(&fs, n, limit, "hwmon");
}

static void verdict(double e, double el, double j, double jl, double m, double ml, enum status want,
                    const char *summary)
{
    factset_release(&fs);
    fact_set_int(&fs, "gpu.count", 1, NULL);
    fact_set_str(&fs, "gpu.0.pci", "0000:03:00.0", NULL);
    fact_set_bool(&fs, "gpu.0.driver_bound", 1, NULL);
    struct strlist sensors = STRLIST_INIT;
    strlist_add(&sensors, "edge 1 °C");
    fact_set_list(&fs, "gpu.0.temp_sensors", &sensors, NULL);
    strlist_release(&sensors);
    temp("edge", e, el);
    temp("junction", j, jl);
    temp("mem", m, ml);
    struct strlist only = STRLIST_INIT;
    strlist_add(&only, "gpu.thermal");
    struct run_filter flt = {LEVEL_QUICK, &only};
    struct results r;
    CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
    CHECK(r.n == 1);
    if (r.n == 1) {
        if (r.v[0].st != want || strcmp(r.v[0].summary, summary) != 0)
            fprintf(stderr, "got %d \"%s\"\nwant %d \"%s\"\n", r.v[0].st, r.v[0].summary, want,
                    summary);
        CHECK(r.v[0].st == want);
        CHECK_STR(r.v[0].summary, summary);
    }
    results_release(&r);
    strlist_release(&only);
}

static void test_rules(void)
{
    /* RVD_TEST_CHECKS: a mutant of checks.yaml (make mutation) */
    const char *mutant = getenv("RVD_TEST_CHECKS");
    CHECK(checks_load(&cs, mutant ? mutant : "checks.yaml") == 0);
    const double U = NAN;
    /* all cool */
    verdict(50, 100, 60, 110, 65, 95, ST_PASS, "every sensor below its limit: edge 1 °C");
    /* junction decides against its own limit */
    verdict(80, 100, 104, 105, 70, 95, ST_FAIL,
            "junction 104 °C is within 5 °C of its limit 105 °C");
    /* mem decides though junction is hotter: mem's limit is lower */
    verdict(70, 100, 100, 110, 92, 95, ST_FAIL, "mem 92 °C is within 5 °C of its limit 95 °C");
    /* edge decides though junction is the hottest sensor (the old rule,
     * hottest against its own crit, only warned here) */
    verdict(96, 100, 104, 110, 90, 108, ST_FAIL, "edge 96 °C is within 5 °C of its limit 100 °C");
    /* no limit from sysfs: the default per sensor */
    verdict(50, U, 106, U, 60, U, ST_FAIL,
            "junction 106 °C is within 5 °C of its default limit 110 °C (the GPU reports none)");
    verdict(50, U, 60, U, 91, U, ST_FAIL,
            "mem 91 °C is within 5 °C of its default limit 95 °C (the GPU reports none)");
    verdict(96, U, 60, U, 60, U, ST_FAIL,
            "edge 96 °C is within 5 °C of its default limit 100 °C (the GPU reports none)");
    /* warnings name their sensor too */
    verdict(50, 100, 97, 110, 60, 108, ST_WARN,
            "junction 97 °C is within 15 °C of its limit 110 °C: cooling is poor, clocks will "
            "throttle");
    verdict(86, 100, 60, 110, 60, 108, ST_WARN,
            "edge 86 °C is within 15 °C of its limit 100 °C: cooling is poor, clocks will "
            "throttle");
    verdict(50, 100, 60, 110, 94, 108, ST_WARN,
            "mem 94 °C is within 15 °C of its limit 108 °C: cooling is poor, clocks will "
            "throttle");
    /* a GPU without a mem sensor (RX 580: edge only) is judged on what it
     * has: unknown sensors neither fail nor block the verdict */
    verdict(44, 94, U, U, U, U, ST_PASS, "every sensor below its limit: edge 1 °C");
    verdict(90, 94, U, U, U, U, ST_FAIL, "edge 90 °C is within 5 °C of its limit 94 °C");
    /* no sensor at all */
    verdict(U, U, U, U, U, U, ST_SKIP, "no temperature sensor readable");
    factset_release(&fs);
    checks_release(&cs);
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    test_reader();
    test_rules();
    return test_report();
}
