/* fleet.h - the `fleet` command: many JSON reports (one per node, schema
 * rocm-vla-doctor/1, read with diff's report reader) in one table.
 *
 * What gates (exit 1), exactly:
 *   - a node with a check whose status is fail, error or timeout;
 *   - a figure outlier: a node whose figure (fleet_figures[] below) is worse
 *     than the median of the nodes that measured it by more than the
 *     figure's threshold, in the figure's bad direction (a lower bandwidth
 *     or GEMM rate, a higher latency); at least two nodes must have it;
 *   - a version mismatch: a node whose driver, ROCm, kernel or VBIOS
 *     version is known and differs from the value most nodes have; when
 *     two or more values tie for most, every node that knows the version
 *     is marked (the fleet is split, none is the majority). VBIOS images
 *     are per board model, so VBIOS is compared only among the GPUs of one
 *     model (gpu.<i>.device_id): a fleet of MI300X and MI250X nodes has a
 *     VBIOS majority per model, and differing across models is no mismatch.
 * A report whose probes ran once per GPU (figure F as gpu.<j>.R, R being F
 * without a leading "gpu.") contributes its worst GPU's value.
 * A figure or version a node does not know is shown as unknown and is
 * never an outlier. Reports that cannot be read are exit 2 before anything
 * is compared. */
#ifndef RVD_FLEET_H
#define RVD_FLEET_H

#include <stddef.h>
#include <stdio.h>

#include "../core/util.h"
#include "../diff/diff.h"

#define FLEET_SCHEMA_OUT "rocm-vla-doctor-fleet/1"

/* a figure that matters, compared with the fleet's median */
struct fleet_figure {
    const char *fact;  /* fact name in the reports */
    const char *label; /* column header */
    const char *unit;  /* for the text */
    int direction;     /* +1 higher is better, -1 lower is better */
    double threshold_pct;
};
extern const struct fleet_figure fleet_figures[];
extern const size_t fleet_nfigures;

/* a version compared with the majority */
struct fleet_version {
    const char *key;  /* JSON key and column header */
    const char *fact; /* fact name; "gpu.<i>.vbios": every GPU's, joined */
    /* NULL, or a per-GPU fact ("gpu.<i>.device_id") naming the model the
     * version is compared within (a missing one is its own model, "?") */
    const char *group;
};
extern const struct fleet_version fleet_versions[];
extern const size_t fleet_nversions;

#define FLEET_MAX_FIGURES 16
#define FLEET_MAX_VERSIONS 8

struct fleet_node {
    struct diff_doc doc;
    char *name;                 /* host.hostname, else the file's name */
    int failed;                 /* a check fail/error/timeout */
    size_t nfailed;             /* how many */
    int has[FLEET_MAX_FIGURES]; /* the figure is known */
    double fig[FLEET_MAX_FIGURES];
    double dev_pct[FLEET_MAX_FIGURES]; /* signed distance from the median */
    int outlier[FLEET_MAX_FIGURES];
    char *ver[FLEET_MAX_VERSIONS]; /* NULL when unknown */
    int mismatch[FLEET_MAX_VERSIONS];
};

/* one model's share of a grouped version (fleet_version.group) */
struct fleet_vgroup {
    char *model;          /* the group fact's value, "?" when unknown */
    char **val;           /* per node: its GPUs' values of this model joined, or NULL */
    int *mismatch;        /* per node */
    const char *majority; /* NULL: split (or no node knows it) */
};

struct fleet {
    struct fleet_node *nodes;
    size_t n;
    double threshold[FLEET_MAX_FIGURES]; /* after --threshold */
    int has_median[FLEET_MAX_FIGURES];
    double median[FLEET_MAX_FIGURES];
    const char *majority[FLEET_MAX_VERSIONS];        /* NULL: none (unknown or split) */
    struct strlist differing;                        /* check ids whose status differs */
    struct fleet_vgroup *vgroup[FLEET_MAX_VERSIONS]; /* per grouped version: per model */
    size_t nvgroup[FLEET_MAX_VERSIONS];
    size_t nfailing, noutliers, nmismatches;
};

/* the reports named by args (files, or directories whose *.json files are
 * read in name order); 0, or -1 after a message naming the file (exit 2) */
int fleet_load(struct fleet *f, char **args, int nargs);
/* --tolerance FACT=PCT|off (diff's parser: a fnmatch(3) glob on the
 * figures' fact names; the last match wins; off: shown, never marked) */
struct fleet_opts {
    struct diff_opts tol;
};
/* compare; returns the number of reasons to gate (see above) */
size_t fleet_compare(struct fleet *f, const struct fleet_opts *o);
void fleet_release(struct fleet *f);
/* a node's status of a check id, "-" when the report lacks it */
const char *fleet_check_status(const struct fleet_node *n, const char *id);

/* the command; argv[0] is "fleet". 0 all well, 1 see above, 2 bad input */
int fleet_cmd(int argc, char **argv);
struct cmd_spec;
extern const struct cmd_spec fleet_spec; /* its option table */

#endif
