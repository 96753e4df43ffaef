/* gpu_trace.c - the trace file and its redaction (see gpu_trace.h). */
#include "gpu_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/outfile.h"
#include "../core/util.h"
#include "trace_hsa.h"

/* a run's first calls are the ones a bug report needs; a benchmark loop of
 * launches would otherwise fill the snapshot (its members are capped) */
#define MAX_LINES 5000
#define STR_CUT 64

/* the soak and multi-GPU probes call the runtime from several threads */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static int fd = -1;
static double t0;
static unsigned long seq, lines;

/* the words a string must not carry into the trace, and their stand-ins */
static char host[256], shorthost[256], user[256], home[1024];

/* allocations made through the traced runtime, for "d3+0x40" */
static struct alloc {
    const void *base;
    size_t size;
    char kind;
    unsigned id;
} allocs[1024];
static size_t nallocs;
static unsigned next_alloc;
/* every other pointer or handle, numbered by first appearance */
static const void *seen[4096];
static size_t nseen;

/* the functions whose first argument receives an allocation of the size in
 * their second; and those that free their first */
static const struct {
    const char *fn;
    char kind;
} alloc_fns[] = {{"hipMalloc", 'd'}, {"hipMallocManaged", 'm'}, {"hipHostMalloc", 'h'}};
static const char *const free_fns[] = {"hipFree", "hipHostFree"};
/* the functions whose third argument is a value of the size in their fourth
 * (the Lt attribute setters, any library's prefix): the value is printed, as
 * an allocation's id where it is a pointer into one */
static const char *const value_fns[] = {"MatmulDescSetAttribute", "MatmulPreferenceSetAttribute"};

int gpu_trace_on(void)
{
    return fd >= 0;
}

static void who(void)
{
    if (gethostname(host, sizeof(host) - 1))
        host[0] = '\0';
    snprintf(shorthost, sizeof(shorthost), "%.*s", (int)strcspn(host, "."), host);
    const struct passwd *pw = getpwuid(getuid());
    const char *u = pw ? pw->pw_name : getenv("USER");
    snprintf(user, sizeof(user), "%s", u ? u : "");
    const char *h = getenv("HOME");
    snprintf(home, sizeof(home), "%s", h && strcmp(h, "/") ? h : "");
}

/* A probe forks (the isolated children, the watchdog, python) while another
 * thread may be writing a line: a child would inherit the lock held by a
 * thread it does not have and hang on its first traced call. fork waits for
 * the lock instead, so the child starts with it free and the table whole
 * (the lock is held while one line is made and written, never across a
 * traced call, so the wait is one line). */
static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}
static void fork_release(void)
{
    pthread_mutex_unlock(&lock);
}
static void atfork_register(void)
{
    pthread_atfork(fork_prepare, fork_release, fork_release);
}

/* the trace is written through a temporary file renamed into place when
 * the run ends (outfile.h, issue 30): an interrupted run leaves the old file
 * or none, never a header alone. The GPU children append to the same
 * descriptor; only the process that opened it renames. */
static struct outfile tout;
static pid_t owner;

int gpu_trace_open(const char *path, char *why, size_t why_n)
{
    gpu_trace_close();
    pthread_once(&atfork_once, atfork_register);
    if (outfile_open(&tout, path, 0)) {
        snprintf(why, why_n, "cannot write the GPU trace '%s' (see above)", path);
        return -1;
    }
    int f = fileno(tout.f);
    int fl = fcntl(f, F_GETFL);
    static const char head[] =
        "# rocm-vla-doctor GPU call trace 1: pid, seq, start ms, duration us, library, "
        "call(arguments), result\n"
        "# pointers are ids (dN device, mN managed, hN pinned host, pN other) with +offset; "
        "output buffers are not printed (but hsa_agent_get_info's value and an Lt attribute's, "
        "decoded); host, user and home names are replaced\n";
    if (fl < 0 || fcntl(f, F_SETFL, fl | O_APPEND) < 0 ||
        write(f, head, sizeof(head) - 1) != (ssize_t)(sizeof(head) - 1)) {
        snprintf(why, why_n, "cannot write the GPU trace '%s': %s", path, strerror(errno));
        outfile_close(&tout, 1);
        return -1;
    }
    who();
    fd = f;
    owner = getpid();
    t0 = util_mono_s();
    seq = lines = 0;
    nallocs = nseen = 0;
    next_alloc = 0;
    return 0;
}

