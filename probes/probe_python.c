/* probe_python.c - the Python environment: interpreter, torch build, CUDA
 * packages, and the requirements file given with --requirements.
 *
 * The interpreter is asked once (query "python") with a fixed script that
 * never imports torch: importing torch takes seconds and may initialise a
 * GPU. The script prints key=value lines: executable, version, prefix,
 * torch_dir and pip_dir (from importlib.util.find_spec, which locates a
 * package without running it) and one dist=<name> <version> line per
 * installed distribution. The probe then reads <torch_dir>/version.py through rootfs,
 * so collect records it and a replay reads the same file. */
#include "../src/core/children.h"
#include "probe.h"
#include "probe_python.h"
#include "probe_python_shim.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int probe_python_run(struct probe_ctx *ctx);

#define PYTHON_TIMEOUT_MS 10000
#define PYTHON_DRAIN_MS 500 /* read on this long after the interpreter exits */
#define PYTHON_MAX_OUTPUT (4u << 20)
#define PYTHON_DEFAULT "python3"

/* Python 3.8+. Writes UTF-8 bytes so that a name outside the locale's
 * charset cannot make the script fail. Names are normalised as PEP 503
 * says; the first of duplicate distributions on sys.path wins, as it does
 * for imports.
 *
 * The answer is the one a plain `python3 -c` with importlib.metadata gives,
 * computed faster (issue 25: ~0.6 s of a 0.7 s quick level went here):
 *  - run with -S, then site.main() with site's `exec` shadowed: sys.path,
 *    the venv prefix, user site, .pth path lines and sitecustomize are as
 *    at a normal start, but the `import` lines of .pth files (certifi CA
 *    hooks, distutils shims: most of a large environment's start-up) are
 *    only recorded, not run;
 *  - the version without `platform` (it imports re, enum, collections),
 *    torch's spec through importlib's own _find_spec (importlib.util pulls
 *    contextlib and collections);
 *  - dist-info/egg-info directories listed with os.listdir and their
 *    METADATA header read directly, in importlib.metadata's order and
 *    with its file fallbacks (METADATA, PKG-INFO, the entry itself), not
 *    through importlib.metadata (email, zipfile, pathlib, csv imports).
 * The recorded .pth lines run after all when torch is not found and they
 * may be what makes it importable: a torch distribution is listed (an
 * editable install's finder), or a line names sys.path, addsitedir or
 * meta_path; then the distributions come from importlib.metadata as
 * before, which also covers a zip file on sys.path. */
