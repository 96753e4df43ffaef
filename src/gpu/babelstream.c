/* babelstream.c - the BabelStream engine, its expected values and the CPU
 * reference device (see babelstream.h) */
#include "babelstream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/util.h"

const char *const bs_kernel_names[BS_NKERNELS] = {"copy", "mul", "add", "triad", "dot"};

#define BS_WINDOWS 8
#define BS_WINDOW 1024
#define BS_TOLERANCE 1e-8 /* relative: every round is exact to a few ulps in doubles */

double bs_bytes(enum bs_kernel k, size_t n)
{
    return (k == BS_ADD || k == BS_TRIAD ? 3.0 : 2.0) * sizeof(double) * (double)n;
}

void bs_expected(int rounds, size_t n, double *a, double *b, double *c, double *dot)
{
    double ga = BS_START_A, gb = BS_START_B, gc = BS_START_C;
    for (int i = 0; i < rounds; i++) {
        gc = ga;
        gb = BS_SCALAR * gc;
        gc = ga + gb;
        ga = gb + BS_SCALAR * gc;
    }
    *a = ga;
    *b = gb;
    *c = gc;
    *dot = ga * gb * (double)n;
}

static double rel_err(double got, double want)
{
    if (!isfinite(got))
        return INFINITY;
    return want != 0 ? fabs(got - want) / fabs(want) : fabs(got);
}

/* compare windows of one array with the expected value */
static int verify_array(const struct bs_dev *d, int array, double want, size_t n,
                        struct bs_result *r, double *buf)
{
    static const char names[] = "abc";
    for (int w = 0; w < BS_WINDOWS; w++) {
        size_t count = n < BS_WINDOW ? n : BS_WINDOW;
        size_t at = w == BS_WINDOWS - 1 ? n - count : (n - count) / (BS_WINDOWS - 1) * (size_t)w;
        char why[256] = "";
        if (d->read(d->self, array, at, count, buf, why, sizeof(why))) {
            snprintf(r->error, sizeof(r->error), "reading %c[%zu..]: %s", names[array], at, why);
            return -1;
        }
        for (size_t i = 0; i < count; i++) {
            double e = rel_err(buf[i], want);
            r->checked++;
            if (e > r->max_rel_err)
                r->max_rel_err = e;
            if (e > BS_TOLERANCE) {
                snprintf(r->error, sizeof(r->error), "%c[%zu] = %.17g, want %.17g", names[array],
                         at + i, buf[i], want);
                return -1;
            }
        }
    }
    return 0;
}

int bs_measure(const struct bs_dev *d, size_t n, int rounds, struct bs_result *r)
{
    memset(r, 0, sizeof(*r));
    r->n = n;
    r->rounds = rounds;
    char why[256] = "";
    double dot = 0;
    if (n == 0 || rounds < 1) {
        snprintf(r->error, sizeof(r->error), "nothing to measure (%zu elements, %d rounds)", n,
                 rounds);
        return -1;
    }
    if (d->run(d->self, BS_INIT, &dot, why, sizeof(why)) < 0) {
        snprintf(r->error, sizeof(r->error), "init: %s", why);
        return -1;
    }
    for (int i = 0; i < rounds; i++)
        for (int k = 0; k < BS_NKERNELS; k++) {
            double ms = d->run(d->self, (enum bs_kernel)k, &dot, why, sizeof(why));
            if (ms < 0) {
                snprintf(r->error, sizeof(r->error), "%s: %s", bs_kernel_names[k], why);
                return -1;
            }
            if (ms > 0 && (r->best_ms[k] == 0 || ms < r->best_ms[k]))
                r->best_ms[k] = ms;
        }
    for (int k = 0; k < BS_NKERNELS; k++)
        r->gbs[k] = r->best_ms[k] > 0 ? bs_bytes((enum bs_kernel)k, n) / (r->best_ms[k] * 1e6) : 0;
    double ea, eb, ec, edot;
    bs_expected(rounds, n, &ea, &eb, &ec, &edot);
    double *buf = xcalloc(BS_WINDOW, sizeof(double));
    int rc = verify_array(d, 0, ea, n, r, buf) || verify_array(d, 1, eb, n, r, buf) ||
             verify_array(d, 2, ec, n, r, buf);
    free(buf);
    if (rc)
        return -1;
    /* a sum of n terms in some order: n ulps of slack */
    double de = rel_err(dot, edot);
    if (de > r->max_rel_err)
        r->max_rel_err = de;
    if (de > BS_TOLERANCE + 1e-15 * (double)n) {
        snprintf(r->error, sizeof(r->error), "dot = %.17g, want %.17g", dot, edot);
        return -1;
    }
    return 0;
}

