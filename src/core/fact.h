/* fact.h - typed facts with provenance and an explicit unknown.
 *
 * A fact is what a probe observed: a value of one type, or *unknown* with the
 * reason it could not be observed (never 0). Each fact names its source (the
 * file or API it came from). Checks, reports, diff and the dashboard read
 * facts only. Names are dotted and lowercase; per-GPU facts are
 * "gpu.<index>.<name>" and per-GPU checks refer to them as "gpu.<name>". */
#ifndef RVD_FACT_H
#define RVD_FACT_H

#include <stdint.h>

#include "util.h"

enum fact_type { FACT_UNKNOWN, FACT_BOOL, FACT_INT, FACT_FLOAT, FACT_STR, FACT_LIST };
/* "bool", "int", "float", "string", "list" ("unknown" for FACT_UNKNOWN) */
const char *fact_type_name(enum fact_type t);

struct fact {
    char *name;
    enum fact_type type;
    int b;
    int64_t i;
    double f;
    char *s;
    struct strlist list;
    char *source; /* file path or API, for evidence */
    char *reason; /* why unknown */
};

/* An array of pointers, so that a fact found with fact_get() stays valid
 * while probes add more facts (a realloc of the array moves no fact).
 * idx: a hash index of the names (fact.c), so that fact_get() - called for
 * every fact set and every name a rule reads - costs the same with 10
 * facts or 10,000 (many GPUs, issue 18); owned by the set, NULL until the
 * first fact. Only fact.c's functions may add, move or reorder facts. */
struct fact_index;
struct factset {
    struct fact **v;
    size_t n, cap;
    struct fact_index *idx;
};
#define FACTSET_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0, NULL                                                                           \
    }

const struct fact *fact_get(const struct factset *fs, const char *name);
/* the string value of a known string fact, else NULL */
const char *fact_str(const struct factset *fs, const char *name);
/* The setters replace an existing fact of the same name. `source` may be NULL. */
void fact_set_bool(struct factset *fs, const char *name, int v, const char *source);
void fact_set_int(struct factset *fs, const char *name, int64_t v, const char *source);
void fact_set_float(struct factset *fs, const char *name, double v, const char *source);
void fact_set_str(struct factset *fs, const char *name, const char *v, const char *source);
/* A list fact holds at most FACT_LIST_MAX items: beyond them, one last
 * item "... and N more" stands for the rest, so that a kernel log naming
 * 195k firmware files makes a fact of a few KB, not 5 MB (issue 18), in
 * every writer (text, JSON, the isolation pipe) at once. The marker keeps
 * the true count: fact_list_count() is what len() sees, and an item not
 * among those kept is unknown to `in`, never absent. A list that already
 * ends in a marker (one read back from a report or the pipe) keeps it. */
#define FACT_LIST_MAX 256
#define FACT_LIST_MORE_FMT "... and %zu more"
void fact_set_list(struct factset *fs, const char *name, const struct strlist *v,
                   const char *source);
/* the items a list fact stands for (kept + the marker's N) and how many of
 * its items are real (the marker excluded); 0 for other types */
size_t fact_list_count(const struct fact *f);
size_t fact_list_kept(const struct fact *f);
void fact_set_unknown(struct factset *fs, const char *name, const char *source,
                      const char *reason_fmt, ...) __attribute__((format(printf, 4, 5)));
/* an unknown from a -errno: "cannot read <source>: <strerror>" */
void fact_set_errno(struct factset *fs, const char *name, const char *source, int neg_errno);
/* a copy of f (value, source, reason) under another name */
void fact_copy_as(struct factset *fs, const struct fact *f, const char *name);
/* move the facts [from, n) of fs to the end of out (fs keeps [0, from)) */
void factset_take_tail(struct factset *fs, size_t from, struct factset *out);
void factset_release(struct factset *fs);
/* sort by name (reports print facts sorted) */
void factset_sort(struct factset *fs);
/* value as text for summaries and the text report; caller frees */
char *fact_to_text(const struct fact *f);

/* build a per-GPU name: "gpu.<i>.<rest>" into a static-size buffer */
#define FACT_NAME_MAX 160
const char *fact_gpu_name(char buf[FACT_NAME_MAX], int gpu, const char *rest);

#endif