static const char python_script[] =
    "import sys, os\n"
    "def out(k, v):\n"
    "    v = str(v).replace('\\n', ' ').replace('\\r', ' ')\n"
    "    sys.stdout.buffer.write((k + '=' + v + '\\n').encode('utf-8', 'replace'))\n"
    "skipped = []\n"
    /* a failing site.main() fails the script, as it fails a normal start */
    "import site\n"
    "site.exec = lambda line, *a: skipped.append(line)\n"
    /* a normal start inserts -c's '' after site ran: site would make it absolute */
    "head = sys.path[:1] == ['']\n"
    "if head:\n"
    "    del sys.path[0]\n"
    "try:\n"
    "    site.main()\n"
    "finally:\n"
    "    del site.exec\n"
    "if head:\n"
    "    sys.path.insert(0, '')\n"
    "out('executable', sys.executable)\n"
    "v = sys.version\n"
    "i = 0\n"
    "while i < len(v) and (v[i].isalnum() or v[i] in '_.+'):\n"
    "    i += 1\n"
    "if not i:\n"
    "    import platform\n"
    "out('version', v[:i] if i else platform.python_version())\n"
    "out('prefix', sys.prefix)\n"
    "out('base_prefix', getattr(sys, 'base_prefix', sys.prefix))\n"
    "try:\n"
    "    import sysconfig\n"
    "    out('stdlib', sysconfig.get_path('stdlib'))\n"
    "except Exception as e:\n"
    "    out('stdlib_error', '%s: %s' % (type(e).__name__, e))\n"
    "def spec_dir(name):\n"
    "    import importlib\n"
    "    b = getattr(importlib, '_bootstrap', None)\n"
    "    if name in sys.modules or not hasattr(b, '_find_spec'):\n"
    "        import importlib.util\n"
    "        s = importlib.util.find_spec(name)\n"
    "    else:\n"
    "        s = b._find_spec(name, None)\n"
    "    o = getattr(s, 'origin', None)\n"
    "    return os.path.dirname(os.path.abspath(o)) if o and os.path.isfile(o) else ''\n"
    "def field(text, key):\n"
    "    for line in text.split('\\n'):\n"
    "        if not line:\n"
    "            break\n"
    "        k, c, v = line.partition(':')\n"
    "        if c and k.lower() == key:\n"
    "            return v.lstrip(' \\t')\n"
    "    return None\n"
    "def read(p, name):\n"
    "    try:\n"
    "        with open(os.path.join(p, name) if name else p, encoding='utf-8') as f:\n"
    "            return f.read()\n"
    "    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):\n"
    "        return None\n"
    "def scan():\n"
    "    if sys.version_info < (3, 8):\n"
    "        return None\n" /* importlib.metadata's ImportError stays the answer */
    "    found = []\n"
    "    for entry in sys.path:\n"
    /* 3.8's importlib.metadata lists '' itself: nothing */
    "        root = entry or ('.' if sys.version_info >= (3, 9) else '')\n"
    "        if os.path.exists(root) and not os.path.isdir(root):\n"
    "            return None\n"
    "        try:\n"
    "            names = os.listdir(root)\n"
    "        except OSError:\n"
    "            continue\n"
    "        egg = root.lower().endswith('.egg')\n"
    "        for c in names:\n"
    "            low = c.lower()\n"
    "            if low.endswith(('.dist-info', '.egg-info')) or (egg and low == 'egg-info'):\n"
    "                p = os.path.join(root, c)\n"
    "                t = read(p, 'METADATA') or read(p, 'PKG-INFO') or read(p, '') or ''\n"
    "                found.append((field(t, 'name'), field(t, 'version')))\n"
    "    return found\n"
    "try:\n"
    "    td = spec_dir('torch')\n"
    "except Exception as e:\n"
    "    td = e\n"
    "dists = scan()\n"
    "if td == '' and skipped and (dists is None or any(n and n.lower() == 'torch' for n, v in "
    "dists)\n"
    "        or any(w in l for l in skipped for w in ('sys.path', 'addsitedir', 'meta_path'))):\n"
    "    for l in skipped:\n"
    "        try:\n"
    "            exec(l, vars(site), {})\n"
    "        except Exception:\n"
    "            pass\n"
    "    dists = None\n"
    "    try:\n"
    "        td = spec_dir('torch')\n"
    "    except Exception as e:\n"
    "        td = e\n"
    "if isinstance(td, Exception):\n"
    "    out('torch_error', '%s: %s' % (type(td).__name__, td))\n"
    "else:\n"
    "    out('torch_dir', td)\n"
    /* `python -m pip` needs an importable pip package: located, not run */
    "try:\n"
    "    out('pip_dir', spec_dir('pip'))\n"
    "except Exception as e:\n"
    "    out('pip_error', '%s: %s' % (type(e).__name__, e))\n"
    "try:\n"
    "    if dists is None:\n"
    "        import importlib.metadata as md\n"
    "        dists = [(d.metadata['Name'], d.version) for d in md.distributions()]\n"
    "    seen = {}\n"
    "    for n, v in dists:\n"
    "        if n:\n"
    "            k = ''.join('-' if ch in '-_.' else ch for ch in n.lower())\n"
    "            while '--' in k:\n"
    "                k = k.replace('--', '-')\n"
    "            seen.setdefault(k, v)\n"
    "    for n in sorted(seen):\n"
    "        out('dist', '%s %s' % (n, seen[n]))\n"
    "except Exception as e:\n"
    "    out('dist_error', '%s: %s' % (type(e).__name__, e))\n"
    "sys.stdout.flush()\n";

/* ---- torch/version.py ------------------------------------------------- */

/* `name = 'x'`, `name: Optional[str] = "x"` or `name = None` at the start
 * of a line; *out is NULL for None. 1 when the line assigns name. */
static int python_assignment(const char *line, const char *name, char **out)
{
    size_t n = strlen(name);
    if (strncmp(line, name, n) != 0)
        return 0;
    const char *p = line + n;
    p += strspn(p, " \t");
    if (*p == ':') /* annotation */
        p += strcspn(p, "=\n");
    if (*p != '=')
        return 0;
    p++;
    p += strspn(p, " \t");
    *out = NULL;
    if (*p == '\'' || *p == '"') {
        const char *end = strchr(p + 1, *p);
        if (!end || memchr(p + 1, '\n', (size_t)(end - p - 1)))
            return 0;
        *out = xstrndup(p + 1, (size_t)(end - p - 1));
    } else if (strncmp(p, "None", 4) != 0) {
        return 0; /* computed, not a literal: leave it */
    }
    return 1;
}

