/* memtest.c - the pattern sequence and the C twin (see memtest.h). */
#include "memtest.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* keep in step with rvd_mt_value in kernels/memtest.hip */
uint32_t memtest_value(unsigned kind, unsigned arg, uint64_t i)
{
    if (kind == 0)
        return 1u << (unsigned)((i + arg) & 31);
    if (kind == 1)
        return (uint32_t)(i ^ (i >> 32)) ^ arg;
    if (kind == 2) {
        uint64_t z = i * 0x9e3779b97f4a7c15ull + arg;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return (uint32_t)(z ^ (z >> 31));
    }
    return arg;
}

void memtest_cpu_fill(uint32_t *buf, uint64_t n, unsigned kind, unsigned arg)
{
    for (uint64_t i = 0; i < n; i++)
        buf[i] = memtest_value(kind, arg, i);
}

void memtest_cpu_check(uint32_t *buf, uint64_t n, unsigned kind, unsigned arg, int invert,
                       uint64_t flip_word, uint32_t flip_mask, struct memtest_check *out)
{
    for (uint64_t i = 0; i < n; i++) {
        uint32_t want = memtest_value(kind, arg, i), got = ((volatile uint32_t *)buf)[i];
        if (i == flip_word)
            got ^= flip_mask;
        if (got != want) {
            if (out->count < MEMTEST_FIRST) {
                out->word[out->count] = i;
                out->want[out->count] = want;
                out->got[out->count] = got;
            }
            out->count++;
        }
        if (invert)
            buf[i] = ~want;
    }
}

int memtest_flip_hook(int device, uint64_t *word, uint32_t *mask)
{
    const char *e = getenv("ROCM_VLA_DOCTOR_MEMTEST_FLIP");
    if (!e || !*e)
        return 0;
    char *end;
    unsigned long long off = strtoull(e, &end, 0);
    unsigned long bit = 0, dev = 0;
    int any_dev = 1;
    if (end == e || *e == '-')
        return -1;
    if (*end == ':') {
        char *e2;
        bit = strtoul(end + 1, &e2, 10);
        if (e2 == end + 1 || bit > 7)
            return -1;
        end = e2;
    }
    if (*end == '@') {
        char *e2;
        dev = strtoul(end + 1, &e2, 10);
        if (e2 == end + 1)
            return -1;
        any_dev = 0;
        end = e2;
    }
    if (*end)
        return -1;
    if (!any_dev && (long)dev != device)
        return 0;
    *word = off / 4;
    *mask = 1u << (unsigned)((off % 4) * 8 + bit);
    return 1;
}

struct step {
    unsigned kind, arg;
    int fill, invert; /* fill: write the pattern before verifying */
};

static int pass(const struct memtest_ops *ops, const char *name, const struct step *s, uint64_t n,
                uint64_t base, struct memtest_result *r, int *failed, char *err, size_t err_len)
{
    if (s->fill) {
        if (ops->fill(ops->ctx, s->kind, s->arg)) {
            snprintf(err, err_len, "writing the %s pattern failed", name);
            return -1;
        }
        r->bytes += 4.0 * (double)n;
    }
    struct memtest_check c;
    memset(&c, 0, sizeof(c));
    if (ops->check(ops->ctx, s->kind, s->arg, s->invert, &c)) {
        snprintf(err, err_len, "verifying the %s pattern failed", name);
        return -1;
    }
    r->bytes += (s->invert ? 8.0 : 4.0) * (double)n;
    r->errors += c.count;
    *failed |= c.count > 0;
    for (uint64_t k = 0; k < c.count && k < MEMTEST_FIRST && r->first.n < MEMTEST_FIRST; k++) {
        /* each failing word once, with the first pattern that caught it */
        int seen = 0;
        for (size_t j = 0; j < r->nwords && !seen; j++)
            seen = r->words[j] == c.word[k];
        if (seen)
            continue;
        r->words[r->nwords++] = c.word[k];
        strlist_add_owned(&r->first, xasprintf("%s: offset 0x%" PRIx64 " (address 0x%" PRIx64
                                               "): expected 0x%08x, read 0x%08x (bits 0x%08x)",
                                               name, c.word[k] * 4, base + c.word[k] * 4, c.want[k],
                                               c.got[k], c.want[k] ^ c.got[k]));
    }
    return 0;
}

int memtest_run(const struct memtest_ops *ops, uint64_t n, uint64_t base, double time_bound_s,
                struct memtest_result *r, char *err, size_t err_len)
{
    memset(r, 0, sizeof(*r));
    double t0 = util_mono_s();
    struct step steps[40];
    static const char *const names[] = {"walking ones", "address in address", "random",
                                        "moving inversions"};
    for (int pat = 0; pat < 4; pat++) {
        int ns = 0;
        if (pat == 0)
            for (unsigned p = 0; p < 32; p++)
                steps[ns++] = (struct step){0, p, 1, 0};
        if (pat == 1) {
            steps[ns++] = (struct step){1, 0, 1, 0};
            steps[ns++] = (struct step){1, 0xffffffffu, 1, 0};
        }
        if (pat == 2)
            steps[ns++] = (struct step){2, 0x5eed1234u, 1, 0};
        if (pat == 3)
            for (int k = 0; k < 2; k++) {
                unsigned p = k ? 0x55555555u : 0;
                steps[ns++] = (struct step){3, p, 1, 1};  /* P written, verified, ~P written */
                steps[ns++] = (struct step){3, ~p, 0, 1}; /* ~P verified, P written back */
                steps[ns++] = (struct step){3, p, 0, 0};  /* P verified */
            }
        if (util_mono_s() - t0 > time_bound_s)
            break;
        int failed = 0;
        for (int k = 0; k < ns; k++)
            if (pass(ops, names[pat], &steps[k], n, base, r, &failed, err, err_len)) {
                r->seconds = util_mono_s() - t0;
                return -1;
            }
        strlist_add(&r->run, names[pat]);
        if (failed)
            strlist_add(&r->failed, names[pat]);
    }
    r->complete = r->run.n == 4;
    r->seconds = util_mono_s() - t0;
    return 0;
}

void memtest_result_release(struct memtest_result *r)
{
    strlist_release(&r->first);
    strlist_release(&r->failed);
    strlist_release(&r->run);
}