static void trace_end(int failed)
{
    if (fd < 0)
        return;
    if (getpid() == owner)
        outfile_close(&tout, failed);
    else
        close(fd); /* a child: the parent renames */
    fd = -1;
}

void gpu_trace_close(void)
{
    trace_end(0);
}

void gpu_trace_abort(void)
{
    trace_end(1);
}

void gpu_trace_begin(struct gpu_trace_call *c, const char *lib, const char *fn)
{
    c->lib = lib;
    c->fn = fn;
    c->n = 0;
    pthread_mutex_lock(&lock);
    c->seq = ++seq;
    pthread_mutex_unlock(&lock);
    c->t0 = util_mono_s();
}

void gpu_trace_rec(struct gpu_trace_call *c, enum gpu_trace_kind k, long long i,
                   unsigned long long u, const void *p)
{
    if (c->n >= GPU_TRACE_MAX_ARGS)
        return;
    struct gpu_trace_arg *a = &c->a[c->n++];
    a->k = k;
    a->i = i;
    a->u = u;
    a->p = p;
}

static void add_ptr(struct strbuf *sb, const void *p)
{
    if (!p) {
        strbuf_adds(sb, "NULL");
        return;
    }
    uintptr_t v = (uintptr_t)p;
    for (size_t i = nallocs; i-- > 0;) {
        uintptr_t b = (uintptr_t)allocs[i].base;
        if (v >= b && v - b < (allocs[i].size ? allocs[i].size : 1)) {
            strbuf_addf(sb, "%c%u", allocs[i].kind, allocs[i].id);
            if (v > b)
                strbuf_addf(sb, "+0x%zx", (size_t)(v - b));
            return;
        }
    }
    for (size_t i = 0; i < nseen; i++)
        if (seen[i] == p) {
            strbuf_addf(sb, "p%zu", i + 1);
            return;
        }
    if (nseen < ARRAY_SIZE(seen)) {
        seen[nseen++] = p;
        strbuf_addf(sb, "p%zu", nseen);
    } else {
        strbuf_adds(sb, "p?");
    }
}

/* replace each occurrence of w in sb (from start on) by as */
static void replace_word(struct strbuf *sb, size_t start, const char *w, const char *as)
{
    size_t wl = strlen(w);
    if (wl < 2)
        return;
    for (char *hit; (hit = strstr(sb->buf + start, w));) {
        size_t at = (size_t)(hit - sb->buf);
        struct strbuf t = STRBUF_INIT;
        strbuf_add(&t, sb->buf, at);
        strbuf_adds(&t, as);
        strbuf_adds(&t, sb->buf + at + wl);
        strbuf_release(sb);
        *sb = t;
        start = at + strlen(as);
    }
}