int python_parse_torch_version(const char *text, struct python_torch_version *out)
{
    memset(out, 0, sizeof(*out));
    for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char *v;
        if (python_assignment(line, "__version__", &v)) {
            free(out->version);
            out->version = v;
        } else if (python_assignment(line, "hip", &v)) {
            free(out->hip);
            out->hip = v;
        } else if (python_assignment(line, "cuda", &v)) {
            free(out->cuda);
            out->cuda = v;
        }
    }
    if (!out->version) {
        python_torch_version_release(out);
        return -EINVAL;
    }
    if (out->hip && !*out->hip) {
        free(out->hip);
        out->hip = NULL;
    }
    if (out->cuda && !*out->cuda) {
        free(out->cuda);
        out->cuda = NULL;
    }
    return 0;
}

void python_torch_version_release(struct python_torch_version *v)
{
    free(v->version);
    free(v->hip);
    free(v->cuda);
    memset(v, 0, sizeof(*v));
}

/* a "+rocm..." local version without a hip string still is a ROCm build
 * (some TheRock/rocmsdk builds) */
static const char *python_local_version(const struct python_torch_version *v)
{
    const char *plus = v->version ? strchr(v->version, '+') : NULL;
    return plus ? plus + 1 : "";
}

const char *python_torch_build(const struct python_torch_version *v)
{
    if (v->hip)
        return "rocm";
    if (v->cuda)
        return "cuda";
    if (str_starts(python_local_version(v), "rocm"))
        return "rocm";
    return "cpu";
}

/* "6.0" from "6.0.32830-d62f6a171", or from the local version "rocm6.0" */
char *python_torch_hip_series(const struct python_torch_version *v)
{
    const char *s = v->hip;
    if (!s) {
        const char *local = python_local_version(v);
        if (!str_starts(local, "rocm"))
            return NULL;
        s = local + 4;
    }
    unsigned maj, min;
    if (sscanf(s, "%u.%u", &maj, &min) != 2)
        return NULL;
    if (!v->hip && maj > 99) /* rocmsdk20251116 is a date, not a series */
        return NULL;
    return xasprintf("%u.%u", maj, min);
}

/* ---- installed distributions ------------------------------------------ */

/* python.nvidia_packages lists the distributions that only exist for NVIDIA
 * GPUs (requirements_cuda_name): nvidia-* (except nvidia-ml-py, the NVML
 * binding of monitoring tools), cupy-cuda*, any name with a -cuXX or
 * -cudaXX part (nvidia-cudnn-cu12, jax-cuda12-plugin, tensorrt-cu12-libs),
 * pytorch-triton (CUDA nightly), tensorrt, pycuda, onnxruntime-gpu,
 * cuda-python, cuda-bindings; and `triton` only next to
 * pytorch-triton-rocm. Not listed: flash-attn, xformers, bitsandbytes,
 * whose ROCm builds install under the same names. */

const char *python_dist_cuda_reason(const char *name, int have_triton_rocm)
{
    /* the CUDA wheel of torch depends on `triton`; ROCm torch depends on
     * pytorch-triton-rocm, which ships the same top-level `triton` module,
     * so with both installed one has overwritten the other's files */
    if (strcmp(name, "triton") == 0)
        return have_triton_rocm ? "overwrites the triton module of pytorch-triton-rocm" : NULL;
    return requirements_cuda_name(name);
}

/* ---- the interpreter query -------------------------------------------- */

static const char *python_wanted; /* --python or PYTHON_DEFAULT, for the producer */

static int python_is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* a name with a '/' is used as given; otherwise search the recorded PATH
 * ourselves (no shell, no execvp: the PATH is the one the report shows) */
static int python_find(const char *want, char **out)
{
    if (strchr(want, '/')) {
        *out = xstrdup(want);
        return python_is_executable(want) ? 0 : -ENOENT;
    }
    const char *path = probe_getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;; p++) {
        size_t n = strcspn(p, ":");
        char *cand = xasprintf("%.*s/%s", (int)(n ? n : 1), n ? p : ".", want);
        if (python_is_executable(cand)) {
            *out = cand;
            return 0;
        }
        free(cand);
        p += n;
        if (!*p)
            break;
    }
    *out = NULL;
    return -ENOENT;
}

