/* test_memtest.c - the VRAM pattern test's sequence and C twin
 * (src/gpu/memtest.c): the pattern values (the random one against an
 * independent Python computation of the same hash), a clean buffer passes
 * every pattern with the bytes it moved counted, and faults are found and
 * located: the fault-injection flip (every verify pass, one word reported
 * once), a bit stuck at 0, two addresses that alias, the time bound, and the
 * ROCM_VLA_DOCTOR_MEMTEST_FLIP parser. */
/* layers: core gpu */
#include <stdlib.h>
#include <string.h>

#include "../../src/gpu/memtest.h"
#include "test.h"

#define N 4096

struct mem {
    uint32_t buf[N];
    uint64_t flip_word;
    uint32_t flip_mask;
    int fault; /* 0 none, 1 bit 3 of word 100 stuck at 0, 2 word 200 aliases word 100 */
};

static void apply_fault(struct mem *m)
{
    if (m->fault == 1)
        m->buf[100] &= ~8u;
}

static int fill(void *p, unsigned kind, unsigned arg)
{
    struct mem *m = p;
    memtest_cpu_fill(m->buf, N, kind, arg);
    if (m->fault == 2) /* the write to 200 lands on 100: 200 keeps what it held */
        m->buf[100] = m->buf[200], m->buf[200] = 0xdeadbeef;
    apply_fault(m);
    return 0;
}

static int check(void *p, unsigned kind, unsigned arg, int invert, struct memtest_check *out)
{
    struct mem *m = p;
    memtest_cpu_check(m->buf, N, kind, arg, invert, m->flip_word, m->flip_mask, out);
    apply_fault(m);
    return 0;
}

static int run(struct mem *m, double bound, struct memtest_result *r)
{
    struct memtest_ops ops = {fill, check, m};
    char err[100];
    return memtest_run(&ops, N, 0x1000, bound, r, err, sizeof(err));
}

static void test_values(void)
{
    CHECK(memtest_value(0, 0, 0) == 1 && memtest_value(0, 1, 33) == 4 &&
          memtest_value(0, 31, 1) == 1);
    CHECK(memtest_value(1, 0, 5) == 5 && memtest_value(1, 0xffffffffu, 5) == ~5u);
    /* from Python: splitmix64's finaliser of i * golden + seed, low 32 bits */
    CHECK(memtest_value(2, 0x5eed1234u, 0) == 0x7d064610u);
    CHECK(memtest_value(2, 0x5eed1234u, 12345) == 0xa51ddff1u);
    CHECK(memtest_value(2, 7, 1ull << 33) == 0x6eb77ed1u);
    CHECK(memtest_value(3, 0x55555555u, 99) == 0x55555555u);
}

static void test_clean(void)
{
    static struct mem m = {{0}, UINT64_MAX, 0, 0};
    struct memtest_result r;
    CHECK(run(&m, 60, &r) == 0);
    CHECK(r.errors == 0 && r.first.n == 0 && r.failed.n == 0 && r.complete && r.run.n == 4);
    CHECK(strlist_has(&r.run, "walking ones") && strlist_has(&r.run, "moving inversions"));
    /* walking ones 32 x (write + read), address 2 x, random 1 x, moving inversions
     * 2 x (write, read + write, read + write, read): 328 bytes per word */
    CHECK(r.bytes == 328.0 * N);
    /* moving inversions leave P = 0x55555555 in place */
    CHECK(m.buf[0] == 0x55555555u && m.buf[N - 1] == 0x55555555u);
    memtest_result_release(&r);
}

static void test_flip(void)
{
    static struct mem m = {{0}, 7, 0x10, 0};
    struct memtest_result r;
    CHECK(run(&m, 60, &r) == 0);
    /* every verify pass sees it: 32 + 2 + 1 + 6 */
    CHECK(r.errors == 41 && r.failed.n == 4 && r.complete);
    /* one word, reported once, under the first pattern that read it, with its address */
    CHECK(r.first.n == 1 &&
          strcmp(r.first.v[0], "walking ones: offset 0x1c (address 0x101c): expected "
                               "0x00000080, read 0x00000090 (bits 0x00000010)") == 0);
    memtest_result_release(&r);
}

static void test_stuck_and_alias(void)
{
    static struct mem m = {{0}, UINT64_MAX, 0, 1};
    struct memtest_result r;
    CHECK(run(&m, 60, &r) == 0);
    /* bit 3 stuck at 0: walking ones catches it once ((100 + 31) mod 32 = 3) */
    CHECK(r.errors > 0 && strlist_has(&r.failed, "walking ones") && r.first.n == 1 &&
          strstr(r.first.v[0], "walking ones: offset 0x190 (address 0x1190)") &&
          strstr(r.first.v[0], "(bits 0x00000008)"));
    memtest_result_release(&r);
    static struct mem a = {{0}, UINT64_MAX, 0, 2};
    CHECK(run(&a, 60, &r) == 0);
    /* two aliasing words: both reported, address-in-address among the patterns */
    CHECK(r.first.n == 2 && strlist_has(&r.failed, "address in address") &&
          strlist_has(&r.failed, "random"));
    memtest_result_release(&r);
}

static void test_time_bound(void)
{
    static struct mem m = {{0}, UINT64_MAX, 0, 0};
    struct memtest_result r;
    CHECK(run(&m, -1, &r) == 0);
    CHECK(!r.complete && r.run.n == 0 && r.errors == 0 && r.bytes == 0);
    memtest_result_release(&r);
}

static void test_flip_hook(void)
{
    uint64_t w = 0;
    uint32_t mask = 0;
    unsetenv("ROCM_VLA_DOCTOR_MEMTEST_FLIP");
    CHECK(memtest_flip_hook(0, &w, &mask) == 0);
    setenv("ROCM_VLA_DOCTOR_MEMTEST_FLIP", "4101:3", 1);
    CHECK(memtest_flip_hook(5, &w, &mask) == 1 && w == 1025 && mask == 0x800);
    setenv("ROCM_VLA_DOCTOR_MEMTEST_FLIP", "0x10@1", 1);
    CHECK(memtest_flip_hook(0, &w, &mask) == 0);
    CHECK(memtest_flip_hook(1, &w, &mask) == 1 && w == 4 && mask == 1);
    const char *bad[] = {"x", "4:8", "4@", "4:", "-4", "4;1", "4:1@1x"};
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        setenv("ROCM_VLA_DOCTOR_MEMTEST_FLIP", bad[i], 1);
        CHECK(memtest_flip_hook(1, &w, &mask) == -1);
    }
    unsetenv("ROCM_VLA_DOCTOR_MEMTEST_FLIP");
}

int main(void)
{
    test_values();
    test_clean();
    test_flip();
    test_stuck_and_alias();
    test_time_bound();
    test_flip_hook();
    return test_report();
}
