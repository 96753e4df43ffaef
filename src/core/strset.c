/* strset.c - the string hash set (see strset.h). */
#include "strset.h"

#include <stdlib.h>
#include <string.h>

_Thread_local uint64_t strset_work;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* the slot holding key, or the empty slot where it belongs */
static struct strset_slot *find(const struct strset *s, const char *key, uint64_t h)
{
    size_t mask = s->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        struct strset_slot *sl = &s->slots[i];
        strset_work++;
        if (!sl->key)
            return sl;
        if (sl->hash == h && strcmp(sl->key, key) == 0)
            return sl;
    }
}

static void grow(struct strset *s)
{
    struct strset old = *s;
    s->cap = old.cap ? old.cap * 2 : 16;
    s->slots = xcalloc(s->cap, sizeof(*s->slots));
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].key)
            *find(s, old.slots[i].key, old.slots[i].hash) = old.slots[i];
    free(old.slots);
}

int strset_add(struct strset *s, const char *key, size_t val)
{
    /* grow at 0.7 load: linear probing stays a few probes per lookup */
    if ((s->n + 1) * 10 > s->cap * 7)
        grow(s);
    uint64_t h = fnv1a(key);
    struct strset_slot *sl = find(s, key, h);
    if (sl->key)
        return 0;
    *sl = (struct strset_slot){key, h, val};
    s->n++;
    return 1;
}

int strset_get(const struct strset *s, const char *key, size_t *val)
{
    if (!s->n)
        return 0;
    struct strset_slot *sl = find(s, key, fnv1a(key));
    if (!sl->key)
        return 0;
    if (val)
        *val = sl->val;
    return 1;
}

void strset_release(struct strset *s)
{
    free(s->slots);
    memset(s, 0, sizeof(*s));
}

void strset_add_list(struct strset *s, const struct strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        strset_add(s, l->v[i], i);
}

int strlist_add_unique_owned(struct strlist *l, struct strset *seen, char *str)
{
    if (strset_get(seen, str, NULL)) {
        free(str);
        return 0;
    }
    strlist_add_owned(l, str);
    strset_add(seen, str, l->n - 1);
    return 1;
}

int strlist_add_unique(struct strlist *l, struct strset *seen, const char *str)
{
    if (strset_get(seen, str, NULL))
        return 0;
    strlist_add(l, str);
    strset_add(seen, l->v[l->n - 1], l->n - 1);
    return 1;
}