static void add_str(struct strbuf *sb, const char *s)
{
    if (!s) {
        strbuf_adds(sb, "NULL");
        return;
    }
    size_t start = sb->len, n = strlen(s);
    strbuf_addc(sb, '"');
    for (size_t i = 0; i < n && i < STR_CUT; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            strbuf_addf(sb, "\\%c", ch);
        else if (ch >= 0x20 && ch < 0x7f)
            strbuf_addc(sb, (char)ch);
        else
            strbuf_addf(sb, "\\x%02x", ch);
    }
    strbuf_addc(sb, '"');
    if (n > STR_CUT)
        strbuf_addf(sb, "...(%zu bytes)", n);
    replace_word(sb, start, home, "~");
    replace_word(sb, start, host, "HOST");
    replace_word(sb, start, shorthost, "HOST");
    replace_word(sb, start, user, "USER");
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* arg 2 of a value_fns call: "&=112", "&=d3" (a bias pointer), "&=33554432" */
static int add_value(struct strbuf *sb, const struct gpu_trace_call *c, int i)
{
    int is_value = 0;
    for (size_t k = 0; k < ARRAY_SIZE(value_fns); k++)
        is_value |= ends_with(c->fn, value_fns[k]);
    if (!is_value || i != 2 || c->n < 4 || c->a[2].k != GT_PTR || !c->a[2].p ||
        c->a[3].k != GT_UINT || (c->a[3].u != 4 && c->a[3].u != 8))
        return 0;
    strbuf_adds(sb, "&=");
    if (c->a[3].u == 4) {
        int32_t v;
        memcpy(&v, c->a[2].p, sizeof(v));
        strbuf_addf(sb, "%d", (int)v);
        return 1;
    }
    uint64_t v;
    memcpy(&v, c->a[2].p, sizeof(v));
    /* 8 bytes: a size (the workspace) or a pointer (the bias); no size the
     * libraries take reaches 4 GiB and no user address lies below it on a
     * 64-bit Linux process, so an address is never printed as a number */
    if (v < (1ull << 32))
        strbuf_addf(sb, "%llu", (unsigned long long)v);
    else
        add_ptr(sb, (const void *)(uintptr_t)v);
    return 1;
}

/* hsa_agent_get_info's attribute by name (arg 1) and its value by type
 * (arg 2): "HSA_AMD_AGENT_INFO_BDFID, &03:00.0"; the name string goes
 * through add_str's cut and redaction */
static int add_hsa_info(struct strbuf *sb, const struct gpu_trace_call *c, int i, int failed)
{
    if (strcmp(c->fn, "hsa_agent_get_info") || c->n != 3 || i < 1 || c->a[1].k != GT_UINT)
        return 0;
    const struct trace_hsa_attr *at = trace_hsa_agent_attr((unsigned)c->a[1].u);
    if (!at)
        return 0;
    if (i == 1) {
        strbuf_adds(sb, at->name);
        return 1;
    }
    if (c->a[2].k != GT_PTR || !c->a[2].p)
        return 0;
    strbuf_addc(sb, '&');
    if (failed) {
        strbuf_addc(sb, '?');
        return 1;
    }
    if (at->type == TH_STR) {
        char name[65]; /* HSA's name attributes are char[64], NUL-padded */
        size_t n = strnlen(c->a[2].p, 64);
        memcpy(name, c->a[2].p, n);
        name[n] = '\0';
        add_str(sb, name);
        return 1;
    }
    uint32_t v;
    memcpy(&v, c->a[2].p, sizeof(v));
    if (at->type == TH_BDF)
        strbuf_addf(sb, "%02x:%02x.%x", (unsigned)(v >> 8) & 0xff, (unsigned)(v >> 3) & 0x1f,
                    (unsigned)v & 7);
    else
        strbuf_addf(sb, "%u", (unsigned)v);
    return 1;
}

/* failed: the call returned an error, so what its outputs point at was
 * not written by it (the caller's initial value, or nothing) */
static void add_arg(struct strbuf *sb, const struct gpu_trace_arg *a,
                    const struct gpu_trace_arg *prev, int failed)
{
    switch (a->k) {
    case GT_INT:
        strbuf_addf(sb, "%lld", a->i);
        break;
    case GT_UINT:
        strbuf_addf(sb, "%llu", a->u);
        break;
    case GT_PTR:
    case GT_BUF:
        add_ptr(sb, a->p);
        break;
    case GT_STR:
        add_str(sb, a->p);
        break;
    case GT_STRV: {
        long long n = prev && prev->k == GT_INT ? prev->i : -1;
        if (!a->p || n < 0 || n > 16) {
            add_ptr(sb, a->p);
            break;
        }
        const char *const *v = a->p;
        strbuf_addc(sb, '{');
        for (long long i = 0; i < n; i++) {
            if (i)
                strbuf_adds(sb, ", ");
            add_str(sb, v[i]);
        }
        strbuf_addc(sb, '}');
        break;
    }
    case GT_OUT_INT:
    case GT_OUT_UINT:
    case GT_OUT_LONG:
    case GT_OUT_SIZE:
    case GT_OUT_FLOAT:
    case GT_OUT_PTR:
        if (!a->p) {
            strbuf_adds(sb, "NULL");
            break;
        }
        strbuf_addc(sb, '&');
        if (failed) {
            strbuf_addc(sb, '?');
        } else if (a->k == GT_OUT_INT) {
            int v;
            memcpy(&v, a->p, sizeof(v));
            strbuf_addf(sb, "%d", v);
        } else if (a->k == GT_OUT_UINT) {
            unsigned v;
            memcpy(&v, a->p, sizeof(v));
            strbuf_addf(sb, "%u", v);
        } else if (a->k == GT_OUT_LONG) {
            long v;
            memcpy(&v, a->p, sizeof(v));
            strbuf_addf(sb, "%ld", v);
        } else if (a->k == GT_OUT_SIZE) {
            size_t v;
            memcpy(&v, a->p, sizeof(v));
            strbuf_addf(sb, "%zu", v);
        } else if (a->k == GT_OUT_FLOAT) {
            float v;
            memcpy(&v, a->p, sizeof(v));
            strbuf_addf(sb, "%g", (double)v);
        } else {
            const void *v;
            memcpy(&v, a->p, sizeof(v));
            add_ptr(sb, v);
        }
        break;
    case GT_HANDLE:
        add_ptr(sb, (const void *)(uintptr_t)a->u);
        break;
    case GT_FN:
        strbuf_adds(sb, a->u ? "fn" : "NULL");
        break;
    }
}

/* allocations enter the table when made, before the line prints them */
static void track_alloc(const struct gpu_trace_call *c, unsigned e)
{
    if (e || c->n < 2 || c->a[0].k != GT_OUT_PTR || !c->a[0].p)
        return;
    for (size_t i = 0; i < ARRAY_SIZE(alloc_fns); i++) {
        if (strcmp(c->fn, alloc_fns[i].fn) || nallocs >= ARRAY_SIZE(allocs))
            continue;
        const void *base;
        memcpy(&base, c->a[0].p, sizeof(base));
        allocs[nallocs++] =
            (struct alloc){base, (size_t)c->a[1].u, alloc_fns[i].kind, ++next_alloc};
    }
}

/* a freed allocation leaves the table after its line is written */
static void track_free(const struct gpu_trace_call *c, unsigned e)
{
    if (e || c->n < 1)
        return;
    for (size_t i = 0; i < ARRAY_SIZE(free_fns); i++) {
        if (strcmp(c->fn, free_fns[i]))
            continue;
        for (size_t j = 0; j < nallocs; j++)
            if (allocs[j].base == c->a[0].p) {
                allocs[j] = allocs[--nallocs];
                break;
            }
    }
}

static void put(const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* a full disk loses trace lines, never the run */
        s += w;
        n -= (size_t)w;
    }
}

