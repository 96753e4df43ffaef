/* probe_torch.c - the team's own PyTorch stack on the reference VLA shapes
 * (issue 23), at level full: the user's interpreter (python.executable, or
 * --python PATH) runs probes/torch_probe.py - the installed copy under
 * share/rocm-vla-doctor/, else the binary's built-in one written into a
 * private temporary directory (never fetched) - in its own process group
 * under a watchdog: the largest `timeout:` of the checks naming `probe:
 * torch` in checks.yaml, ended with SIGKILL to the group, so a torch that
 * hangs in device init costs that bound and no more. The child prints one
 * JSON object; it is read with the core JSON reader and every missing or
 * malformed field becomes an unknown fact with the reason.
 *
 * Weights: the main preset's layout (names, shapes, init kinds) is handed
 * over and filled on the device by torch's RNG with the doctor's scales; for
 * numerics against the doctor the `tiny` preset's weights are written with
 * the doctor's own writer and the doctor's fp32 CPU reference pass runs on
 * them here, compared with torch's fp32 pass of the same file.
 *
 * Facts: torch.* (fact_catalog.c lists them). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/core/children.h"
#include "../src/core/datadir.h"
#include "../src/core/json.h"
#include "../src/core/tmpdirs.h"
#include "../src/vla/model.h"
#include "../src/vla/ops.h"
#include "../src/vla/preset.h"
#include "../src/vla/weights.h"
#include "probe.h"
#include "probe_torch.h"
#include "torch_kernels.h"

#define SRC "torch probe"
#define TORCH_DEFAULT_BUDGET_S 600.0
#define TORCH_MAX_OUTPUT (16u << 20)
#define TORCH_MAX_STDERR (64u << 10) /* kept of stderr: its last lines */
#define TORCH_LINE_MAX 500           /* a stderr line in a fact, cut to this */
#define TORCH_DRAIN_S 0.5            /* read on this long after the child exits */

extern const char rvd_torch_probe_py[], rvd_torch_probe_py_end[];
extern char **environ;

int probe_torch_run(struct probe_ctx *ctx);

static int write_all(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t at = 0;
    while (at < len) {
        ssize_t n = write(fd, data + at, len - at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        at += (size_t)n;
    }
    return close(fd) == 0 && at == len ? 0 : -1;
}

static const char *init_name(enum vla_init i)
{
    static const char *const n[] = {"linear", "bias", "norm", "zero", "pos", "embed", "stats"};
    return n[i];
}

/* the layout as JSON: what torch_probe.py's synthetic_weights() fills */
static char *layout_json(const struct vla_preset *p)
{
    struct vla_weights w;
    if (vla_weights_layout(&w, p, 0)) {
        vla_weights_release(&w);
        return NULL;
    }
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "{\"tensors\": [");
    for (size_t i = 0; i < w.n; i++) {
        const struct vla_tensor *t = &w.t[i];
        strbuf_addf(&sb, "%s{\"name\": \"%s\", \"init\": \"%s\", \"shape\": [", i ? ", " : "",
                    t->name, init_name(t->init));
        for (int d = 0; d < t->ndim; d++)
            strbuf_addf(&sb, "%s%llu", d ? ", " : "", (unsigned long long)t->shape[d]);
        strbuf_adds(&sb, "]");
        if (t->init == VLA_INIT_STATS) {
            const float *v = strstr(t->name, "mean")  ? p->mean
                             : strstr(t->name, "std") ? p->std
                             : strstr(t->name, "low") ? p->low
                                                      : p->high;
            strbuf_adds(&sb, ", \"values\": [");
            for (int a = 0; a < p->action_dim; a++)
                strbuf_addf(&sb, "%s%.9g", a ? ", " : "", (double)v[a]);
            strbuf_adds(&sb, "]");
        }
        strbuf_adds(&sb, "}");
    }
    strbuf_adds(&sb, "]}\n");
    vla_weights_release(&w);
    return strbuf_detach(&sb);
}