static long python_ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

extern char **environ;

/* Run exe -c python_script: stdin /dev/null, stderr discarded, stdout into
 * out. Killed, with its process group, after PYTHON_TIMEOUT_MS. Returns
 * NULL or why it failed. */
static char *python_exec(const char *exe, struct strbuf *out)
{
    int outp[2], errp[2];
    if (pipe2(outp, O_CLOEXEC) < 0)
        return xasprintf("pipe: %s", strerror(errno));
    if (pipe2(errp, O_CLOEXEC) < 0) {
        int e = errno;
        close(outp[0]);
        close(outp[1]);
        return xasprintf("pipe: %s", strerror(e));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(outp[0]);
        close(outp[1]);
        close(errp[0]);
        close(errp[1]);
        return xasprintf("fork: %s", strerror(e));
    }
    if (pid == 0) {
        setpgid(0, 0); /* its own group, so a timeout kills what it started too */
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
        }
        dup2(outp[1], STDOUT_FILENO);
        /* -S: the script runs site.main() itself (see python_script) */
        char *const argv[] = {(char *)exe, (char *)"-S", (char *)"-c", (char *)python_script, NULL};
        execve(exe, argv, environ);
        int e = errno;
        if (write(errp[1], &e, sizeof(e)) < 0)
            _exit(127);
        _exit(127);
    }
    setpgid(pid, pid); /* either side may win the race; both set the same group */
    children_add(pid);
    close(outp[1]);
    close(errp[1]);

    char *why = NULL;
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(errp[0], &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR)
        ;
    close(errp[0]);
    if (got == (ssize_t)sizeof(exec_errno))
        why = xasprintf("cannot run %s: %s", exe, strerror(exec_errno));

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int killed = 0, exited = 0, status = 0;
    long drain_end = 0;
    char buf[65536];
    /* the answer is taken when the interpreter exits plus a short drain,
     * not when the pipe closes: a grandchild may hold it open (issue 30) */
    while (!why) {
        long now = python_ms_since(&t0), left = PYTHON_TIMEOUT_MS - now;
        if (left <= 0) {
            killed = 1;
            break;
        }
        if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
            exited = 1;
            drain_end = now + PYTHON_DRAIN_MS;
        }
        if (exited && now >= drain_end)
            break;
        struct pollfd pfd = {outp[0], POLLIN, 0};
        int r = poll(&pfd, 1, (int)(left < 100 ? left : 100));
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            continue; /* the watchdog and the exit are checked above */
        if (r < 0) {
            why = xasprintf("poll: %s", strerror(errno));
            break;
        }
        ssize_t n = read(outp[0], buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (out->len + (size_t)n > PYTHON_MAX_OUTPUT) {
            why = xasprintf("%s wrote more than %u MiB", exe, PYTHON_MAX_OUTPUT >> 20);
            break;
        }
        strbuf_add(out, buf, (size_t)n);
    }
    close(outp[0]);
    if ((killed || why) && kill(-pid, SIGKILL) < 0)
        kill(pid, SIGKILL);
    while (!exited && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL); /* what it left behind in its group */
    children_forget(pid);
    if (killed && !why)
        why = xasprintf("%s did not answer within %d s", exe, PYTHON_TIMEOUT_MS / 1000);
    else if (!why && WIFSIGNALED(status))
        why = xasprintf("%s was killed by signal %d", exe, WTERMSIG(status));
    else if (!why && WIFEXITED(status) && WEXITSTATUS(status) != 0)
        why = xasprintf("%s -c exited with status %d", exe, WEXITSTATUS(status));
    return why;
}

/* The live producer. It always succeeds: an interpreter that cannot be run
 * is a state worth recording ("error=..."), not a failed query. */