static void end_locked(struct gpu_trace_call *c, double t1, unsigned e, const char *s, int is_str,
                       const char *(*name)(unsigned))
{
    if (fd < 0)
        return;
    if (!is_str)
        track_alloc(c, e);
    if (++lines > MAX_LINES) {
        if (lines == MAX_LINES + 1) {
            char m[128];
            int n = snprintf(m, sizeof(m), "# pid %d: the trace stops after %d calls\n",
                             (int)getpid(), MAX_LINES);
            put(m, (size_t)n);
        }
        return;
    }
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%d\t%lu\t%.3f\t%.1f\t%s\t%s(", (int)getpid(), c->seq, (c->t0 - t0) * 1e3,
                (t1 - c->t0) * 1e6, c->lib, c->fn);
    for (int i = 0; i < c->n; i++) {
        if (i)
            strbuf_adds(&sb, ", ");
        if (!add_value(&sb, c, i) && !add_hsa_info(&sb, c, i, !is_str && e))
            add_arg(&sb, &c->a[i], i ? &c->a[i - 1] : NULL, !is_str && e);
    }
    strbuf_adds(&sb, ")\t");
    if (is_str) {
        add_str(&sb, s);
    } else {
        strbuf_addf(&sb, "%u", e);
        const char *nm = e && name ? name(e) : NULL;
        if (nm)
            strbuf_addf(&sb, " %s", nm);
        else if (e)
            strbuf_addf(&sb, " (0x%x)", e);
    }
    strbuf_addc(&sb, '\n');
    put(sb.buf, sb.len);
    strbuf_release(&sb);
    if (!is_str)
        track_free(c, e);
}

static void end(struct gpu_trace_call *c, unsigned e, const char *s, int is_str,
                const char *(*name)(unsigned))
{
    double t1 = util_mono_s();
    pthread_mutex_lock(&lock);
    end_locked(c, t1, e, s, is_str, name);
    pthread_mutex_unlock(&lock);
}

void gpu_trace_end_status(struct gpu_trace_call *c, unsigned e, const char *(*name)(unsigned))
{
    end(c, e, NULL, 0, name);
}

void gpu_trace_end_str(struct gpu_trace_call *c, const char *s, const char *(*name)(unsigned))
{
    (void)name;
    end(c, 0, s, 1, NULL);
}
