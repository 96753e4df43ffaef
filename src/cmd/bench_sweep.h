/* bench_sweep.h - `bench --sweep`: the VLA pass over a grid of denoising
 * steps, action chunk, image size, dtype and batch; per configuration the
 * stage percentiles, control rate, memory, numerics drift from the preset's
 * own configuration and a budget mark from checks.yaml's vla.latency.*
 * checks (docs/VLA.md, "bench --sweep"). */
#ifndef RVD_VLA_BENCH_SWEEP_H
#define RVD_VLA_BENCH_SWEEP_H

#include <stdint.h>

#include "../core/outfile.h"
#include "../core/util.h"
#include "../vla/preset.h"

struct vla_sweep_opts {
    const char *backend;        /* auto, cpu, cuda, hip */
    const char *models;         /* --models DIR (the tiny fallback is looked up there too) */
    const char *checks;         /* --checks FILE, or NULL: the built-in checks.yaml */
    const struct strlist *grid; /* "key=v1,v2" entries (--grid) */
    int full;                   /* --sweep=full: the whole cartesian grid */
    int runs;
    uint64_t seed;
    struct outfile *out; /* --json, already open (f NULL: none); "-" is stdout */
    int json_stdout;
    struct outfile *html; /* --html, already open (f NULL: none): the page of
                           * src/report/report_sweep.c, drawn from the JSON */
};

/* exit code: 0 done, 1 a configuration had a NaN/Inf, 2 usage (bad grid
 * value, checks file), 3 internal */
int vla_sweep(const struct vla_sweep_opts *o, const struct vla_preset *p);

#endif