/* ---- the CPU reference ------------------------------------------------------ */

struct cpu {
    double *a, *b, *c;
    size_t n;
    int fault;
    struct bs_dev dev;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_run(void *self, enum bs_kernel k, double *dot, char *why, size_t whylen)
{
    struct cpu *c = self;
    double t0 = now_ms(), s = 0;
    /* the fault: one element off, the way a flaky bit would show */
    double off = (int)k == c->fault ? 1.0 : 0.0;
    (void)why;
    (void)whylen;
    switch (k) {
    case BS_INIT:
        for (size_t i = 0; i < c->n; i++) {
            c->a[i] = BS_START_A;
            c->b[i] = BS_START_B;
            c->c[i] = BS_START_C;
        }
        break;
    case BS_COPY:
        for (size_t i = 0; i < c->n; i++)
            c->c[i] = c->a[i];
        c->c[c->n - 1] += off;
        break;
    case BS_MUL:
        for (size_t i = 0; i < c->n; i++)
            c->b[i] = BS_SCALAR * c->c[i];
        c->b[c->n - 1] += off;
        break;
    case BS_ADD:
        for (size_t i = 0; i < c->n; i++)
            c->c[i] = c->a[i] + c->b[i];
        c->c[c->n - 1] += off;
        break;
    case BS_TRIAD:
        for (size_t i = 0; i < c->n; i++)
            c->a[i] = c->b[i] + BS_SCALAR * c->c[i];
        c->a[c->n - 1] += off;
        break;
    case BS_DOT:
        for (size_t i = 0; i < c->n; i++)
            s += c->a[i] * c->b[i];
        *dot = s + off;
        break;
    }
    double ms = now_ms() - t0;
    return ms > 0 ? ms : 1e-6;
}

static int cpu_read(void *self, int array, size_t at, size_t count, double *out, char *why,
                    size_t whylen)
{
    struct cpu *c = self;
    double *src = array == 0 ? c->a : array == 1 ? c->b : c->c;
    if (at > c->n || count > c->n - at) {
        snprintf(why, whylen, "[%zu, +%zu) outside %zu elements", at, count, c->n);
        return -1;
    }
    memcpy(out, src + at, count * sizeof(double));
    return 0;
}

struct bs_dev *bs_cpu_dev(size_t n, int fault)
{
    if (n == 0 || n > ((size_t)1 << 40) / sizeof(double))
        return NULL;
    struct cpu *c = xcalloc(1, sizeof(*c));
    c->a = malloc(n * sizeof(double));
    c->b = malloc(n * sizeof(double));
    c->c = malloc(n * sizeof(double));
    if (!c->a || !c->b || !c->c) {
        free(c->a);
        free(c->b);
        free(c->c);
        free(c);
        return NULL;
    }
    c->n = n;
    c->fault = fault;
    c->dev.run = cpu_run;
    c->dev.read = cpu_read;
    c->dev.self = c;
    return &c->dev;
}

void bs_cpu_dev_free(struct bs_dev *d)
{
    if (!d)
        return;
    struct cpu *c = d->self;
    free(c->a);
    free(c->b);
    free(c->c);
    free(c);
}