static int python_live(struct strbuf *out)
{
    char *exe;
    if (python_find(python_wanted, &exe)) {
        strbuf_addf(out, "interpreter=%s\n", exe ? exe : python_wanted);
        if (strchr(python_wanted, '/'))
            strbuf_addf(out, "error=%s is not an executable file\n", python_wanted);
        else
            strbuf_addf(out, "error=%s not found on PATH\n", python_wanted);
        free(exe);
        return 0;
    }
    /* a pyenv shim costs a pyenv start per call: run what it would run */
    char cwd[4096], *choice = NULL;
    char *real = python_shim_resolve(exe, getcwd(cwd, sizeof(cwd)) ? cwd : "/", &choice);
    /* always both lines: a recorded query without them predates the
     * resolution, and its facts are unknown rather than "no shim" */
    strbuf_addf(out, "shim=%s\nshim_choice=%s\n", choice ? exe : "", choice ? choice : "");
    if (real) {
        free(exe);
        exe = real;
    }
    free(choice);
    strbuf_addf(out, "interpreter=%s\n", exe);
    struct strbuf answer = STRBUF_INIT;
    char *why = python_exec(exe, &answer);
    if (answer.len) {
        strbuf_add(out, answer.buf, answer.len);
        if (answer.buf[answer.len - 1] != '\n')
            strbuf_addc(out, '\n');
    }
    if (why)
        strbuf_addf(out, "error=%s\n", why);
    strbuf_release(&answer);
    free(why);
    free(exe);
    return 0;
}

/* ---- facts ------------------------------------------------------------ */

struct python_answer {
    char *interpreter, *error, *executable, *version, *prefix, *base_prefix;
    char *torch_dir, *torch_error, *dist_error, *stdlib, *stdlib_error;
    char *pip_dir, *pip_error, *shim, *shim_choice;
    int has_torch_dir, has_pip_dir;
    struct strlist dists; /* "name version" */
};

static void python_answer_parse(const char *text, struct python_answer *a)
{
    struct strlist lines = STRLIST_INIT;
    memset(a, 0, sizeof(*a));
    strlist_split(&lines, text, "\n");
    for (size_t i = 0; i < lines.n; i++) {
        char *l = lines.v[i];
        char *eq = strchr(l, '=');
        if (!eq)
            continue;
        *eq = '\0';
        const char *v = eq + 1;
        char **slot = NULL;
        if (strcmp(l, "dist") == 0) {
            strlist_add(&a->dists, v);
            continue;
        }
        if (strcmp(l, "interpreter") == 0)
            slot = &a->interpreter;
        else if (strcmp(l, "error") == 0)
            slot = &a->error;
        else if (strcmp(l, "executable") == 0)
            slot = &a->executable;
        else if (strcmp(l, "version") == 0)
            slot = &a->version;
        else if (strcmp(l, "prefix") == 0)
            slot = &a->prefix;
        else if (strcmp(l, "base_prefix") == 0)
            slot = &a->base_prefix;
        else if (strcmp(l, "torch_dir") == 0)
            slot = &a->torch_dir, a->has_torch_dir = 1;
        else if (strcmp(l, "torch_error") == 0)
            slot = &a->torch_error;
        else if (strcmp(l, "dist_error") == 0)
            slot = &a->dist_error;
        else if (strcmp(l, "stdlib") == 0)
            slot = &a->stdlib;
        else if (strcmp(l, "stdlib_error") == 0)
            slot = &a->stdlib_error;
        else if (strcmp(l, "pip_dir") == 0)
            slot = &a->pip_dir, a->has_pip_dir = 1;
        else if (strcmp(l, "pip_error") == 0)
            slot = &a->pip_error;
        else if (strcmp(l, "shim") == 0)
            slot = &a->shim;
        else if (strcmp(l, "shim_choice") == 0)
            slot = &a->shim_choice;
        if (slot) {
            free(*slot);
            *slot = xstrdup(v);
        }
    }
    strlist_release(&lines);
}

static void python_answer_release(struct python_answer *a)
{
    free(a->interpreter);
    free(a->error);
    free(a->executable);
    free(a->version);
    free(a->prefix);
    free(a->base_prefix);
    free(a->torch_dir);
    free(a->torch_error);
    free(a->dist_error);
    free(a->stdlib);
    free(a->stdlib_error);
    free(a->pip_dir);
    free(a->pip_error);
    free(a->shim);
    free(a->shim_choice);
    strlist_release(&a->dists);
}

/* the first two (torch_present, torch_dir) come from the query, the rest
 * from version.py: code below slices the array at 2 */
static const char *const python_torch_facts[] = {
    "python.torch_present",    "python.torch_dir",  "python.torch_version",
    "python.torch_build",      "python.torch_hip",  "python.torch_hip_series",
    "python.torch_hip_suffix", "python.torch_cuda",
};

static void python_unknown(struct factset *fs, const char *const *names, size_t n,
                           const char *source, const char *reason)
{
    for (size_t i = 0; i < n; i++)
        fact_set_unknown(fs, names[i], source, "%s", reason);
}

