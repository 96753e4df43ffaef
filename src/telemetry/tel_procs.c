/* tel_procs.c - the processes using the GPUs: DRM fdinfo (/proc/PID/fdinfo,
 * one entry per DRM client) and KFD (/sys/class/kfd/kfd/proc, compute
 * allocations fdinfo does not count), matched to the sample's GPUs by PCI
 * address; the helpers the sources share to add a process. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rootfs.h"
#include "tel_source.h"

#define KFD_PROC "/sys/class/kfd/kfd/proc"
#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"
/* bounds on the process scan: a host with more is shown in part */
#define MAX_PIDS 4096
#define MAX_FDS 512

/* the index in s->gpus of the GPU whose key is pci, -1 none */
static int tel_sample_gpu(const struct tel_sample *s, const char *pdev)
{
    for (size_t i = 0; i < s->ngpu; i++)
        if (!strcmp(s->gpus[i].pci, pdev))
            return (int)i;
    return -1;
}

struct tel_proc *tel_proc_add(struct tel_sample *s, size_t *cap, int pid, int gpu, const char *comm)
{
    for (size_t i = 0; i < s->nproc; i++)
        if (s->procs[i].pid == pid && s->procs[i].gpu == gpu)
            return &s->procs[i];
    if (s->nproc == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        s->procs = xrealloc(s->procs, *cap * sizeof(*s->procs));
    }
    struct tel_proc *p = &s->procs[s->nproc++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->gpu = gpu;
    p->vram_bytes = -1;
    p->engine_ns = -1;
    p->busy_pct = -1;
    snprintf(p->comm, sizeof(p->comm), "%s", comm);
    return p;
}

static int is_pid(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

void tel_proc_comm(int pid, char *buf, size_t n)
{
    char *c;
    if (rootfs_readf_str(&c, "/proc/%d/comm", pid) == 0) {
        snprintf(buf, n, "%s", c);
        free(c);
    } else {
        snprintf(buf, n, "?");
    }
}

struct seen_client {
    char pdev[16];
    uint64_t id;
};

static int scan_fdinfo(struct tel_sample *s, size_t *cap)
{
    struct strlist pids = STRLIST_INIT;
    int prc = rootfs_list("/proc", &pids);
    if (prc)
        return prc;
    struct seen_client *seen = NULL;
    size_t nseen = 0, seen_cap = 0, npid = 0;
    for (size_t i = 0; i < pids.n && npid < MAX_PIDS; i++) {
        if (!is_pid(pids.v[i]))
            continue;
        npid++;
        int pid = atoi(pids.v[i]);
        char dir[64];
        snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", pid);
        struct strlist fds = STRLIST_INIT;
        int rc = rootfs_list(dir, &fds);
        if (rc) {
            if (rc == -EACCES || rc == -EPERM)
                s->procs_unreadable++;
            continue;
        }
        char comm[32] = "";
        for (size_t f = 0; f < fds.n && f < MAX_FDS; f++) {
            char *text;
            if (rootfs_readf_str(&text, "%s/%s", dir, fds.v[f]))
                continue;
            struct tel_fdinfo fi;
            int ok = tel_fdinfo_parse(text, &fi) == 0;
            free(text);
            if (!ok)
                continue;
            /* one DRM client can sit behind several fds (dup, fork): once */
            int dup = 0;
            for (size_t k = 0; fi.has_client_id && k < nseen && !dup; k++)
                dup = seen[k].id == fi.client_id && !strcmp(seen[k].pdev, fi.pdev);
            if (dup)
                continue;
            if (fi.has_client_id) {
                if (nseen == seen_cap) {
                    seen_cap = seen_cap ? seen_cap * 2 : 16;
                    seen = xrealloc(seen, seen_cap * sizeof(*seen));
                }
                snprintf(seen[nseen].pdev, sizeof(seen[nseen].pdev), "%s", fi.pdev);
                seen[nseen++].id = fi.client_id;
            }
            int gpu = tel_sample_gpu(s, fi.pdev);
            if (gpu < 0)
                continue;
            if (!comm[0])
                tel_proc_comm(pid, comm, sizeof(comm));
            struct tel_proc *p = tel_proc_add(s, cap, pid, gpu, comm);
            p->src = "fdinfo";
            p->saturated |= fi.saturated;
            /* sums of the machine's counters saturate (issue 30) */
            if (fi.vram_bytes >= 0)
                p->vram_bytes = i64_add_sat(p->vram_bytes, fi.vram_bytes, &p->saturated);
            if (fi.engine_ns >= 0)
                p->engine_ns = i64_add_sat(p->engine_ns, fi.engine_ns, &p->saturated);
        }
        strlist_release(&fds);
    }
    free(seen);
    strlist_release(&pids);
    return 0;
}

/* KFD gpu_id -> PCI address, from the topology nodes */
static int kfd_gpu_pci(unsigned gpu_id, char *pci, size_t n)
{
    struct strlist nodes = STRLIST_INIT;
    int found = -1;
    if (rootfs_list(KFD_NODES, &nodes))
        return -1;
    for (size_t i = 0; i < nodes.n && found; i++) {
        uint64_t id, loc = 0, dom = 0;
        char *props;
        if (rootfs_readf_u64(&id, KFD_NODES "/%s/gpu_id", nodes.v[i]) || id != gpu_id)
            continue;
        if (rootfs_readf_str(&props, KFD_NODES "/%s/properties", nodes.v[i]))
            continue;
        const char *l = strstr(props, "location_id ");
        const char *d = strstr(props, "\ndomain ");
        if (l) {
            loc = strtoull(l + 12, NULL, 10);
            if (d)
                dom = strtoull(d + 8, NULL, 10);
            snprintf(pci, n, "%04x:%02x:%02x.%x", (unsigned)dom, (unsigned)(loc >> 8) & 0xff,
                     (unsigned)(loc >> 3) & 0x1f, (unsigned)loc & 7);
            found = 0;
        }
        free(props);
    }
    strlist_release(&nodes);
    return found;
}

static void scan_kfd(struct tel_sample *s, size_t *cap)
{
    struct strlist pids = STRLIST_INIT;
    if (rootfs_list(KFD_PROC, &pids))
        return;
    for (size_t i = 0; i < pids.n && i < MAX_PIDS; i++) {
        if (!is_pid(pids.v[i]))
            continue;
        int pid = atoi(pids.v[i]);
        struct strlist files = STRLIST_INIT;
        char dir[80];
        snprintf(dir, sizeof(dir), KFD_PROC "/%d", pid);
        if (rootfs_list(dir, &files))
            continue;
        char comm[32] = "";
        for (size_t f = 0; f < files.n; f++) {
            unsigned gpu_id;
            char tail;
            uint64_t bytes;
            char pci[16];
            if (sscanf(files.v[f], "vram_%u%c", &gpu_id, &tail) != 1)
                continue;
            if (rootfs_readf_u64(&bytes, "%s/%s", dir, files.v[f]))
                continue;
            if (kfd_gpu_pci(gpu_id, pci, sizeof(pci)))
                continue;
            int gpu = tel_sample_gpu(s, pci);
            if (gpu < 0)
                continue;
            if (!comm[0])
                tel_proc_comm(pid, comm, sizeof(comm));
            struct tel_proc *p = tel_proc_add(s, cap, pid, gpu, comm);
            /* compute allocations (KFD) are not in fdinfo's drm-memory-vram */
            int64_t kb = i64_from_u64_sat(bytes, &p->saturated);
            if (!p->src) {
                p->src = "kfd";
                p->vram_bytes = kb;
            } else {
                p->src = "fdinfo+kfd";
                if (kb > p->vram_bytes)
                    p->vram_bytes = kb;
            }
        }
        strlist_release(&files);
    }
    strlist_release(&pids);
}

int tel_procs_drm_kfd(struct tel_sample *s, size_t *cap)
{
    int rc = scan_fdinfo(s, cap);
    if (rc == 0)
        scan_kfd(s, cap);
    return rc;
}

int tel_list_procs(const struct strlist *bdfs, struct tel_sample *s)
{
    memset(s, 0, sizeof(*s));
    struct strlist probe = STRLIST_INIT;
    int rc = rootfs_list("/proc", &probe);
    strlist_release(&probe);
    if (rc)
        return rc;
    s->ngpu = bdfs->n;
    s->gpus = xcalloc(s->ngpu + 1, sizeof(*s->gpus));
    for (size_t i = 0; i < bdfs->n; i++)
        snprintf(s->gpus[i].pci, sizeof(s->gpus[i].pci), "%s", bdfs->v[i]);
    size_t cap = 0;
    tel_procs_drm_kfd(s, &cap);
    return 0;
}

void tel_proc_describe(const struct tel_sample *s, int gpu, struct strbuf *out)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nproc; i++) {
        const struct tel_proc *p = &s->procs[i];
        if (p->gpu != gpu)
            continue;
        strbuf_adds(out, n++ ? ", " : "used by ");
        strbuf_addf(out, "%s (pid %d", p->comm, p->pid);
        if (p->vram_bytes >= 0)
            strbuf_addf(out, ", %.1f GiB VRAM", (double)p->vram_bytes / (1024.0 * 1024 * 1024));
        if (p->busy_pct >= 0)
            strbuf_addf(out, ", %.0f%% busy", p->busy_pct);
        strbuf_addf(out, ", %s%s)", p->src ? p->src : "?",
                    p->saturated ? ", counters saturated at 2^63-1" : "");
    }
    if (!n && gpu >= 0 && (size_t)gpu < s->ngpu && s->gpus[gpu].procs_why[0]) {
        strbuf_addf(out, "users: ? (%s)", s->gpus[gpu].procs_why);
    } else if (!n) {
        strbuf_adds(out, "no process found that has it open");
        if (s->procs_unreadable)
            strbuf_addf(out, " (%d processes not readable: other users' need root)",
                        s->procs_unreadable);
    }
}
