/* test_loop_numerics.c - issue 36's pure parts, each both ways: a soak
 * call's actions against the first call's (bitwise equal, a planted add,
 * a NaN that is counted and not measured as a difference), the run's facts
 * (nothing differs: the first differing call is unknown, never 0), the
 * planting spec's parser (good and malformed), and the numerics digest:
 * round trip, a moved action measured relative to the largest, another
 * preset or dtype not comparable, malformed texts refused; bench --rate's
 * cause on each side of its thresholds (10 % slower, a clock under 80 %,
 * ASPM L1 on, off and unknown, clocks unknown). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/actions_digest.h"
#include "../../src/core/fact.h"
#include "../../src/soak/soak_outputs.h"
#include "../../src/vla/pace_cause.h"
#include "test.h"

static void test_compare(void)
{
    float ref[4] = {1, -2, 0.5f, 4}, cur[4];
    struct soak_out_cmp c;
    memcpy(cur, ref, sizeof(cur));
    soak_outputs_compare(ref, cur, 4, &c);
    CHECK(!c.differ && c.max_diff == 0 && c.rel_diff == 0 && c.nonfinite == 0);
    cur[2] = 0.75f;
    soak_outputs_compare(ref, cur, 4, &c);
    CHECK(c.differ && fabs(c.max_diff - 0.25) < 1e-9 && fabs(c.rel_diff - 0.0625) < 1e-9);
    cur[2] = NAN;
    soak_outputs_compare(ref, cur, 4, &c);
    CHECK(c.differ && c.max_diff == 0 && c.nonfinite == 1);
}

static void test_facts(void)
{
    struct soak_out_cmp v[5] = {
        {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0.5, 0.1, 0}, {1, 0.2, 0.05, 2}, {0, 0, 0, 0}};
    struct factset fs = FACTSET_INIT;
    soak_outputs_facts(v, 5, &fs);
    CHECK(fact_get(&fs, "soak.outputs_compared")->i == 4);
    CHECK(fact_get(&fs, "soak.outputs_differ_calls")->i == 2);
    CHECK(fact_get(&fs, "soak.outputs_first_differ_call")->i == 3);
    CHECK(fact_get(&fs, "soak.outputs_max_diff")->f == 0.5);
    CHECK(fact_get(&fs, "soak.outputs_max_rel_diff")->f == 0.1);
    CHECK(fact_get(&fs, "soak.outputs_nonfinite")->i == 2);
    CHECK(fact_get(&fs, "soak.outputs_nonfinite_calls")->i == 1);
    factset_release(&fs);
    /* every call equal: the first differing call is unknown, never 0 */
    soak_outputs_facts(v, 2, &fs);
    CHECK(fact_get(&fs, "soak.outputs_differ_calls")->i == 0);
    CHECK(fact_get(&fs, "soak.outputs_first_differ_call")->type == FACT_UNKNOWN);
    factset_release(&fs);
    /* no call at all: every fact unknown */
    soak_outputs_facts(NULL, 0, &fs);
    CHECK(fact_get(&fs, "soak.outputs_compared")->type == FACT_UNKNOWN);
    factset_release(&fs);
}

static void test_plants(void)
{
    struct soak_out_plant v[2];
    size_t n;
    CHECK(soak_outputs_plants("3 add 0.5,7 nan", v, 2, &n) == 0 && n == 2);
    CHECK(v[0].from_call == 3 && v[0].add == 0.5 && !v[0].nan && v[1].from_call == 7 && v[1].nan);
    float a[1] = {1};
    soak_outputs_apply(v, n, 2, a);
    CHECK(a[0] == 1);
    soak_outputs_apply(v, n, 3, a);
    CHECK(a[0] == 1.5f);
    soak_outputs_apply(v, n, 7, a);
    CHECK(isnan(a[0]));
    CHECK(soak_outputs_plants(NULL, v, 2, &n) == 0 && n == 0);
    fprintf(stderr, "(four refusals expected below)\n");
    CHECK(soak_outputs_plants("0 nan", v, 2, &n) == -1);
    CHECK(soak_outputs_plants("3 add", v, 2, &n) == -1);
    CHECK(soak_outputs_plants("3 mul 2", v, 2, &n) == -1);
    CHECK(soak_outputs_plants("1 nan,2 nan,3 nan", v, 2, &n) == -1);
}

