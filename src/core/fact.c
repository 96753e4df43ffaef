/* fact.c - the fact store, with a hash index of the names: a run has a few
 * hundred facts, but a sysroot with many GPUs has thousands, and a linear
 * fact_get() per fact set made the probes quadratic (issue 18). */
#include "fact.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strset.h"

const char *fact_type_name(enum fact_type t)
{
    static const char *const names[] = {"unknown", "bool", "int", "float", "string", "list"};
    return (unsigned)t < ARRAY_SIZE(names) ? names[t] : "?";
}

/* names of v[0, k) -> their index (the first of equal names, as a search
 * from the front finds). Facts are only appended between the calls that
 * reorder or remove them (sort, take_tail), which empty the index;
 * fact_get() indexes what was appended since, so the keys (the facts'
 * names, which live as long as the facts) are always those of v[0, k). */
struct fact_index {
    struct strset names;
    size_t k;
};

static void index_reset(struct factset *fs)
{
    if (!fs->idx)
        return;
    strset_release(&fs->idx->names);
    fs->idx->k = 0;
}

const struct fact *fact_get(const struct factset *fs, const char *name)
{
    struct fact_index *x = fs->idx;
    if (!x) { /* no fact added through fact.c: a set built by hand */
        for (size_t i = 0; i < fs->n; i++)
            if (strcmp(fs->v[i]->name, name) == 0)
                return fs->v[i];
        return NULL;
    }
    if (x->k > fs->n) { /* shrunk outside fact.c: index it all again */
        strset_release(&x->names);
        x->k = 0;
    }
    for (; x->k < fs->n; x->k++)
        strset_add(&x->names, fs->v[x->k]->name, x->k);
    size_t i;
    return strset_get(&x->names, name, &i) ? fs->v[i] : NULL;
}

const char *fact_str(const struct factset *fs, const char *name)
{
    const struct fact *f = fact_get(fs, name);
    return f && f->type == FACT_STR ? f->s : NULL;
}

/* room for one more fact, and the index that fact_get() keeps up to date */
static void factset_grow(struct factset *fs)
{
    if (!fs->idx)
        fs->idx = xcalloc(1, sizeof(*fs->idx));
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? fs->cap * 2 : 64;
        fs->v = xrealloc(fs->v, fs->cap * sizeof(*fs->v));
    }
}

static void fact_clear(struct fact *f)
{
    free(f->s);
    strlist_release(&f->list);
    free(f->source);
    free(f->reason);
    f->s = f->source = f->reason = NULL;
    f->b = 0;
    f->i = 0;
    f->f = 0;
}

static struct fact *fact_slot(struct factset *fs, const char *name, enum fact_type t,
                              const char *source)
{
    struct fact *f = (struct fact *)fact_get(fs, name);
    if (f) {
        fact_clear(f);
    } else {
        factset_grow(fs);
        f = xcalloc(1, sizeof(*f));
        fs->v[fs->n++] = f;
        f->name = xstrdup(name);
    }
    f->type = t;
    f->source = source ? xstrdup(source) : NULL;
    return f;
}

void fact_set_bool(struct factset *fs, const char *name, int v, const char *source)
{
    fact_slot(fs, name, FACT_BOOL, source)->b = !!v;
}

void fact_set_int(struct factset *fs, const char *name, int64_t v, const char *source)
{
    fact_slot(fs, name, FACT_INT, source)->i = v;
}

void fact_set_float(struct factset *fs, const char *name, double v, const char *source)
{
    fact_slot(fs, name, FACT_FLOAT, source)->f = v;
}

void fact_set_str(struct factset *fs, const char *name, const char *v, const char *source)
{
    fact_slot(fs, name, FACT_STR, source)->s = xstrdup(v ? v : "");
}

/* N of a marker item "... and N more", else 0 */
static size_t fact_list_more(const char *item)
{
    size_t n;
    int used = -1;
    if (sscanf(item, "... and %zu more%n", &n, &used) != 1 || used < 0 || item[used] || !n)
        return 0;
    char canon[64]; /* exactly the marker's own spelling, no "+5" or "05" */
    snprintf(canon, sizeof(canon), FACT_LIST_MORE_FMT, n);
    return strcmp(canon, item) == 0 ? n : 0;
}

