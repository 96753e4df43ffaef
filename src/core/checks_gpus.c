/* checks_gpus.c - the words of a per-GPU result over all its GPUs: which
 * GPUs did not pass, by status, as compact ranges ("GPUs 4-7"), so that an
 * admin reading one line knows every GPU to drain, not only the worst
 * (issue 34). checks_run.c judges; this only writes. */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void gpu_list_compact(const int *v, size_t n, char *buf, size_t size)
{
    size_t len = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < n && len + 1 < size;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        int w;
        if (j == i)
            w = snprintf(buf + len, size - len, "%s%d", i ? ", " : "", v[i]);
        else if (j == i + 1) /* two in a row read better as a list */
            w = snprintf(buf + len, size - len, "%s%d, %d", i ? ", " : "", v[i], v[j]);
        else
            w = snprintf(buf + len, size - len, "%s%d-%d", i ? ", " : "", v[i], v[j]);
        if (w < 0)
            break;
        len += (size_t)w < size - len ? (size_t)w : size - len - 1;
        i = j + 1;
    }
}

/* the statuses named, worst first, with their verb for one GPU and several */
static const struct {
    enum status st;
    const char *one, *many;
} gpu_verbs[] = {
    {ST_FAIL, "fails", "fail"},
    {ST_ERROR, "errs", "err"},
    {ST_TIMEOUT, "times out", "time out"},
    {ST_WARN, "warns", "warn"},
    {ST_SKIP, "not judged", "not judged"},
};

char *gpu_results_summary(const struct gpu_verdict *v, size_t n, const struct gpu_verdict *worst)
{
    const char *s = worst && worst->summary ? worst->summary : "";
    size_t pass = 0, skip = 0;
    for (size_t i = 0; i < n; i++) {
        pass += v[i].st == ST_PASS;
        skip += v[i].st == ST_SKIP;
    }
    if (pass == n)
        return xasprintf("all %zu GPUs: %s", n, s);
    if (skip == n) /* no GPU was judged: never "(0 of 8 GPUs pass)" */
        return xasprintf("not judged on %zu GPUs: %s", n, s);
    if (pass + 1 == n) /* one GPU: its own words say it all */
        return xasprintf("GPU %d: %s (%zu of %zu GPUs pass)", worst->gpu, s, pass, n);
    struct strbuf b = STRBUF_INIT;
    int *ids = xcalloc(n, sizeof(*ids));
    char list[256];
    for (size_t k = 0; k < ARRAY_SIZE(gpu_verbs); k++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (v[i].st == gpu_verbs[k].st)
                ids[m++] = v[i].gpu;
        if (!m)
            continue;
        gpu_list_compact(ids, m, list, sizeof(list));
        strbuf_addf(&b, "%s%s %s %s", b.len ? ", " : "", m == 1 ? "GPU" : "GPUs", list,
                    m == 1 ? gpu_verbs[k].one : gpu_verbs[k].many);
    }
    free(ids);
    strbuf_addf(&b, "; GPU %d: %s (%zu of %zu GPUs pass)", worst->gpu, s, pass, n);
    return strbuf_detach(&b);
}