static void test_digest(void)
{
    float a[100];
    for (int i = 0; i < 100; i++)
        a[i] = (float)sin(i * 0.37) * 3;
    char *t = actions_digest_text(a, 100, "my preset", "bf16");
    struct actions_digest d0, d1;
    CHECK(actions_digest_parse(t, &d0) == 0);
    CHECK_STR(d0.preset, "my_preset");
    CHECK(d0.n == 100 && d0.nsample == ACTIONS_DIGEST_SAMPLES && (float)d0.sample[1] == a[3]);
    double md, rel;
    int at;
    const char *why;
    CHECK(actions_digest_compare(&d0, &d0, &md, &rel, &at, &why) == 0 && md == 0 && rel == 0);
    /* one sampled action moved by 0.3: 10 % of the largest |action| (3) */
    float top = 0;
    for (int i = 0; i < 100; i++)
        top = fabsf(a[i]) > top ? fabsf(a[i]) : top;
    a[6] += 0.3f;
    char *t1 = actions_digest_text(a, 100, "my preset", "bf16");
    CHECK(actions_digest_parse(t1, &d1) == 0 && d1.fnv != d0.fnv);
    CHECK(actions_digest_compare(&d0, &d1, &md, &rel, &at, &why) == 0 && at == 2);
    CHECK(fabs(md - 0.3) < 1e-5 && fabs(rel - 0.3 / top) < 1e-5);
    free(t1);
    /* an unsampled action moved: the hash differs, the sample does not */
    a[6] -= 0.3f;
    a[7] += 1;
    t1 = actions_digest_text(a, 100, "my preset", "bf16");
    CHECK(actions_digest_parse(t1, &d1) == 0 && d1.fnv != d0.fnv);
    CHECK(actions_digest_compare(&d0, &d1, &md, &rel, &at, &why) == 0 && md == 0);
    free(t1);
    t1 = actions_digest_text(a, 100, "my preset", "fp16");
    CHECK(actions_digest_parse(t1, &d1) == 0);
    CHECK(actions_digest_compare(&d0, &d1, &md, &rel, &at, &why) == 1 &&
          !strcmp(why, "another dtype"));
    free(t1);
    a[0] = NAN;
    t1 = actions_digest_text(a, 100, "my preset", "bf16");
    CHECK(actions_digest_parse(t1, &d1) == 0);
    CHECK(actions_digest_compare(&d0, &d1, &md, &rel, &at, &why) == 0 && isinf(rel) && at == 0);
    free(t1);
    free(t);
    static const char *const bad[] = {
        "",
        "v2 preset=a dtype=b n=1 fnv64=0000000000000000 top=1 sample=1",
        "v1 preset=a dtype=b n=2 fnv64=0000000000000000 top=1 sample=1",
        "v1 preset=a dtype=b n=1 fnv64=00 top=1 sample=1",
        "v1 preset=a dtype=b n=1 fnv64=0000000000000000 top=-1 sample=1",
        "v1 preset=a dtype=b n=1 fnv64=0000000000000000 top=1 sample=x",
        "v1 dtype=b n=1 fnv64=0000000000000000 top=1 sample=1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(actions_digest_parse(bad[i], &d1) == -1);
    CHECK(actions_digest_parse("v1 preset=a dtype=b n=1 fnv64=0000000000000000 top=1 sample=1",
                               &d1) == 0);
}

static void test_pace_cause(void)
{
    char b[640];
    struct pace_obs o = {10, 10.9, 2000, 1000, 1};
    CHECK(pace_cause(&o, b, sizeof(b)) == PACE_NOT_SLOWER && strstr(b, "+9.0%"));
    o.paced_p50_ms = 11.2;
    CHECK(pace_cause(&o, b, sizeof(b)) == PACE_CLOCK_RAMP && strstr(b, "1000 MHz") &&
          strstr(b, "2000 MHz back to back") && strstr(b, "power_dpm_force_performance_level"));
    o.sclk_gap_mhz = 1600; /* 80 %: not a drop */
    CHECK(pace_cause(&o, b, sizeof(b)) == PACE_ASPM_CANDIDATE && strstr(b, "not the clock") &&
          strstr(b, "not measured"));
    o.sclk_gap_mhz = 1599;
    CHECK(pace_cause(&o, b, sizeof(b)) == PACE_CLOCK_RAMP);
    o.sclk_gap_mhz = 1900;
    o.aspm_l1 = 0;
    CHECK(pace_cause(&o, b, sizeof(b)) == PACE_UNEXPLAINED && strstr(b, "ASPM L1 is off"));
    o.aspm_l1 = -1;
    o.sclk_gap_mhz = NAN; /* a clock ramp is never named without both clocks */
    CHECK(pace_cause(&o, b, sizeof(b)) == PACE_UNEXPLAINED && strstr(b, "not readable") &&
          strstr(b, "unknown"));
}

int main(void)
{
    test_pace_cause();
    test_compare();
    test_facts();
    test_plants();
    test_digest();
    return test_report();
}