void fact_set_list(struct factset *fs, const char *name, const struct strlist *v,
                   const char *source)
{
    struct fact *f = fact_slot(fs, name, FACT_LIST, source);
    size_t n = v ? v->n : 0, more = n ? fact_list_more(v->v[n - 1]) : 0;
    if (more) /* capped before: its marker counts the rest */
        n--;
    for (size_t i = 0; i < n && i < FACT_LIST_MAX; i++)
        strlist_add(&f->list, v->v[i]);
    if (n > FACT_LIST_MAX || more)
        strlist_add_owned(&f->list, xasprintf(FACT_LIST_MORE_FMT,
                                              more + (n > FACT_LIST_MAX ? n - FACT_LIST_MAX : 0)));
}

size_t fact_list_kept(const struct fact *f)
{
    if (f->type != FACT_LIST || !f->list.n)
        return 0;
    return f->list.n - (fact_list_more(f->list.v[f->list.n - 1]) ? 1 : 0);
}

size_t fact_list_count(const struct fact *f)
{
    if (f->type != FACT_LIST || !f->list.n)
        return 0;
    return fact_list_kept(f) + fact_list_more(f->list.v[f->list.n - 1]);
}

void fact_set_unknown(struct factset *fs, const char *name, const char *source,
                      const char *reason_fmt, ...)
{
    struct fact *f = fact_slot(fs, name, FACT_UNKNOWN, source);
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, reason_fmt);
    strbuf_vaddf(&sb, reason_fmt, ap);
    va_end(ap);
    f->reason = strbuf_detach(&sb);
}

void fact_set_errno(struct factset *fs, const char *name, const char *source, int neg_errno)
{
    int e = neg_errno < 0 ? -neg_errno : neg_errno;
    if (e == EINVAL || e == EILSEQ)
        fact_set_unknown(fs, name, source, "%s: unexpected content", source ? source : name);
    else if (e == ENOENT)
        fact_set_unknown(fs, name, source, "%s: not present", source ? source : name);
    else
        fact_set_unknown(fs, name, source, "%s: %s", source ? source : name, strerror(e));
}

void fact_copy_as(struct factset *fs, const struct fact *f, const char *name)
{
    struct fact *d = fact_slot(fs, name, f->type, f->source);
    d->b = f->b;
    d->i = f->i;
    d->f = f->f;
    d->s = f->s ? xstrdup(f->s) : NULL;
    d->reason = f->reason ? xstrdup(f->reason) : NULL;
    for (size_t i = 0; i < f->list.n; i++)
        strlist_add(&d->list, f->list.v[i]);
}

void factset_take_tail(struct factset *fs, size_t from, struct factset *out)
{
    for (size_t i = from; i < fs->n; i++) {
        factset_grow(out);
        out->v[out->n++] = fs->v[i];
    }
    if (from < fs->n) {
        fs->n = from;
        index_reset(fs); /* it may name the facts that moved */
    }
}

void factset_release(struct factset *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        fact_clear(fs->v[i]);
        free(fs->v[i]->name);
        free(fs->v[i]);
    }
    free(fs->v);
    fs->v = NULL;
    fs->n = fs->cap = 0;
    index_reset(fs);
    free(fs->idx);
    fs->idx = NULL;
}

static int cmp_fact(const void *a, const void *b)
{
    return strcmp((*(struct fact *const *)a)->name, (*(struct fact *const *)b)->name);
}

void factset_sort(struct factset *fs)
{
    if (fs->n > 1) {
        qsort(fs->v, fs->n, sizeof(*fs->v), cmp_fact);
        index_reset(fs); /* indexes of the old order */
    }
}

char *fact_to_text(const struct fact *f)
{
    struct strbuf sb = STRBUF_INIT;
    switch (f->type) {
    case FACT_UNKNOWN:
        strbuf_adds(&sb, "unknown");
        break;
    case FACT_BOOL:
        strbuf_adds(&sb, f->b ? "yes" : "no");
        break;
    case FACT_INT:
        strbuf_addf(&sb, "%lld", (long long)f->i);
        break;
    case FACT_FLOAT:
        strbuf_addf(&sb, "%.4g", f->f);
        break;
    case FACT_STR:
        strbuf_adds(&sb, f->s);
        break;
    case FACT_LIST:
        for (size_t i = 0; i < f->list.n; i++)
            strbuf_addf(&sb, "%s%s", i ? ", " : "", f->list.v[i]);
        if (!f->list.n)
            strbuf_adds(&sb, "(none)");
        break;
    }
    return strbuf_detach(&sb);
}

const char *fact_gpu_name(char buf[FACT_NAME_MAX], int gpu, const char *rest)
{
    snprintf(buf, FACT_NAME_MAX, "gpu.%d.%s", gpu, rest);
    return buf;
}
