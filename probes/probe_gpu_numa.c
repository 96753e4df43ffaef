/* probe_gpu_numa.c - CPU-GPU NUMA affinity (issue 22): the NUMA node the
 * PCI core gives the GPU (<device>/numa_node, from the firmware's _PXM;
 * -1 when it names none), that node's CPUs
 * (/sys/devices/system/node/node<N>/cpulist) and the CPUs the process may
 * run on (sched_getaffinity, a query: /.snapshot/cpu-affinity under
 * --sysroot). A process that may not run on the GPU's node pays the socket
 * interconnect on every launch and host-device copy. cpulist format: the
 * kernel's bitmap_print_to_pagebuf ("0-3,8-11"). */
#include "gpu_pci.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_DIR "/sys/devices/system/node"
#define AFFINITY_SRC "sched_getaffinity"

int gp_cpulist_parse(const char *text, struct gp_cpus *out)
{
    memset(out, 0, sizeof(*out));
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\n' || *p == '\0')
        return 0; /* an empty list: a node without CPUs (memory only) */
    for (;;) {
        char *end;
        errno = 0;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (end == p || *p == '-' || *p == '+' || errno)
            return -EINVAL;
        p = end;
        if (*p == '-') {
            p++;
            if (*p < '0' || *p > '9')
                return -EINVAL;
            b = strtoul(p, &end, 10);
            if (errno || b < a)
                return -EINVAL;
            p = end;
        }
        if (b >= GP_CPUS_MAX)
            return -ERANGE;
        for (unsigned long c = a; c <= b; c++)
            out->bits[c / 64] |= 1ull << (c % 64);
        if (*p == ',') {
            p++;
            continue;
        }
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        return *p ? -EINVAL : 0;
    }
}

int gp_cpus_count(const struct gp_cpus *c)
{
    int n = 0;
    for (size_t i = 0; i < ARRAY_SIZE(c->bits); i++)
        n += __builtin_popcountll(c->bits[i]);
    return n;
}

int gp_cpus_common(const struct gp_cpus *a, const struct gp_cpus *b)
{
    int n = 0;
    for (size_t i = 0; i < ARRAY_SIZE(a->bits); i++)
        n += __builtin_popcountll(a->bits[i] & b->bits[i]);
    return n;
}

/* the process's CPU set as a cpulist, for the query */
static int affinity_live(struct strbuf *out)
{
    cpu_set_t *set = CPU_ALLOC(GP_CPUS_MAX);
    size_t size = CPU_ALLOC_SIZE(GP_CPUS_MAX);
    if (!set)
        return -ENOMEM;
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set)) {
        int e = -errno;
        CPU_FREE(set);
        return e;
    }
    int first = 1;
    for (int c = 0; c < GP_CPUS_MAX; c++) {
        if (!CPU_ISSET_S((size_t)c, size, set))
            continue;
        int e = c;
        while (e + 1 < GP_CPUS_MAX && CPU_ISSET_S((size_t)(e + 1), size, set))
            e++;
        strbuf_addf(out, e > c ? "%s%d-%d" : "%s%d", first ? "" : ",", c, e);
        first = 0;
        c = e;
    }
    strbuf_adds(out, "\n");
    CPU_FREE(set);
    return 0;
}

/* node<N> directories of NODE_DIR: their count, or a negative errno */
static int node_count(void)
{
    struct strlist ents = STRLIST_INIT;
    int rc = rootfs_list(NODE_DIR, &ents);
    if (rc)
        return rc;
    int n = 0;
    for (size_t i = 0; i < ents.n; i++) {
        unsigned id;
        char tail;
        if (sscanf(ents.v[i], "node%u%c", &id, &tail) == 1)
            n++;
    }
    strlist_release(&ents);
    return n;
}

