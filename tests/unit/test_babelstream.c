/* test_babelstream.c - the BabelStream engine on the CPU reference device
 * (src/gpu/babelstream.h): expected values by hand for one round, odd sizes
 * (1, 7, a window and one more, a large prime) verified end to end, every
 * kernel's fault caught and named, and the byte accounting. The GPU device
 * runs the same engine (probes/probe_mem_bandwidth.c; tests/gpu_device.sh). */
/* layers: core gpu */
#include <math.h>

#include "../../src/gpu/babelstream.h"
#include "test.h"

int main(void)
{
    double a, b, c, dot;
    bs_expected(1, 10, &a, &b, &c, &dot);
    /* c = a = 0.1; b = 0.4 c = 0.04; c = a + b = 0.14; a = b + 0.4 c = 0.096 */
    CHECK(fabs(a - 0.096) < 1e-15 && fabs(b - 0.04) < 1e-15 && fabs(c - 0.14) < 1e-15);
    CHECK(fabs(dot - 0.096 * 0.04 * 10) < 1e-15);
    CHECK(bs_bytes(BS_COPY, 1000) == 16000 && bs_bytes(BS_TRIAD, 1000) == 24000);
    CHECK(bs_bytes(BS_ADD, 1) == 24 && bs_bytes(BS_MUL, 1) == 16 && bs_bytes(BS_DOT, 1) == 16);

    static const size_t sizes[] = {1, 7, 1024, 1025, 100003};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        struct bs_dev *d = bs_cpu_dev(sizes[i], -1);
        struct bs_result r;
        CHECK(d != NULL);
        if (!d)
            continue;
        int rc = bs_measure(d, sizes[i], 5, &r);
        if (rc)
            fprintf(stderr, "n = %zu: %s\n", sizes[i], r.error);
        CHECK(rc == 0 && r.error[0] == '\0');
        CHECK(r.n == sizes[i] && r.rounds == 5);
        /* every element when n is small; 8 windows of 1024 of each array otherwise */
        CHECK(r.checked == 3 * (sizes[i] < 1024 ? 8 * sizes[i] : 8 * 1024));
        CHECK(r.max_rel_err < 1e-12);
        for (int k = 0; k < BS_NKERNELS; k++)
            CHECK(r.best_ms[k] > 0 && r.gbs[k] > 0);
        bs_cpu_dev_free(d);
    }

    /* a kernel that gets one element wrong (the last: the tail of an odd size) */
    /* a is checked first and every wrong value reaches it by the next triad */
    static const char *const want[] = {"a[1000]", "a[1000]", "a[1000]", "a[1000]", "dot = "};
    for (int k = 0; k < BS_NKERNELS; k++) {
        struct bs_dev *d = bs_cpu_dev(1001, k);
        struct bs_result r;
        int rc = bs_measure(d, 1001, 2, &r);
        CHECK(rc == -1 && strstr(r.error, want[k]) != NULL);
        if (!strstr(r.error, want[k]))
            fprintf(stderr, "fault in %s: '%s', want '%s'\n", bs_kernel_names[k], r.error, want[k]);
        bs_cpu_dev_free(d);
    }
    struct bs_result r;
    struct bs_dev *d = bs_cpu_dev(8, -1);
    CHECK(bs_measure(d, 0, 5, &r) == -1 && strstr(r.error, "nothing to measure"));
    CHECK(bs_measure(d, 8, 0, &r) == -1);
    bs_cpu_dev_free(d);
    CHECK(bs_cpu_dev(0, -1) == NULL);
    return test_report();
}