/* torch/version.py -> the torch facts (torch_present and torch_dir are set) */
static void python_torch_facts_set(struct factset *fs, const char *torch_dir)
{
    char *path = xasprintf("%s/version.py", torch_dir);
    char *text;
    int rc = rootfs_read_str(path, &text);
    if (rc) {
        for (size_t i = 2; i < ARRAY_SIZE(python_torch_facts); i++)
            fact_set_errno(fs, python_torch_facts[i], path, rc);
        free(path);
        return;
    }
    struct python_torch_version v;
    if (python_parse_torch_version(text, &v)) {
        python_unknown(fs, python_torch_facts + 2, ARRAY_SIZE(python_torch_facts) - 2, path,
                       "no __version__ string in torch/version.py");
        free(text);
        free(path);
        return;
    }
    free(text);
    const char *build = python_torch_build(&v);
    fact_set_str(fs, "python.torch_version", v.version, path);
    fact_set_str(fs, "python.torch_build", build, path);
    fact_set_str(fs, "python.torch_hip", v.hip ? v.hip : "", path);
    fact_set_str(fs, "python.torch_cuda", v.cuda ? v.cuda : "", path);
    char *series = python_torch_hip_series(&v);
    if (series)
        fact_set_str(fs, "python.torch_hip_series", series, path);
    else if (strcmp(build, "rocm") == 0)
        fact_set_unknown(fs, "python.torch_hip_series", path,
                         "no ROCm version in hip or __version__ ('%s')", v.version);
    else
        fact_set_unknown(fs, "python.torch_hip_series", path, "torch is a %s build, not ROCm",
                         build);
    free(series);
    if (v.hip) {
        /* "6.0.32830-d62f6a171" -> ", HIP 6.0.32830" (the hash says nothing to a user) */
        char *suffix = xasprintf(", HIP %.*s", (int)strcspn(v.hip, "-"), v.hip);
        fact_set_str(fs, "python.torch_hip_suffix", suffix, path);
        free(suffix);
    } else {
        fact_set_str(fs, "python.torch_hip_suffix", "", path);
    }
    python_torch_version_release(&v);
    free(path);
}

static void python_dists_facts_set(struct factset *fs, const struct python_answer *a,
                                   const char *src)
{
    if (a->dist_error) {
        fact_set_unknown(fs, "python.nvidia_packages", src, "cannot list distributions: %s",
                         a->dist_error);
        fact_set_unknown(fs, "python.dist_count", src, "cannot list distributions: %s",
                         a->dist_error);
        return;
    }
    int have_triton_rocm = 0;
    for (size_t i = 0; i < a->dists.n; i++)
        if (str_starts(a->dists.v[i], "pytorch-triton-rocm "))
            have_triton_rocm = 1;
    struct strlist cuda = STRLIST_INIT;
    for (size_t i = 0; i < a->dists.n; i++) {
        const char *d = a->dists.v[i];
        char *name = requirements_normalize_name(d, strcspn(d, " "));
        if (python_dist_cuda_reason(name, have_triton_rocm))
            strlist_add(&cuda, d);
        free(name);
    }
    fact_set_list(fs, "python.nvidia_packages", &cuda, src);
    fact_set_int(fs, "python.dist_count", (int64_t)a->dists.n, src);
    strlist_release(&cuda);
}

/* Whether <stdlib>/FILE exists, as fact NAME. Read through rootfs so that
 * collect records it and a replay reads the same. */
static void python_stdlib_file_fact(struct factset *fs, const struct python_answer *a,
                                    const char *src, const char *name, const char *file)
{
    if (!a->stdlib || !*a->stdlib) {
        if (a->stdlib_error)
            fact_set_unknown(fs, name, src, "sysconfig gave no stdlib path: %s", a->stdlib_error);
        else
            fact_set_unknown(fs, name, src,
                             "no stdlib path in the answer (recorded by an older doctor)");
        return;
    }
    char *path = xasprintf("%s/%s", a->stdlib, file);
    char *text = NULL;
    int rc = rootfs_read_str(path, &text);
    if (rc == 0 || rc == -ENOENT)
        fact_set_bool(fs, name, rc == 0, path);
    else
        fact_set_errno(fs, name, path, rc);
    free(text);
    free(path);
}