void gp_numa_host_facts(struct factset *fs, struct gp_numa_host *h)
{
    memset(h, 0, sizeof(*h));
    h->nodes = node_count();
    if (h->nodes > 0)
        fact_set_int(fs, "host.numa_nodes", h->nodes, NODE_DIR);
    else if (h->nodes == 0)
        fact_set_unknown(fs, "host.numa_nodes", NODE_DIR, "no node<N> directory");
    else
        fact_set_errno(fs, "host.numa_nodes", NODE_DIR, h->nodes);

    char *text = NULL;
    int rc = rootfs_query("cpu-affinity", affinity_live, &text);
    if (rc == 0 && (rc = gp_cpulist_parse(text, &h->allowed)) == 0 &&
        gp_cpus_count(&h->allowed) > 0) {
        h->have_allowed = 1;
        text[strcspn(text, "\n")] = '\0';
        fact_set_str(fs, "host.cpus_allowed", text, AFFINITY_SRC);
        fact_set_int(fs, "host.cpus_allowed_count", gp_cpus_count(&h->allowed), AFFINITY_SRC);
    } else {
        const char *why = rc ? strerror(-rc) : "an empty CPU set";
        fact_set_unknown(fs, "host.cpus_allowed", AFFINITY_SRC, "%s", why);
        fact_set_unknown(fs, "host.cpus_allowed_count", AFFINITY_SRC, "%s", why);
    }
    free(text);
}

void gp_numa_facts(struct factset *fs, int gpu, const char *bdf, const struct gp_numa_host *h)
{
    char fn[FACT_NAME_MAX], src[96], nsrc[96];
    static const char *const derived[] = {"numa_node_cpus", "numa_allowed_cpus"};
    snprintf(src, sizeof(src), GP_PCI_DEVICES "/%s/numa_node", bdf);
    int64_t node;
    int rc = rootfs_readf_i64(&node, "%s", src);
    const char *why = NULL;
    if (rc) {
        fact_set_errno(fs, fact_gpu_name(fn, gpu, "numa_node"), src, rc);
        why = "the GPU's numa_node is unreadable";
    } else if (node < 0) {
        /* -1 is NUMA_NO_NODE: the firmware names no node. With one node
         * the GPU is on it; with more it is unknown, never node 0. */
        fact_set_unknown(fs, fact_gpu_name(fn, gpu, "numa_node"), src,
                         "numa_node is -1: the firmware names no NUMA node for the GPU");
        if (h->nodes == 1)
            node = 0;
        else
            why = "numa_node is -1 on a host that is not known to have one node";
    } else {
        fact_set_int(fs, fact_gpu_name(fn, gpu, "numa_node"), node, src);
    }
    if (why) {
        for (size_t i = 0; i < ARRAY_SIZE(derived); i++)
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, derived[i]), src, "%s", why);
        return;
    }
    snprintf(nsrc, sizeof(nsrc), NODE_DIR "/node%lld/cpulist", (long long)node);
    char *text = NULL;
    struct gp_cpus cpus;
    rc = rootfs_read_str(nsrc, &text);
    if (rc == 0 && (rc = gp_cpulist_parse(text, &cpus)) == 0) {
        text[strcspn(text, "\n")] = '\0';
        fact_set_str(fs, fact_gpu_name(fn, gpu, "numa_node_cpus"), text, nsrc);
        if (h->have_allowed)
            fact_set_int(fs, fact_gpu_name(fn, gpu, "numa_allowed_cpus"),
                         gp_cpus_common(&cpus, &h->allowed), nsrc);
        else
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, "numa_allowed_cpus"), AFFINITY_SRC,
                             "the process's CPU set is unknown");
    } else {
        for (size_t i = 0; i < ARRAY_SIZE(derived); i++)
            fact_set_unknown(fs, fact_gpu_name(fn, gpu, derived[i]), nsrc, "%s: %s", nsrc,
                             rc == -EINVAL ? "not a cpulist" : strerror(-rc));
    }
    free(text);
}
