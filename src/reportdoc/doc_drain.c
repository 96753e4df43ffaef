/* doc_drain.c - what to take out of service across many nodes' reports
 * (issue 34): each check that failed (fail, error, timeout) on each node,
 * per GPU where the check was judged per GPU, so that an admin drains GPU 3
 * of a node rather than the node, and the node where a host check failed.
 * `fleet` prints it (text, JSON) and its page draws it; duplicate host
 * names, which make two reports look like one node, are found here too. */
#include "doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

static int drain_status(const char *st)
{
    return st && (!strcmp(st, "fail") || !strcmp(st, "error") || !strcmp(st, "timeout"));
}

static void drain_add(struct doc_drain **v, size_t *n, struct doc_drain d)
{
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    (*v)[(*n)++] = d;
}

size_t doc_drain_list(const struct diff_doc *const *docs, size_t n, struct doc_drain **out)
{
    struct doc_drain *v = NULL;
    size_t len = 0;
    struct doc_gpu *g = xcalloc(DOC_GPUS_MAX, sizeof(*g));
    for (size_t i = 0; i < n; i++) {
        const struct json *checks = docs[i]->checks;
        for (size_t c = 0; checks && c < checks->n; c++) {
            const struct json *ck = checks->items[c];
            const char *st = doc_member(ck, "status"), *id = doc_member(ck, "id");
            if (!drain_status(st))
                continue;
            size_t ng = doc_check_gpus(ck, g, DOC_GPUS_MAX), named = 0;
            for (size_t k = 0; k < ng; k++)
                if (drain_status(g[k].status)) {
                    drain_add(
                        &v, &len,
                        (struct doc_drain){i, g[k].gpu, g[k].pci, id, g[k].status, g[k].summary});
                    named++;
                }
            if (!named) /* a host check, or a report without per-GPU verdicts */
                drain_add(&v, &len,
                          (struct doc_drain){i, -1, NULL, id, st, doc_member(ck, "summary")});
        }
    }
    free(g);
    *out = v;
    return len;
}

const char *doc_node_name(const struct diff_doc *d)
{
    const char *h = doc_str(d, "host.hostname");
    return h && *h ? h : d->name;
}

size_t doc_same_gpus(const struct diff_doc *const *docs, size_t n, struct doc_dup **out)
{
    /* one hash set of every serial seen: linear in the GPUs of the fleet */
    struct strset seen = STRSET_INIT;
    struct doc_dup *v = NULL;
    size_t len = 0;
    char name[32];
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < DOC_GPUS_MAX; k++) {
            snprintf(name, sizeof(name), "gpu.%d.serial", k);
            if (!doc_fact(docs[i], name)) /* GPUs count from 0: the last one */
                break;
            const char *s = doc_str(docs[i], name);
            size_t first;
            if (!s || !*s) /* unknown: no GPU is told by it */
                continue;
            if (!strset_get(&seen, s, &first)) {
                strset_add(&seen, s, i);
            } else if (first != i) {
                /* one pair of reports once, with its first shared serial
                 * (this report's pairs are the last ones added) */
                size_t e = len;
                while (e > 0 && v[e - 1].later == i && v[e - 1].first != first)
                    e--;
                if (e > 0 && v[e - 1].later == i)
                    continue;
                v = xrealloc(v, (len + 1) * sizeof(*v));
                v[len++] = (struct doc_dup){first, i, s};
            }
        }
    strset_release(&seen);
    *out = v;
    return len;
}

size_t doc_same_hosts(const struct diff_doc *const *docs, size_t n, struct doc_dup **out)
{
    struct strset seen = STRSET_INIT;
    struct doc_dup *v = NULL;
    size_t len = 0, first;
    for (size_t i = 0; i < n; i++) {
        const char *h = doc_str(docs[i], "host.hostname");
        if (!h || !*h)
            continue;
        if (!strset_get(&seen, h, &first)) {
            strset_add(&seen, h, i);
        } else {
            v = xrealloc(v, (len + 1) * sizeof(*v));
            v[len++] = (struct doc_dup){first, i, h};
        }
    }
    strset_release(&seen);
    *out = v;
    return len;
}
