/* strset.h - a hash set of strings (open addressing, linear probing,
 * FNV-1a), each key with a size_t value, for deduplicating and joining
 * lists whose length comes from the input: a linear search per item makes
 * a list of n items cost n^2 comparisons, minutes well inside the size
 * caps (issue 18). The set borrows its keys: they must outlive it (keep
 * them in the strlist being deduplicated, or in the parsed document).
 *
 * strset_work counts the work done (slots probed and strings compared,
 * here and in strlist_has/strlist_sort) per thread, always on: two adds
 * per lookup. The growth tests read it to tell n log n from n^2 without
 * timing anything. */
#ifndef RVD_STRSET_H
#define RVD_STRSET_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct strset_slot {
    const char *key; /* NULL: empty */
    uint64_t hash;
    size_t val;
};

struct strset {
    struct strset_slot *slots;
    size_t n, cap; /* cap: 0 or a power of two; n <= 0.7 cap */
};
#define STRSET_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

extern _Thread_local uint64_t strset_work;

/* 1 when key was added with val, 0 when it was there (its value kept) */
int strset_add(struct strset *s, const char *key, size_t val);
/* 1 and *val (when val is not NULL) when key is present, else 0 */
int strset_get(const struct strset *s, const char *key, size_t *val);
void strset_release(struct strset *s);
/* add every string of l (value: its index), e.g. a list about to grow */
void strset_add_list(struct strset *s, const struct strlist *l);

/* append a copy of str to l unless seen holds it already (seen then
 * borrows l's copy); 1 when added. The dedupe of a list in insertion order. */
int strlist_add_unique(struct strlist *l, struct strset *seen, const char *str);
/* the same for a string the caller allocated: taken, or freed */
int strlist_add_unique_owned(struct strlist *l, struct strset *seen, char *str);

#endif
