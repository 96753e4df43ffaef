/* report_prom.h - the report in the Prometheus text exposition format
 * (version 0.0.4), for node_exporter's textfile collector. The metrics are
 * described in rocm-vla-doctor(1), PROMETHEUS METRICS. */
#ifndef RVD_REPORT_PROM_H
#define RVD_REPORT_PROM_H

#include <stdio.h>

#include "report.h"

/* One row of the fact -> metric table. `fact` is a fact name, or a per-GPU
 * pattern "gpu.<i>.NAME" whose samples get the labels gpu="<i>" and, when
 * gpu.<i>.pci is known, pci="<address>". `labels` are constant labels of
 * the row (`k="v",...`, or NULL) that tell the rows of one family apart.
 * The value written is the fact's (int or float) times `scale`, which turns
 * the fact's unit into the base unit the metric name says. A row F other
 * than gpu.<i>.X also maps gpu.<j>.R (R: F without a leading "gpu."), the
 * name a probe run once per GPU gives the same figure, with the labels gpu
 * and pci. Rows of one
 * metric must share `help` (a unit test checks). `pending`: the fact is
 * not produced by any probe yet (the row maps it once one does). */
struct prom_map {
    const char *fact;
    const char *metric;
    const char *labels;
    double scale;
    const char *help;
    int pending;
};

extern const struct prom_map prom_map[];
extern const size_t prom_map_count;

/* a per-GPU info metric: string facts gpu.<i>.<fact> as labels of a series
 * whose value is 1 (Prometheus' *_info convention) */
#define PROM_INFO_LABELS 4
struct prom_info {
    const char *metric, *help;
    struct {
        const char *name, *fact;
    } label[PROM_INFO_LABELS];
};

/* check status -> the value of rocm_vla_doctor_check_status */
int prom_status_code(enum status st);

/* a label value between double quotes: \ " and newline escaped, invalid
 * UTF-8 replaced by U+FFFD (the format is UTF-8), other controls and the
 * bidi characters written visibly as the text \x1b, \u202e (escape.h) */
void prom_write_label_value(FILE *out, const char *s);
/* HELP text: the same rule, quotes left as they are */
void prom_write_help(FILE *out, const char *s);

/* 0, or -1 on a write error (the caller discards the file) */
int report_prom_write(FILE *out, const struct report_meta *m, const struct factset *fs,
                      const struct results *r);

#endif
