/* probe_requirements.c - CUDA-only pins in a pip requirements file.
 *
 * The file is the user's own (--requirements FILE), not a system file, so it
 * is read with plain stdio and never recorded into a snapshot. The parser
 * follows pip's file format closely enough for real project files: "\"
 * continuations are joined first, then " #" comments are cut; options
 * (-r, -c, -i, --extra-index-url, -f, -e) are recognised; environment
 * markers after ';' and per-requirement options (--hash) are not part of the
 * name or version. Included files (-r, -c) are listed, never opened: the
 * tool reads only what the user named. */
#include "probe_python.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Packages whose every build is for NVIDIA GPUs, whatever the version. */
static const struct {
    const char *name;
    const char *why;
} req_cuda_only[] = {
    {"tensorrt", "NVIDIA TensorRT runs on NVIDIA GPUs only; AMD's counterpart is MIGraphX"},
    {"pycuda", "CUDA driver bindings, no ROCm backend"},
    {"onnxruntime-gpu", "ONNX Runtime's CUDA build; the AMD one is onnxruntime-rocm"},
    {"cuda-python", "NVIDIA's CUDA Python bindings"},
    {"cuda-bindings", "NVIDIA's CUDA Python bindings"},
    {"pytorch-triton", "the Triton of CUDA nightly torch; ROCm torch uses pytorch-triton-rocm"},
};

/* nvidia-* names that carry no CUDA libraries: the NVML binding that
 * monitoring tools (gpustat, nvitop) pull in, harmless on an AMD host */
static const char *const req_nvidia_harmless[] = {"nvidia-ml-py", "nvidia-ml-py3"};

/* first ROCm-capable release of bitsandbytes on PyPI: 0.46 documents ROCm
 * as "work in progress", 0.48 as experimental, 0.50 as supported */
static const int req_bnb_rocm_min[4] = {0, 48, 0, 0};

char *requirements_normalize_name(const char *name, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (c == '-' || c == '_' || c == '.') {
            if (sb.len == 0 || sb.buf[sb.len - 1] != '-')
                strbuf_addc(&sb, '-');
            continue;
        }
        strbuf_addc(&sb, (char)tolower((unsigned char)c));
    }
    if (!sb.buf)
        strbuf_add(&sb, "", 0);
    return strbuf_detach(&sb);
}

/* "cu12", "cu118", "cuda12", "cuda12x" */
static int req_is_cuda_tag(const char *s, size_t n)
{
    size_t i = 0;
    if (n < 3 || strncmp(s, "cu", 2) != 0)
        return 0;
    i = 2;
    if (n >= 5 && strncmp(s + 2, "da", 2) == 0)
        i = 4;
    size_t digits = 0;
    while (i < n && isdigit((unsigned char)s[i])) {
        i++;
        digits++;
    }
    if (i < n && s[i] == 'x')
        i++;
    return digits > 0 && i == n;
}

const char *requirements_cuda_name(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(req_nvidia_harmless); i++)
        if (strcmp(name, req_nvidia_harmless[i]) == 0)
            return NULL;
    for (size_t i = 0; i < ARRAY_SIZE(req_cuda_only); i++)
        if (strcmp(name, req_cuda_only[i].name) == 0)
            return req_cuda_only[i].why;
    if (str_starts(name, "nvidia-"))
        return "NVIDIA CUDA package";
    if (str_starts(name, "cupy-cuda"))
        return "CuPy built for CUDA";
    /* a -cu12 / -cuda12 segment after the first: nvidia-cudnn-cu12,
     * jax-cuda12-plugin, tensorrt-cu12-libs */
    const char *seg = strchr(name, '-');
    while (seg) {
        seg++;
        size_t n = strcspn(seg, "-");
        if (req_is_cuda_tag(seg, n))
            return "a package built for CUDA (its name carries the CUDA version)";
        seg = strchr(seg, '-');
    }
    return NULL;
}

/* ---- helpers on one requirement --------------------------------------- */