/* PEP 668: <stdlib>/EXTERNALLY-MANAGED marks a Python whose packages the
 * distribution owns (Debian 12, Ubuntu 23.04+); pip then refuses to install
 * outside a venv. Debian and Ubuntu also strip ensurepip from the system
 * Python into python3.X-venv, without which `python3 -m venv` fails: the
 * venv recipe of a fix first installs that package (python.venv_package). */
static void python_venv_facts(struct factset *fs, const struct python_answer *a, const char *src)
{
    python_stdlib_file_fact(fs, a, src, "python.externally_managed", "EXTERNALLY-MANAGED");
    python_stdlib_file_fact(fs, a, src, "python.ensurepip_present", "ensurepip/__init__.py");
    unsigned maj, min;
    if (a->version && sscanf(a->version, "%u.%u", &maj, &min) == 2) {
        char *pkg = xasprintf("python%u.%u-venv", maj, min);
        fact_set_str(fs, "python.venv_package", pkg, src);
        free(pkg);
    } else {
        fact_set_unknown(fs, "python.venv_package", src, "no major.minor version in the answer");
    }
}

/* Whether `python -m pip` can run: pip's package directory on sys.path
 * (the answer's pip_dir, '' when the lookup found none) or a pip
 * distribution among those listed. A minimal container Python, a venv made
 * with --without-pip or a distribution Python without python3-pip has
 * neither, and a printed `-m pip` fix fails with "No module named pip". */
static void python_pip_fact(struct factset *fs, const struct python_answer *a, const char *src)
{
    for (size_t i = 0; i < a->dists.n; i++)
        if (str_starts(a->dists.v[i], "pip ")) {
            fact_set_bool(fs, "python.pip_present", 1, src);
            return;
        }
    if (a->pip_error)
        fact_set_unknown(fs, "python.pip_present", src, "cannot look pip up: %s", a->pip_error);
    else if (!a->has_pip_dir)
        fact_set_unknown(fs, "python.pip_present", src,
                         "no pip_dir in the answer (recorded by an older doctor)");
    else
        fact_set_bool(fs, "python.pip_present", *a->pip_dir != '\0', src);
}

/* present, error and interpreter are known even without an interpreter:
 * code below slices the array at 3 */
static const char *const python_all_facts[] = {
    "python.present",           "python.error",        "python.interpreter",
    "python.executable",        "python.version",      "python.prefix",
    "python.nvidia_packages",   "python.dist_count",   "python.externally_managed",
    "python.ensurepip_present", "python.venv_package", "python.pip_present",
};

