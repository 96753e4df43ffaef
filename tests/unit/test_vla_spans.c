/* test_vla_spans.c - the range set that says which rows of a GPU
 * allocation's 16-bit mirror are current (src/vla/spans.c): adds merge,
 * cuts split, a read is covered only by one range holding all of it. */
#include "../../src/vla/spans.h"
#include "test.h"

/* the set as a bitmap over [0, 64): the reference the random walk checks */
static unsigned long long bits(const struct vla_spans *s)
{
    unsigned long long b = 0;
    for (int i = 0; i < s->n; i++)
        for (size_t j = s->v[i].lo; j < s->v[i].hi; j++)
            b |= 1ull << j;
    return b;
}

static unsigned long long range(size_t lo, size_t hi)
{
    unsigned long long b = 0;
    for (size_t j = lo; j < hi; j++)
        b |= 1ull << j;
    return b;
}

/* ranges disjoint and not touching (merging kept the set minimal) */
static int minimal(const struct vla_spans *s)
{
    for (int i = 0; i < s->n; i++) {
        if (s->v[i].lo >= s->v[i].hi)
            return 0;
        for (int j = 0; j < s->n; j++)
            if (i != j && s->v[i].lo <= s->v[j].hi && s->v[j].lo <= s->v[i].hi)
                return 0;
    }
    return 1;
}

int main(void)
{
    struct vla_spans s = {0};
    CHECK(!vla_spans_cover(&s, 0, 1));

    /* a KV cache layer: the prefix rows, then the step's rows after them */
    vla_spans_add(&s, 0, 816);
    CHECK(vla_spans_cover(&s, 0, 816) && !vla_spans_cover(&s, 0, 817));
    vla_spans_add(&s, 816, 866);
    CHECK(s.n == 1 && vla_spans_cover(&s, 0, 866));
    /* the next step rewrites its rows: cut, then added again */
    vla_spans_cut(&s, 816, 866);
    CHECK(s.n == 1 && vla_spans_cover(&s, 0, 816) && !vla_spans_cover(&s, 800, 820));
    vla_spans_add(&s, 816, 866);
    CHECK(s.n == 1 && vla_spans_cover(&s, 0, 866));

    /* a write in the middle splits; a read across the hole is not covered */
    vla_spans_cut(&s, 400, 401);
    CHECK(s.n == 2 && vla_spans_cover(&s, 0, 400) && vla_spans_cover(&s, 401, 866));
    CHECK(!vla_spans_cover(&s, 399, 402) && !vla_spans_cover(&s, 0, 866));
    /* a second layer far away stays its own range */
    vla_spans_add(&s, 2000, 2100);
    CHECK(s.n == 3 && vla_spans_cover(&s, 2000, 2100) && !vla_spans_cover(&s, 866, 2000));
    /* one cut across several ranges */
    vla_spans_cut(&s, 300, 2050);
    CHECK(s.n == 2 && vla_spans_cover(&s, 0, 300) && vla_spans_cover(&s, 2050, 2100));
    CHECK(!vla_spans_cover(&s, 299, 301) && !vla_spans_cover(&s, 2049, 2051));
    /* an add overlapping both joins them */
    vla_spans_add(&s, 250, 2060);
    CHECK(s.n == 1 && vla_spans_cover(&s, 0, 2100));
    /* empty ranges change nothing */
    vla_spans_add(&s, 5000, 5000);
    vla_spans_cut(&s, 10, 10);
    CHECK(s.n == 1 && vla_spans_cover(&s, 0, 2100));
    vla_spans_clear(&s);
    CHECK(s.n == 0 && !vla_spans_cover(&s, 0, 1));

    /* a random walk of adds and cuts against a bitmap */
    unsigned long long want = 0, x = 0x9E3779B97F4A7C15ull;
    int agree = 1, small = 1, covers = 1;
    for (int step = 0; step < 4000; step++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t a = x % 64, b = (x >> 8) % 65;
        size_t lo = a < b ? a : b, hi = a < b ? b : a;
        if ((x >> 20) & 1) {
            vla_spans_add(&s, lo, hi);
            want |= range(lo, hi);
        } else {
            vla_spans_cut(&s, lo, hi);
            want &= ~range(lo, hi);
        }
        agree &= bits(&s) == want;
        small &= minimal(&s);
        /* covered exactly when every element is in the set (ranges do not touch) */
        size_t c = (x >> 30) % 64, d = c + 1 + (x >> 40) % (64 - c);
        covers &= vla_spans_cover(&s, c, d) == ((want & range(c, d)) == range(c, d));
    }
    CHECK(agree);
    CHECK(small);
    CHECK(covers);
    vla_spans_free(&s);
    CHECK(s.v == NULL && s.n == 0);
    return test_report();
}
