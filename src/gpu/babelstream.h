/* babelstream.h - device memory bandwidth the way BabelStream measures it
 * (copy c = a, mul b = s*c, add c = a + b, triad a = b + s*c, dot a . b over
 * three arrays of doubles, each kernel timed every round, the best round
 * reported), with BabelStream's start values (a 0.1, b 0.2, c 0.0, s 0.4)
 * and its check: after the rounds every element must equal the value the
 * same sequence gives on scalars, and the dot product N * a * b.
 *
 * The engine is independent of where the kernels run: a `struct bs_dev`
 * runs one kernel and reads elements back. probes/probe_mem_bandwidth.c
 * provides one over a GPU backend (kernels/babelstream.hip); bs_cpu_dev() is
 * the CPU reference, used by the tests (odd sizes, a wrong kernel caught). */
#ifndef RVD_BABELSTREAM_H
#define RVD_BABELSTREAM_H

#include <stddef.h>

enum bs_kernel { BS_COPY, BS_MUL, BS_ADD, BS_TRIAD, BS_DOT, BS_NKERNELS, BS_INIT = BS_NKERNELS };

#define BS_START_A 0.1
#define BS_START_B 0.2
#define BS_START_C 0.0
#define BS_SCALAR 0.4

extern const char *const bs_kernel_names[BS_NKERNELS]; /* "copy", "mul", ... */

/* bytes a kernel moves over n doubles: copy and mul 2 x 8 n, add and triad
 * 3 x 8 n, dot 2 x 8 n (BabelStream's accounting) */
double bs_bytes(enum bs_kernel k, size_t n);

struct bs_dev {
    /* run kernel k (or BS_INIT) once over the arrays; the time in ms, or < 0
     * with the reason in why; BS_DOT also stores the product in *dot */
    double (*run)(void *self, enum bs_kernel k, double *dot, char *why, size_t whylen);
    /* elements [at, at + count) of array 0 (a), 1 (b) or 2 (c) into out */
    int (*read)(void *self, int array, size_t at, size_t count, double *out, char *why,
                size_t whylen);
    void *self;
};

struct bs_result {
    size_t n; /* elements per array */
    int rounds;
    double best_ms[BS_NKERNELS];
    double gbs[BS_NKERNELS]; /* bytes / best time */
    double max_rel_err;      /* over the elements read back and the dot product */
    size_t checked;          /* elements compared */
    char error[512];         /* "" when every kernel ran and every value is right */
};

/* the expected a, b, c and dot product after `rounds` rounds */
void bs_expected(int rounds, size_t n, double *a, double *b, double *c, double *dot);
/* init, then `rounds` rounds of the five kernels; verify 8 spread windows
 * of each array (first and last elements included) and the last dot
 * product. 0, or -1 when a kernel failed or a value is wrong (r->error). */
int bs_measure(const struct bs_dev *d, size_t n, int rounds, struct bs_result *r);

/* the CPU reference device over n doubles (plain loops, clock_gettime); NULL
 * when the arrays cannot be allocated. `fault`: -1 none, else the kernel
 * that computes a wrong value (for the tests of the check itself). */
struct bs_dev *bs_cpu_dev(size_t n, int fault);
void bs_cpu_dev_free(struct bs_dev *d);

#endif