static void python_interpreter_facts(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    const char *qsrc = ROOTFS_SNAPSHOT_DIR "/python";
    char *text;

    python_wanted = ctx->opts && ctx->opts->python ? ctx->opts->python : PYTHON_DEFAULT;
    int rc = rootfs_query("python", python_live, &text);
    if (rc) {
        for (size_t i = 0; i < ARRAY_SIZE(python_all_facts); i++)
            fact_set_errno(fs, python_all_facts[i], qsrc, rc);
        fact_set_errno(fs, "python.interpreter_shim", qsrc, rc);
        fact_set_errno(fs, "python.interpreter_choice", qsrc, rc);
        for (size_t i = 0; i < ARRAY_SIZE(python_torch_facts); i++)
            fact_set_errno(fs, python_torch_facts[i], qsrc, rc);
        char *why = xasprintf("the python query failed: %s", strerror(-rc));
        python_env_facts(fs, qsrc, NULL, NULL, NULL, NULL, why);
        python_wheel_fact(fs, probe_ctx_checks(ctx), NULL);
        free(why);
        return;
    }
    struct python_answer a;
    python_answer_parse(text, &a);
    free(text);

    const char *interp = a.interpreter ? a.interpreter : python_wanted;
    char *src = xasprintf("%s -c (importlib)", interp);
    fact_set_str(fs, "python.interpreter", interp, src);
    if (a.shim && a.shim_choice) {
        fact_set_str(fs, "python.interpreter_shim", a.shim, src);
        fact_set_str(fs, "python.interpreter_choice", a.shim_choice, src);
    } else {
        fact_set_unknown(fs, "python.interpreter_shim", src,
                         "recorded before the pyenv shim resolution");
        fact_set_unknown(fs, "python.interpreter_choice", src,
                         "recorded before the pyenv shim resolution");
    }
    if (!a.error && !a.executable)
        a.error = xasprintf("%s gave no answer", interp);
    if (a.error) {
        fact_set_bool(fs, "python.present", 0, src);
        fact_set_str(fs, "python.error", a.error, src);
        char *reason = xasprintf("no Python interpreter: %s", a.error);
        /* everything after present/error/interpreter */
        python_unknown(fs, python_all_facts + 3, ARRAY_SIZE(python_all_facts) - 3, src, reason);
        python_unknown(fs, python_torch_facts, ARRAY_SIZE(python_torch_facts), src, reason);
        python_env_facts(fs, src, NULL, NULL, NULL, NULL, reason);
        free(reason);
        goto out;
    }
    fact_set_bool(fs, "python.present", 1, src);
    fact_set_str(fs, "python.error", "", src);
    fact_set_str(fs, "python.executable", a.executable, src);
    if (a.version)
        fact_set_str(fs, "python.version", a.version, src);
    else
        fact_set_unknown(fs, "python.version", src, "no version in the answer");
    if (a.prefix)
        fact_set_str(fs, "python.prefix", a.prefix, src);
    else
        fact_set_unknown(fs, "python.prefix", src, "no prefix in the answer");
    python_dists_facts_set(fs, &a, src);
    python_venv_facts(fs, &a, src);
    python_pip_fact(fs, &a, src);

    if (a.torch_error || !a.has_torch_dir) {
        char *reason = a.torch_error ? xasprintf("cannot look torch up: %s", a.torch_error)
                                     : xstrdup("no torch_dir in the answer");
        python_unknown(fs, python_torch_facts, ARRAY_SIZE(python_torch_facts), src, reason);
        free(reason);
    } else if (!*a.torch_dir) {
        fact_set_bool(fs, "python.torch_present", 0, src);
        fact_set_str(fs, "python.torch_dir", "", src);
        char *reason = xasprintf("torch is not installed for %s", a.executable);
        python_unknown(fs, python_torch_facts + 2, ARRAY_SIZE(python_torch_facts) - 2, src, reason);
        free(reason);
    } else {
        fact_set_bool(fs, "python.torch_present", 1, src);
        fact_set_str(fs, "python.torch_dir", a.torch_dir, src);
        python_torch_facts_set(fs, a.torch_dir);
    }
    python_env_facts(fs, src, a.prefix, a.base_prefix, a.version,
                     a.has_torch_dir && a.torch_dir && *a.torch_dir ? a.torch_dir : NULL, NULL);
out:
    python_wheel_fact(fs, probe_ctx_checks(ctx), a.error ? NULL : a.version);
    free(src);
    python_answer_release(&a);
}

/* ---- --requirements FILE ---------------------------------------------- */

static void python_requirements_facts(struct probe_ctx *ctx)
{
    struct factset *fs = ctx->facts;
    const char *path = ctx->opts ? ctx->opts->requirements : NULL;
    if (!path) {
        fact_set_bool(fs, "python.requirements_given", 0, "--requirements");
        return;
    }
    fact_set_bool(fs, "python.requirements_given", 1, "--requirements");
    fact_set_str(fs, "python.requirements_file", path, "--requirements");
    char *text;
    size_t len;
    int rc = requirements_read_file(path, &text, &len);
    if (rc) {
        const char *names[] = {"python.requirements_count", "python.requirements_cuda",
                               "python.requirements_unfollowed", "python.requirements_torch_pin"};
        for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
            if (rc == -EFBIG)
                fact_set_unknown(fs, names[i], path, "%s is larger than %u MiB", path,
                                 REQUIREMENTS_MAX_FILE >> 20);
            else
                fact_set_unknown(fs, names[i], path, "cannot read %s: %s", path,
                                 user_file_strerror(rc));
        }
        return;
    }
    struct requirements_scan scan = REQUIREMENTS_SCAN_INIT;
    requirements_scan_text(text, len, &scan);
    free(text);
    fact_set_int(fs, "python.requirements_count", scan.count, path);
    fact_set_list(fs, "python.requirements_cuda", &scan.cuda, path);
    fact_set_list(fs, "python.requirements_unfollowed", &scan.unfollowed, path);
    if (scan.torch_pin)
        fact_set_str(fs, "python.requirements_torch_pin", scan.torch_pin, path);
    else
        fact_set_unknown(fs, "python.requirements_torch_pin", path, "no exact torch== pin");
    requirements_scan_release(&scan);
}

int probe_python_run(struct probe_ctx *ctx)
{
    /* the requirements first: the wheel index choice reads their torch pin */
    python_requirements_facts(ctx);
    python_interpreter_facts(ctx);
    return 0;
}