static char *req_lower(const char *s)
{
    char *l = xstrdup(s);
    for (char *p = l; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return l;
}

/* "+cu121" / "%2Bcu121" / "+cuda12.cudnn89": a CUDA local version; returns
 * the tag ("cu121") in a static-size buffer */
static const char *req_local_cuda(const char *lower, char tag[32])
{
    for (const char *p = lower; *p; p++) {
        const char *t = NULL;
        if (*p == '+')
            t = p + 1;
        else if (strncmp(p, "%2b", 3) == 0)
            t = p + 3;
        if (!t || strncmp(t, "cu", 2) != 0)
            continue;
        const char *d = t + 2;
        if (strncmp(d, "da", 2) == 0)
            d += 2;
        if (!isdigit((unsigned char)*d))
            continue;
        size_t n = (size_t)(d - t) + strspn(d, "0123456789");
        snprintf(tag, 32, "%.*s", (int)(n > 30 ? 30 : n), t);
        return tag;
    }
    return NULL;
}

/* an index or wheel URL that serves CUDA builds */
static const char *req_url_cuda(const char *url)
{
    char *l = req_lower(url);
    const char *why = NULL;
    char tag[32];
    if (strstr(l, "pypi.nvidia.com") || strstr(l, "pypi.ngc.nvidia.com"))
        why = "NVIDIA's package index";
    else if (req_local_cuda(l, tag))
        why = "a CUDA wheel (local version +cu)";
    const char *p = strstr(l, "://");
    for (p = p ? strchr(p + 3, '/') : NULL; !why && p; p = strchr(p + 1, '/')) {
        /* a path segment /cu124 (download.pytorch.org/whl/cu124, whl/nightly/cu126) */
        size_t n = strcspn(p + 1, "/?#");
        if (req_is_cuda_tag(p + 1, n))
            why = "a CUDA wheel index";
    }
    if (!why && (p = strstr(l, "://")) && strstr(p, "cuda"))
        why = "a CUDA wheel index"; /* jax_cuda_releases.html and the like */
    free(l);
    return why;
}

/* "0.41.2" -> {0, 41, 2, 0}; stops at the first non-numeric part */
static void req_version_parse(const char *s, int v[4])
{
    memset(v, 0, 4 * sizeof(int));
    for (int i = 0; i < 4 && isdigit((unsigned char)*s); i++) {
        v[i] = (int)strtol(s, (char **)&s, 10);
        if (*s != '.')
            break;
        s++;
    }
}

static int req_version_cmp(const int a[4], const int b[4])
{
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* Does the specifier list ("==0.41.1", ">=0.39,<0.42") allow only versions
 * below min? Pins (==, ===, ~=, <=) below min and upper bounds (<) at or
 * below min do; no specifier or a lower bound only does not. */
static int req_spec_below(const char *spec, const int min[4])
{
    const char *p = spec;
    while (*p) {
        p += strspn(p, " \t,()");
        if (!*p)
            break;
        size_t oplen = strspn(p, "=~!<>");
        char op[4] = "";
        snprintf(op, sizeof(op), "%.*s", (int)(oplen > 3 ? 3 : oplen), p);
        p += oplen;
        p += strspn(p, " \t");
        int v[4];
        req_version_parse(p, v);
        p += strcspn(p, ",)");
        int cmp = req_version_cmp(v, min);
        if ((strcmp(op, "==") == 0 || strcmp(op, "===") == 0 || strcmp(op, "~=") == 0 ||
             strcmp(op, "<=") == 0) &&
            cmp < 0)
            return 1;
        if (strcmp(op, "<") == 0 && cmp <= 0)
            return 1;
    }
    return 0;
}

struct req_file_state {
    int rocm_index; /* the file points pip at a ROCm PyTorch index */
};

/* why one requirement (no options, no comment) pins CUDA, or NULL */
static const char *req_requirement_cuda(const char *req, const struct req_file_state *st)
{
    static char why_buf[160];
    char *spec = xstrndup(req, strcspn(req, ";")); /* environment markers */
    char *lower = req_lower(spec);
    const char *why = NULL;
    char tag[32];
    char *name = NULL;

    if (req_local_cuda(lower, tag)) {
        snprintf(why_buf, sizeof(why_buf), "local version +%s is a CUDA build", tag);
        why = why_buf;
    } else if (strstr(lower, "://")) {
        why = req_url_cuda(lower);
    }

    /* the name: "pkg[extra]>=1", "pkg @ url", or a wheel file or URL */
    const char *p = spec;
    size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
    if (n && (isspace((unsigned char)p[n]) || strchr("[=<>~!(@", p[n]) || !p[n])) {
        name = requirements_normalize_name(p, n);
        p += n;
    } else {
        const char *base = strrchr(spec, '/');
        base = base ? base + 1 : spec;
        if (str_ends(spec, ".whl") && strchr(base, '-'))
            name = requirements_normalize_name(base, strcspn(base, "-"));
        p = "";
    }
    p += strspn(p, " \t");
    if (!why && *p == '[') {
        /* jax[cuda12]: an extra that pulls NVIDIA wheels */
        size_t e = strcspn(p, "]");
        char *raw = xstrndup(p + 1, e > 0 ? e - 1 : 0);
        char *extras = req_lower(raw);
        free(raw);
        struct strlist l = STRLIST_INIT;
        strlist_split(&l, extras, ", \t");
        for (size_t i = 0; i < l.n && !why; i++) {
            if (strstr(l.v[i], "cuda") || req_is_cuda_tag(l.v[i], strlen(l.v[i]))) {
                snprintf(why_buf, sizeof(why_buf), "extra [%s] installs NVIDIA CUDA wheels",
                         l.v[i]);
                why = why_buf;
            }
        }
        strlist_release(&l);
        free(extras);
    }
    if (*p == '[')
        p += strcspn(p, "]") + (strchr(p, ']') ? 1 : 0);

    if (!why && name)
        why = requirements_cuda_name(name);
    /* packages that have ROCm builds under the same name, but not on PyPI */
    if (!why && name && !strstr(lower, "+rocm")) {
        if (strcmp(name, "flash-attn") == 0)
            why = "prebuilt flash-attn wheels are CUDA-only; on ROCm build ROCm/flash-attention";
        else if (strcmp(name, "xformers") == 0 && !st->rocm_index)
            why = "PyPI xformers wheels are CUDA builds; ROCm ones come from "
                  "download.pytorch.org/whl/rocmX.Y";
        else if (strcmp(name, "bitsandbytes") == 0 && *p != '@' &&
                 req_spec_below(p, req_bnb_rocm_min))
            why = "bitsandbytes before 0.48 has no ROCm backend";
    }
    free(name);
    free(lower);
    free(spec);
    return why;
}

/* ---- the file --------------------------------------------------------- */

struct req_line {
    int no;     /* first physical line */
    char *text; /* joined, comment cut, trimmed */
};

/* pip: join "\" continuations first, then cut comments ("#" at the start
 * or after whitespace; "url#egg=x" is not a comment) */
static void req_logical_lines(const char *text, size_t len, struct req_line **out, size_t *nout)
{
    struct req_line *v = NULL;
    size_t n = 0, cap = 0;
    struct strbuf cur = STRBUF_INIT;
    int no = 0, start = 0;
    size_t pos = 0;

    while (pos < len) {
        size_t e = pos;
        while (e < len && text[e] != '\n')
            e++;
        size_t l = e - pos;
        no++;
        if (cur.len == 0)
            start = no;
        if (l && text[pos + l - 1] == '\r')
            l--;
        int cont = l && text[pos + l - 1] == '\\';
        strbuf_add(&cur, text + pos, cont ? l - 1 : l);
        pos = e + 1;
        if (cont && pos < len) {
            if (cur.len == 0)
                strbuf_addc(&cur, ' '); /* keep the logical line open */
            continue;
        }
        if (!cur.buf)
            strbuf_add(&cur, "", 0);
        for (size_t i = 0; i < cur.len; i++) {
            if (cur.buf[i] == '#' && (i == 0 || isspace((unsigned char)cur.buf[i - 1]))) {
                cur.buf[i] = '\0';
                cur.len = i;
                break;
            }
        }
        /* one space for each run of blanks: "torch \\n  ==2.3" reads "torch ==2.3" */
        size_t w = 0;
        for (size_t i = 0; i < cur.len; i++) {
            char c = cur.buf[i] == '\t' || cur.buf[i] == '\0' ? ' ' : cur.buf[i];
            if (c == ' ' && w && cur.buf[w - 1] == ' ')
                continue;
            cur.buf[w++] = c;
        }
        cur.buf[w] = '\0';
        cur.len = w;
        char *t = str_trim(cur.buf);
        if (*t) {
            if (n == cap) {
                cap = cap ? cap * 2 : 32;
                v = xrealloc(v, cap * sizeof(*v));
            }
            v[n].no = start;
            v[n].text = xstrdup(t);
            n++;
        }
        strbuf_release(&cur);
    }
    strbuf_release(&cur);
    *out = v;
    *nout = n;
}

/* "-r x", "-rx", "--requirement=x", "--requirement x": option name and value */
static void req_option_split(const char *line, char **opt, const char **val)
{
    size_t n = strcspn(line, " \t=");
    if (line[1] != '-' && n > 2) /* -rfile.txt */
        n = 2;
    *opt = xstrndup(line, n);
    const char *v = line + n;
    v += strspn(v, " \t=");
    *val = v;
}

static int req_opt_is(const char *opt, const char *short_name, const char *long_name)
{
    return (short_name && strcmp(opt, short_name) == 0) || strcmp(opt, long_name) == 0;
}

/* shorten a line for a report entry */
static void req_add_entry(struct strlist *l, int no, const char *text, const char *why)
{
    int max = 160;
    if ((int)strlen(text) > max)
        strlist_add_owned(l, xasprintf("line %d: %.*s... (%s)", no, max, text, why));
    else
        strlist_add_owned(l, xasprintf("line %d: %s (%s)", no, text, why));
}

void requirements_scan_text(const char *text, size_t len, struct requirements_scan *out)
{
    struct req_line *lines;
    size_t n;
    struct req_file_state st = {0};

    req_logical_lines(text, len, &lines, &n);
    /* first pass: does an index option point at a ROCm PyTorch index? */
    for (size_t i = 0; i < n; i++) {
        if (lines[i].text[0] != '-')
            continue;
        char *opt;
        const char *val;
        req_option_split(lines[i].text, &opt, &val);
        if ((req_opt_is(opt, "-i", "--index-url") || req_opt_is(opt, NULL, "--extra-index-url") ||
             req_opt_is(opt, "-f", "--find-links")) &&
            strstr(val, "download.pytorch.org/whl/rocm"))
            st.rocm_index = 1;
        free(opt);
    }
    for (size_t i = 0; i < n; i++) {
        const char *t = lines[i].text;
        const char *why = NULL;
        if (t[0] != '-') {
            /* per-requirement options (--hash=..., --config-settings) are not shown */
            const char *o = strstr(t, " --");
            char *req = o ? str_trim(xstrndup(t, (size_t)(o - t))) : xstrdup(t);
            out->count++;
            if ((why = req_requirement_cuda(req, &st)))
                req_add_entry(&out->cuda, lines[i].no, req, why);
            char *pin = requirements_torch_pin(req);
            if (pin) {
                free(out->torch_pin); /* pip takes the last one too */
                out->torch_pin = pin;
            }
            free(req);
            continue;
        }
        char *opt;
        const char *val;
        req_option_split(t, &opt, &val);
        if (req_opt_is(opt, "-r", "--requirement") || req_opt_is(opt, "-c", "--constraint")) {
            strlist_add_owned(&out->unfollowed,
                              xasprintf("line %d: %s (not followed)", lines[i].no, t));
        } else if (req_opt_is(opt, "-i", "--index-url") ||
                   req_opt_is(opt, NULL, "--extra-index-url") ||
                   req_opt_is(opt, "-f", "--find-links")) {
            if ((why = req_url_cuda(val)))
                req_add_entry(&out->cuda, lines[i].no, t, why);
        } else if (req_opt_is(opt, "-e", "--editable")) {
            out->count++;
            char *l = req_lower(val);
            char tag[32];
            if (req_local_cuda(l, tag))
                req_add_entry(&out->cuda, lines[i].no, t, "a CUDA build (local version +cu)");
            free(l);
        }
        free(opt);
    }
    for (size_t i = 0; i < n; i++)
        free(lines[i].text);
    free(lines);
}

char *requirements_torch_pin(const char *req)
{
    const char *p = req + strspn(req, " \t");
    if (strncasecmp(p, "torch", 5) != 0)
        return NULL;
    p += 5 + strspn(p + 5, " \t");
    if (strncmp(p, "==", 2) != 0 || p[2] == '=')
        return NULL;
    p += 2 + strspn(p + 2, " \t");
    size_t n = strspn(p, "0123456789.");
    /* a wildcard (==2.5.*), a pre-release or a second clause is no exact pin */
    const char *rest = p + n + (p[n] == '+' ? strcspn(p + n, " \t;,") : 0);
    rest += strspn(rest, " \t");
    if (!n || p[n - 1] == '.' || (*rest && *rest != ';'))
        return NULL;
    return xstrndup(p, n);
}

void requirements_scan_release(struct requirements_scan *scan)
{
    free(scan->torch_pin);
    scan->torch_pin = NULL;
    strlist_release(&scan->cuda);
    strlist_release(&scan->unfollowed);
    scan->count = 0;
}

int requirements_read_file(const char *path, char **text, size_t *len)
{
    return read_user_file(path, REQUIREMENTS_MAX_FILE, text, len);
}

int requirements_check_file(const char *path)
{
    char *text;
    size_t len;
    int rc = requirements_read_file(path, &text, &len);
    if (rc == -EFBIG)
        return error("--requirements '%s': larger than %u bytes, not a requirements file", path,
                     REQUIREMENTS_MAX_FILE);
    if (rc)
        return error("--requirements '%s': %s", path, user_file_strerror(rc));
    int binary = memchr(text, '\0', len) != NULL;
    free(text);
    if (binary)
        return error("--requirements '%s': binary content (NUL bytes), not a requirements file",
                     path);
    return 0;
}