/* the preset as a YAML file Python can read: its own file, or the built-in text */
static char *preset_path(const struct vla_preset *p, const char *dir, const char *stem)
{
    if (p->source && access(p->source, R_OK) == 0)
        return xasprintf("%s", p->source);
    size_t len = 0;
    const char *text = vla_preset_builtin_text(p->name, &len);
    char *path = xasprintf("%s/%s.yaml", dir, stem);
    if (!text || write_all(path, text, len)) {
        free(path);
        return NULL;
    }
    return path;
}

/* the doctor's side of the shared preset: its weights file and its fp32
 * actions from the CPU reference pass (n = chunk * dim); 0 or -1 */
static int doctor_shared(const struct vla_preset *p, const char *wpath, float **act, size_t *n)
{
    struct vla_weights w;
    struct vla_model m;
    struct vla_inputs in;
    if (vla_weights_layout(&w, p, 1)) {
        vla_weights_release(&w);
        return -1;
    }
    vla_weights_synthetic(&w, p, 0);
    int rc = vla_weights_save(&w, p, wpath);
    *n = (size_t)p->chunk * p->action_dim;
    *act = calloc(*n, sizeof(float));
    if (!rc && *act && vla_model_init(&m, p, &w, &vla_ops_cpu, p->vision.image) == 0) {
        vla_inputs_synthetic(&in, p, p->vision.image, 0);
        rc = vla_forward(&m, &in, *act, NULL, NULL);
        vla_inputs_release(&in);
        vla_model_release(&m);
    } else {
        rc = -1;
    }
    vla_weights_release(&w);
    return rc;
}

static double budget_s(const struct checkset *cs)
{
    double b = 0;
    for (size_t i = 0; cs && i < cs->n; i++)
        if (cs->v[i].probe && strcmp(cs->v[i].probe, "torch") == 0 && cs->v[i].timeout_s > b)
            b = cs->v[i].timeout_s;
    return b > 0 ? b : TORCH_DEFAULT_BUDGET_S;
}

/* argv[0] with its own process group; stdout into out, the last of stderr
 * into err. NULL, or why no answer came ("timeout" when the watchdog fired) */
static char *run_child(char *const argv[], double budget, struct strbuf *out, struct strbuf *err,
                       int *timed_out)
{
    int op[2], ep[2];
    if (pipe2(op, O_CLOEXEC) < 0)
        return xasprintf("pipe: %s", strerror(errno));
    if (pipe2(ep, O_CLOEXEC) < 0) {
        close(op[0]);
        close(op[1]);
        return xasprintf("pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        for (int i = 0; i < 2; i++) {
            close(op[i]);
            close(ep[i]);
        }
        return xasprintf("fork: %s", strerror(errno));
    }
    if (pid == 0) {
        setpgid(0, 0);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, STDIN_FILENO);
        dup2(op[1], STDOUT_FILENO);
        dup2(ep[1], STDERR_FILENO);
        execve(argv[0], argv, environ);
        dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    children_add(pid);
    close(op[1]);
    close(ep[1]);
    double t0 = util_mono_s();
    int open_fds = 2, over = 0;
    struct pollfd pf[2] = {{op[0], POLLIN, 0}, {ep[0], POLLIN, 0}};
    char buf[65536];
    *timed_out = 0;
    /* the answer is taken when the child exits plus a short drain, not when
     * the pipes close: a grandchild may hold them open (issue 30) */
    int exited = 0, st = 0;
    double drain_end = 0;
    while (open_fds > 0) {
        double now = util_mono_s(), left = budget - (now - t0);
        if (left <= 0) {
            *timed_out = 1;
            break;
        }
        if (!exited && waitpid(pid, &st, WNOHANG) == pid) {
            exited = 1;
            drain_end = now + TORCH_DRAIN_S;
        }
        if (exited && now >= drain_end)
            break;
        int r = poll(pf, 2, (int)((left < 0.1 ? left : 0.1) * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        for (int i = 0; i < 2; i++) {
            if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = read(pf[i].fd, buf, sizeof(buf));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(pf[i].fd);
                pf[i].fd = -1;
                open_fds--;
                continue;
            }
            struct strbuf *sb = i ? err : out;
            if (i == 0 && (over || sb->len + (size_t)n > TORCH_MAX_OUTPUT)) {
                over = 1; /* refused whole, never spliced (issue 30) */
                continue;
            }
            strbuf_add(sb, buf, (size_t)n);
            if (i && sb->len > TORCH_MAX_STDERR) { /* only the last lines are shown */
                size_t keep = TORCH_MAX_STDERR / 2;
                memmove(sb->buf, sb->buf + sb->len - keep, keep);
                sb->len = keep;
                sb->buf[keep] = '\0';
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (pf[i].fd >= 0)
            close(pf[i].fd);
    if (*timed_out && kill(-pid, SIGKILL) < 0)
        kill(pid, SIGKILL);
    while (!exited && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL); /* what it left behind in its group */
    children_forget(pid);
    if (*timed_out)
        return xasprintf("no answer within %.0f s (the watchdog ended it)", budget);
    if (over)
        return xasprintf("the answer passed %u MiB and was refused whole", TORCH_MAX_OUTPUT >> 20);
    if (WIFSIGNALED(st))
        return xasprintf("killed by signal %d", WTERMSIG(st));
    if (WEXITSTATUS(st) != 0)
        return xasprintf("exit status %d", WEXITSTATUS(st));
    return NULL;
}

/* the last non-empty line of the child's stderr (the exception), cut to
 * about TORCH_LINE_MAX bytes on a UTF-8 boundary: a 12 MB line made an
 * 84 MB report that report and diff refuse (issue 30) */
static const char *last_line(struct strbuf *err)
{
    if (!err->buf)
        return "";
    size_t e = err->len;
    while (e > 0 && (err->buf[e - 1] == '\n' || err->buf[e - 1] == '\r'))
        err->buf[--e] = 0;
    char *nl = strrchr(err->buf, '\n');
    char *l = nl ? nl + 1 : err->buf;
    size_t n = strlen(l);
    if (n > TORCH_LINE_MAX) {
        size_t cut = TORCH_LINE_MAX;
        while (cut > 0 && ((unsigned char)l[cut] & 0xc0) == 0x80)
            cut--;
        memcpy(l + cut, "...", 4);
    }
    return l;
}

static const struct json *jpath(const struct json *j, const char *a, const char *b)
{
    j = j && j->type == JSON_OBJ ? json_get(j, a) : NULL;
    if (b)
        j = j && j->type == JSON_OBJ ? json_get(j, b) : NULL;
    return j;
}

static void set_str(struct factset *fs, const char *fact, const struct json *j, const char *why)
{
    if (j && j->type == JSON_STR)
        fact_set_str(fs, fact, j->str, SRC);
    else
        fact_set_unknown(fs, fact, SRC, "%s", why);
}

static void set_num(struct factset *fs, const char *fact, const struct json *j, const char *why)
{
    if (j && j->type == JSON_NUM && isfinite(j->num))
        fact_set_float(fs, fact, j->num, SRC);
    else
        fact_set_unknown(fs, fact, SRC, "%s", why);
}

/* a count from the answer: a whole number that an int64 holds, else the
 * fact is unknown with the reason (1e300 became INT64_MIN, issue 30) */
static void set_int(struct factset *fs, const char *fact, const struct json *j, const char *why)
{
    if (!j || j->type != JSON_NUM)
        fact_set_unknown(fs, fact, SRC, "%s", why);
    else if (!isfinite(j->num) || j->num < -9.2e18 || j->num > 9.2e18 || j->num != floor(j->num))
        fact_set_unknown(fs, fact, SRC, "the answer's %.17g is not a whole number in range",
                         j->num);
    else
        fact_set_int(fs, fact, (int64_t)j->num, SRC);
}

static void set_bool(struct factset *fs, const char *fact, const struct json *j, const char *why)
{
    if (j && j->type == JSON_BOOL)
        fact_set_bool(fs, fact, j->b, SRC);
    else
        fact_set_unknown(fs, fact, SRC, "%s", why);
}

/* the GPU torch picked, by PCI address, as gpu.<i> of the doctor's list */
static void device_facts(struct factset *fs, const struct json *d)
{
    set_str(fs, "torch.device.name", jpath(d, "name", NULL), "torch gave no device name");
    set_str(fs, "torch.device.arch", jpath(d, "arch", NULL), "torch gave no architecture");
    const struct json *pci = jpath(d, "pci", NULL);
    set_str(fs, "torch.device.pci", pci, "this torch has no pci_bus_id in its device properties");
    if (!pci || pci->type != JSON_STR) {
        fact_set_unknown(fs, "torch.device.gpu", SRC, "no PCI address from torch");
        return;
    }
    char buf[FACT_NAME_MAX];
    for (int i = 0; i < 64; i++) {
        const char *a = probe_gpu_pci(fs, i, buf);
        if (a && strcasecmp(a, pci->str) == 0) {
            char g[32];
            snprintf(g, sizeof(g), "gpu.%d", i);
            fact_set_str(fs, "torch.device.gpu", g, SRC);
            return;
        }
    }
    fact_set_str(fs, "torch.device.gpu", "", SRC); /* not an AMD GPU the doctor lists */
}

static const char *const stages[] = {"vision_ms", "prefix_ms", "step_ms", "post_ms", "total_ms"};

static void latency_facts(struct factset *fs, const struct json *lat, const char *mode,
                          const char *why)
{
    for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
        char name[FACT_NAME_MAX];
        snprintf(name, sizeof(name), "torch.latency.%s.%s", mode, stages[i]);
        set_num(fs, name, jpath(jpath(lat, mode, NULL), stages[i], NULL), why);
    }
}

/* the kernel names of the profiled bf16 pass, classified */
static void kernel_facts(struct factset *fs, const struct json *k)
{
    if (!k || k->type != JSON_ARR) {
        static const char *const f[] = {"torch.sdpa_backend", "torch.blas", "torch.cpu_copies"};
        for (int i = 0; i < 3; i++)
            fact_set_unknown(fs, f[i], SRC, "no profiled kernel names in the answer");
        return;
    }
    const char **names = calloc(k->n + 1, sizeof(*names));
    size_t n = 0;
    for (size_t i = 0; names && i < k->n; i++)
        if (k->items[i]->type == JSON_STR)
            names[n++] = k->items[i]->str;
    const char *sdpa = torch_sdpa_backend(names, n), *blas = torch_blas_library(names, n);
    if (sdpa)
        fact_set_str(fs, "torch.sdpa_backend", sdpa, SRC);
    else
        fact_set_unknown(fs, "torch.sdpa_backend", SRC, "no attention kernel name recognised");
    if (blas)
        fact_set_str(fs, "torch.blas", blas, SRC);
    else
        fact_set_unknown(fs, "torch.blas", SRC, "no GEMM kernel name recognised");
    fact_set_bool(fs, "torch.cpu_copies", torch_has_htod(names, n), SRC);
    free(names);
}

static void shared_facts(struct factset *fs, const struct json *sh, const float *doc, size_t n)
{
    const struct json *a = jpath(sh, "actions", NULL);
    if (!doc || !a || a->type != JSON_ARR || a->n != n) {
        fact_set_unknown(fs, "torch.shared.cosine", SRC, "%s",
                         doc ? "torch gave no fp32 actions of the shared preset"
                             : "the doctor's shared-preset pass did not run");
        fact_set_unknown(fs, "torch.shared.max_error", SRC, "no shared-preset actions");
        return;
    }
    double ab = 0, aa = 0, bb = 0, mx = 0;
    for (size_t i = 0; i < n; i++) {
        if (a->items[i]->type != JSON_NUM) {
            fact_set_unknown(fs, "torch.shared.cosine", SRC, "a non-number among the actions");
            fact_set_unknown(fs, "torch.shared.max_error", SRC, "a non-number among the actions");
            return;
        }
        double x = a->items[i]->num, y = doc[i];
        ab += x * y;
        aa += x * x;
        bb += y * y;
        mx = fabs(x - y) > mx ? fabs(x - y) : mx;
    }
    fact_set_float(fs, "torch.shared.cosine", aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : 0, SRC);
    fact_set_float(fs, "torch.shared.max_error", mx, SRC);
}

/* the fastest way this torch ran the pass: compiled+graph, graph, eager */
static void best_facts(struct factset *fs)
{
    static const char *const modes[] = {"compiled", "graph", "eager"};
    for (int i = 0; i < 3; i++) {
        char name[FACT_NAME_MAX];
        snprintf(name, sizeof(name), "torch.latency.%s.total_ms", modes[i]);
        const struct fact *f = fact_get(fs, name);
        if (f && f->type == FACT_FLOAT) {
            fact_set_float(fs, "torch.latency.best_ms", f->f, SRC);
            fact_set_str(fs, "torch.latency.best_mode", modes[i], SRC);
            return;
        }
    }
    fact_set_unknown(fs, "torch.latency.best_ms", SRC, "no timing of the pass");
    fact_set_unknown(fs, "torch.latency.best_mode", SRC, "no timing of the pass");
}

static void answer_facts(struct factset *fs, const struct json *j, const float *doc, size_t n)
{
    set_str(fs, "torch.version", jpath(j, "torch", NULL), "no torch version in the answer");
    set_str(fs, "torch.hip", jpath(j, "hip", NULL), "no torch.version.hip in the answer");
    set_str(fs, "torch.cuda", jpath(j, "cuda", NULL), "no torch.version.cuda in the answer");
    const struct json *de = jpath(j, "driver_error", NULL);
    set_str(fs, "torch.driver", jpath(j, "driver", NULL),
            de && de->type == JSON_STR ? de->str : "no driver version in the answer");
    set_bool(fs, "torch.tunableop", jpath(j, "tunableop", NULL),
             "this torch has no torch.cuda.tunable");
    set_int(fs, "torch.gpu_count", jpath(j, "gpu_count", NULL), "no device count in the answer");
    const struct json *err = jpath(j, "error", NULL);
    if (err && err->type == JSON_STR) {
        fact_set_bool(fs, "torch.available", 0, SRC);
        fact_set_str(fs, "torch.why", err->str, SRC);
        return;
    }
    fact_set_bool(fs, "torch.available", 1, SRC);
    fact_set_str(fs, "torch.why", "", SRC);
    device_facts(fs, jpath(j, "device", NULL));
    set_str(fs, "torch.preset", jpath(j, "preset", NULL), "no preset in the answer");
    set_str(fs, "torch.weights_dtype", jpath(j, "weights_dtype", NULL), "no weight dtype");
    set_str(fs, "torch.blas_preferred", jpath(j, "blas_preferred", NULL),
            "torch.backends.cuda.preferred_blas_library() did not answer");
    kernel_facts(fs, jpath(j, "kernels", NULL));
    set_bool(fs, "torch.compile.ok", jpath(j, "compile", "ok"), "no torch.compile result");
    set_str(fs, "torch.compile.error", jpath(j, "compile", "error"), "no torch.compile result");
    set_str(fs, "torch.compile.triton", jpath(j, "compile", "triton"), "no Triton version");
    set_str(fs, "torch.graph_error", jpath(j, "graph_error", NULL), "no graph capture result");
    const struct json *lat = jpath(j, "latency", NULL);
    latency_facts(fs, lat, "eager", "no eager timings in the answer");
    latency_facts(fs, lat, "graph", "the pass was not captured as a graph (torch.graph_error)");
    latency_facts(fs, lat, "compiled", "torch.compile did not run the pass (torch.compile.error)");
    set_int(fs, "torch.peak_memory_bytes", jpath(j, "peak_memory_bytes", NULL),
            "no peak memory in the answer");
    const struct json *nu = jpath(j, "numerics", NULL);
    /* a NaN or infinity is null in the answer and named in "nonfinite"
     * (torch_probe.py): bf16 output that is not finite fails, never skips */
    const struct json *nf = jpath(j, "nonfinite", NULL);
    int bad = 0;
    for (size_t k = 0; nf && nf->type == JSON_ARR && k < nf->n; k++) {
        const struct json *e = nf->items[k];
        bad |= e->type == JSON_STR && str_starts(e->str, "numerics.");
    }
    if (nu || bad)
        fact_set_bool(fs, "torch.numerics.finite", !bad, SRC);
    else
        fact_set_unknown(fs, "torch.numerics.finite", SRC, "no bf16/fp32 comparison");
    set_num(fs, "torch.numerics.cosine", jpath(nu, "cosine", NULL),
            bad ? "the bf16 or fp32 output is not finite (NaN or infinity)"
                : "no bf16/fp32 comparison");
    const struct json *me = jpath(nu, "max_error", NULL), *ma = jpath(nu, "max_abs_fp32", NULL);
    if (me && ma && me->type == JSON_NUM && ma->type == JSON_NUM && ma->num > 0)
        fact_set_float(fs, "torch.numerics.max_error_rel", me->num / ma->num, SRC);
    else
        fact_set_unknown(fs, "torch.numerics.max_error_rel", SRC, "no bf16/fp32 comparison");
    shared_facts(fs, jpath(j, "shared", NULL), doc, n);
    best_facts(fs);
}

static void unavailable(struct factset *fs, const char *why)
{
    fact_set_bool(fs, "torch.available", 0, SRC);
    fact_set_str(fs, "torch.why", why, SRC);
    if (!fact_get(fs, "torch.error"))
        fact_set_str(fs, "torch.error", "", SRC); /* absent, not broken */
}

int probe_torch_run(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    const struct fact *ex = fact_get(fs, "python.executable");
    const char *exe = ctx->opts && ctx->opts->python ? ctx->opts->python
                      : ex && ex->type == FACT_STR   ? ex->s
                                                     : NULL;
    const struct fact *tp = fact_get(fs, "python.torch_present");
    int explicit_python = ctx->opts && ctx->opts->python;
    /* a recorded machine is data: its python.executable names a file of the
     * recorded machine, never a program to run here (issue 30). Only an
     * interpreter the user names with --python runs, and its figures are
     * this host's (torch.measured_on) */
    if (!rootfs_is_live() && !explicit_python) {
        unavailable(fs, PROBE_LIVE_ONLY " (--python PATH runs an interpreter of this host)");
        fact_set_str(fs, "torch.measured_on", "", SRC);
        return 0;
    }
    fact_set_str(fs, "torch.measured_on",
                 rootfs_is_live()
                     ? "the live machine"
                     : "this host, not the recorded machine (--python under --sysroot)",
                 SRC);
    if (!rootfs_is_live())
        warning("--python %s under --sysroot: the torch.* figures are this host's, not the "
                "recorded machine's",
                exe);
    if (!exe || !*exe) {
        unavailable(fs, "no Python interpreter found (python.executable)");
        return 0;
    }
    if (!explicit_python && tp && tp->type == FACT_BOOL && !tp->b) {
        unavailable(fs, "torch is not installed in the Python found (python.torch_present)");
        return 0;
    }
    return probe_torch_collect(fs, exe,
                               ctx->opts && ctx->opts->vla_preset ? ctx->opts->vla_preset : "pi0",
                               budget_s(probe_ctx_checks(ctx)));
}

void probe_torch_answer(struct factset *fs, const char *exe, const char *why, struct strbuf *out,
                        struct strbuf *err, const float *doc, size_t ndoc)
{
    char jerr[200];
    struct json *j = !why && out->buf ? json_parse(out->buf, out->len, jerr, sizeof(jerr)) : NULL;
    if (why) {
        char *m = xasprintf("%s %s: %s%s%s", exe, "torch_probe.py", why,
                            *last_line(err) ? "; last stderr line: " : "", last_line(err));
        unavailable(fs, m);
        fact_set_str(fs, "torch.error", m, SRC);
        free(m);
    } else if (!j || j->type != JSON_OBJ) {
        char *m = xasprintf("the answer is not a JSON object: %s", j          ? "not an object"
                                                                   : out->buf ? jerr
                                                                              : "empty output");
        unavailable(fs, m);
        fact_set_str(fs, "torch.error", m, SRC);
        free(m);
    } else {
        fact_set_str(fs, "torch.error", "", SRC);
        answer_facts(fs, j, doc, ndoc);
    }
    json_free(j);
}

/* a bare name is looked up on PATH: execve needs a path */
static char *find_exe(const char *exe)
{
    if (strchr(exe, '/'))
        return xasprintf("%s", exe);
    const char *path = getenv("PATH");
    struct strlist dirs = STRLIST_INIT;
    strlist_split(&dirs, path ? path : "/usr/bin:/bin", ":");
    char *found = NULL;
    for (size_t i = 0; i < dirs.n && !found; i++) {
        char *c = xasprintf("%s/%s", dirs.v[i][0] ? dirs.v[i] : ".", exe);
        if (access(c, X_OK) == 0)
            found = c;
        else
            free(c);
    }
    strlist_release(&dirs);
    return found ? found : xasprintf("%s", exe);
}

int probe_torch_collect(struct factset *fs, const char *exe_in, const char *want, double budget)
{
    char *exe_path = find_exe(exe_in);
    const char *exe = exe_path;
    struct vla_preset p, tiny;
    memset(&tiny, 0, sizeof(tiny));
    if (vla_preset_find(&p, want, NULL)) {
        vla_preset_release(&p);
        unavailable(fs, "the preset does not load (see the error above)");
        free(exe_path);
        return 0;
    }
    char *tmpl = tmpdirs_template("rvd-torch-"); /* under $TMPDIR */
    char *dir = tmpdirs_make(tmpl);
    if (!dir) {
        free(tmpl);
        vla_preset_release(&p);
        unavailable(fs, "cannot make a private temporary directory");
        free(exe_path);
        return 0;
    }
    char *script = xasprintf("%s/torch_probe.py", dir), *layout = xasprintf("%s/layout.json", dir);
    char *wpath = xasprintf("%s/tiny.safetensors", dir), *lj = layout_json(&p);
    char *pp = preset_path(&p, dir, "preset"), *tp_path = NULL;
    float *doc = NULL;
    size_t ndoc = 0;
    int have_shared = vla_preset_find(&tiny, "tiny", NULL) == 0 &&
                      (tp_path = preset_path(&tiny, dir, "shared")) != NULL &&
                      doctor_shared(&tiny, wpath, &doc, &ndoc) == 0;
    if (!have_shared) {
        free(doc);
        doc = NULL;
    }
    /* an installed copy runs its share/rocm-vla-doctor/torch_probe.py; a
     * binary in a build tree (or copied alone) writes its built-in one */
    char *installed = datadir_file("torch_probe.py");
    if (!lj || !pp ||
        (!installed && write_all(script, rvd_torch_probe_py,
                                 (size_t)(rvd_torch_probe_py_end - rvd_torch_probe_py))) ||
        write_all(layout, lj, strlen(lj))) {
        unavailable(fs, "cannot write the probe's files into its temporary directory");
    } else {
        char *argv[16];
        int a = 0;
        argv[a++] = (char *)exe;
        argv[a++] = installed ? installed : script;
        argv[a++] = (char *)"--probe";
        argv[a++] = (char *)"--preset";
        argv[a++] = pp;
        argv[a++] = (char *)"--layout";
        argv[a++] = layout;
        if (have_shared) {
            argv[a++] = (char *)"--shared-preset";
            argv[a++] = tp_path;
            argv[a++] = (char *)"--shared-weights";
            argv[a++] = wpath;
        }
        argv[a] = NULL;
        struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
        int timed_out = 0;
        double t0 = util_mono_s();
        char *why =
            run_child(argv, budget > 0 ? budget : TORCH_DEFAULT_BUDGET_S, &out, &err, &timed_out);
        fact_set_float(fs, "torch.wall_s", util_mono_s() - t0, SRC);
        fact_set_bool(fs, "torch.timed_out", timed_out, SRC);
        /* the raw answer, for the docs' record of which kernels ran */
        const char *dump = getenv("ROCM_VLA_DOCTOR_TORCH_JSON");
        if (dump && *dump && out.buf)
            write_all(dump, out.buf, out.len);
        probe_torch_answer(fs, exe, why, &out, &err, doc, ndoc);
        free(why);
        strbuf_release(&out);
        strbuf_release(&err);
    }
    unlink(script);
    unlink(layout);
    unlink(wpath);
    if (pp && strncmp(pp, dir, strlen(dir)) == 0)
        unlink(pp);
    if (tp_path && strncmp(tp_path, dir, strlen(dir)) == 0)
        unlink(tp_path);
    rmdir(dir);
    tmpdirs_forget(dir);
    free(tmpl);
    free(installed);
    free(script);
    free(layout);
    free(wpath);
    free(lj);
    free(pp);
    free(tp_path);
    free(doc);
    vla_preset_release(&p);
    vla_preset_release(&tiny);
    free(exe_path);
    return 0;
}
