/* report_markdown.c - a short markdown summary of a report to paste into a
 * GitHub issue: the machine (GPUs, gfx targets, kernel, driver, ROCm,
 * Python and PyTorch, the HIP runtime), the checks that failed or warned
 * with a one-line fix, and their evidence folded in <details>.
 *
 * It reads the facts of the report only, and the host facts come from
 * sysfs and files: a Python that crashes or a HIP library that fails is one
 * more "unknown"/"error" line here, never a missing summary (PyTorch's
 * collect_env dies exactly then). By default the host's name, the user's
 * name and home directories are replaced (redact_text), since the text is
 * meant for a public tracker. */
#include "report_doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "../snapshot/snapshot_redact.h"

struct md {
    FILE *f;
    struct redact_word w[REPORT_REDACT_WORDS];
    size_t nw;
    int redact;
};

/* one line of text: redacted, controls made visible, line breaks as spaces */
static char *md_line(const struct md *m, const char *s)
{
    char *r = m->redact ? redact_text(s ? s : "", m->w, m->nw) : xstrdup(s ? s : "");
    char *safe = str_sanitize(r, 1);
    free(r);
    for (char *p = safe; *p; p++)
        if (*p == '\n' || *p == '\t' || *p == '\r')
            *p = ' ';
    return safe;
}

/* line (one line, controls already visible) as markdown text */
static void md_escape(FILE *f, const char *line)
{
    for (const char *p = line; *p; p++) {
        if (*p == '<')
            fputs("&lt;", f);
        else if (*p == '>')
            fputs("&gt;", f);
        else if (*p == '&')
            fputs("&amp;", f);
        else if (strchr("\\`*_[]|~@#!", *p))
            fprintf(f, "\\%c", *p);
        else
            fputc(*p, f);
    }
}

/* markdown text: every character markdown or GitHub would act on escaped
 * (emphasis, code, links, tables, HTML, @mentions, #references) */
static void md_put(const struct md *m, const char *s)
{
    char *t = md_line(m, s);
    md_escape(m->f, t);
    free(t);
}

void markdown_text(FILE *f, const char *s)
{
    const struct md m = {.f = f};
    md_put(&m, s);
}

/* an identifier as inline code, where markdown interprets nothing but
 * backticks; one holding a backtick (a --checks file's) is plain text */
static void md_code(const struct md *m, const char *s)
{
    char *t = md_line(m, s);
    if (strchr(t, '`')) {
        md_put(m, s);
    } else {
        fputc('`', m->f);
        fputs(t, m->f);
        fputc('`', m->f);
    }
    free(t);
}

static void md_fact(const struct md *m, const struct diff_doc *d, const char *name)
{
    struct strbuf sb = STRBUF_INIT;
    doc_fact_text(&sb, d, name);
    md_put(m, sb.buf);
    strbuf_release(&sb);
}

static void row(const struct md *m, const char *label, const struct diff_doc *d, const char *name)
{
    fprintf(m->f, "| %s | ", label);
    md_fact(m, d, name);
    fputs(" |\n", m->f);
}

static int known(const struct diff_doc *d, const char *name)
{
    const struct json *v = doc_fact(d, name);
    return v && v->type != JSON_NULL;
}

/* "ok" or absent: nothing to say */
static const char *probe_failed(const struct diff_doc *d, size_t i, char **msg)
{
    const char *k = d->facts->keys[i];
    const struct json *v = d->facts->items[i];
    if (!str_starts(k, "probe.") || !str_ends(k, ".status") || v->type != JSON_STR ||
        strcmp(v->str, "ok") == 0)
        return NULL;
    size_t plen = strlen(k) - strlen("probe.") - strlen(".status");
    char *name = xasprintf("probe.%.*s.message", (int)plen, k + strlen("probe."));
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, v->str);
    const struct json *mv = doc_fact(d, name);
    if (mv && mv->type == JSON_STR && *mv->str)
        strbuf_addf(&sb, ": %s", mv->str);
    free(name);
    *msg = strbuf_detach(&sb);
    return k;
}

/* the probes that crashed, hung or failed, one row per message (a HIP
 * library that crashes in hipInit takes every GPU probe down the same way) */
static void probe_failures(const struct md *m, const struct diff_doc *d)
{
    size_t n = d->facts ? d->facts->n : 0;
    char *done = xcalloc(n ? n : 1, 1);
    for (size_t i = 0; i < n; i++) {
        char *msg = NULL;
        if (done[i] || !probe_failed(d, i, &msg))
            continue;
        struct strbuf names = STRBUF_INIT;
        for (size_t j = i; j < n; j++) {
            char *other = NULL;
            const char *k = done[j] ? NULL : probe_failed(d, j, &other);
            if (k && strcmp(other, msg) == 0) {
                done[j] = 1;
                strbuf_addf(&names, "%s%.*s", names.len ? ", " : "",
                            (int)(strlen(k) - strlen("probe.") - strlen(".status")),
                            k + strlen("probe."));
            }
            free(other);
        }
        fputs("| probe ", m->f);
        md_put(m, names.buf);
        fputs(" | ", m->f);
        md_put(m, msg);
        fputs(" |\n", m->f);
        strbuf_release(&names);
        free(msg);
    }
    free(done);
}

static void machine(const struct md *m, const struct diff_doc *d)
{
    fputs("| | |\n|---|---|\n", m->f);
    double ngpu = doc_num(d, "gpu.count");
    if (ngpu == 0) {
        fputs("| GPU(s) | none found |\n", m->f);
    } else {
        row(m, "GPU(s)", d, "gpu.names");
        fputs("| gfx target | ", m->f);
    }
    if (!isfinite(ngpu))
        md_fact(m, d, "gpu.count");
    for (int i = 0; isfinite(ngpu) && i < ngpu && i < 64; i++) {
        char name[FACT_NAME_MAX];
        fputs(i ? ", " : "", m->f);
        md_fact(m, d, fact_gpu_name(name, i, "gfx"));
    }
    if (ngpu != 0)
        fputs(" |\n", m->f);
    row(m, "Kernel", d, "kernel.release");
    row(m, "OS", d, "host.os");
    row(m, "amdgpu driver", d, "driver.version");
    row(m, "ROCm", d, "rocm.version");
    /* Python and PyTorch: an interpreter that crashed is its error line */
    fputs("| Python | ", m->f);
    const struct json *present = doc_fact(d, "python.present");
    if (present && present->type == JSON_BOOL && !present->b) {
        fputs("error: ", m->f);
        md_fact(m, d, "python.error");
    } else {
        md_fact(m, d, "python.version");
    }
    fputs(" |\n| PyTorch | ", m->f);
    md_fact(m, d, "python.torch_version");
    if (known(d, "python.torch_build")) {
        fputs(" (", m->f);
        md_fact(m, d, "python.torch_build");
        fputs(" build", m->f);
        const char *hip = doc_str(d, "python.torch_hip_suffix");
        if (hip && *hip)
            md_put(m, hip);
        fputs(")", m->f);
    }
    fputs(" |\n| HIP runtime | ", m->f);
    const char *err = doc_str(d, "runtime.hip.error");
    const char *ierr = doc_str(d, "runtime.hip.init_error");
    const char *pst = doc_str(d, "probe.gpu_runtime.status");
    if (err && *err) {
        fputs("error: ", m->f);
        md_put(m, err);
    } else if (ierr && *ierr) {
        fputs("error: ", m->f);
        md_put(m, ierr);
    } else if (pst && strcmp(pst, "ok")) {
        /* the runtime probe's child died before it said anything */
        md_put(m, pst);
        fputs(": ", m->f);
        md_fact(m, d, "probe.gpu_runtime.message");
    } else if (doc_fact(d, "runtime.hip.version")) {
        md_fact(m, d, "runtime.hip.version");
    } else {
        fputs("not probed at this level", m->f);
    }
    fputs(" |\n", m->f);
    probe_failures(m, d);
    const char *level = doc_host(d, "level");
    fputs("| Level | ", m->f);
    md_put(m, level ? level : "unknown");
    fputs(" |\n\n", m->f);
}

static const char *jstr(const struct json *c, const char *key)
{
    const char *v = doc_member(c, key);
    return v ? v : "";
}

static int finding(const struct json *c)
{
    const char *st = diff_check_status(c);
    return st && strcmp(st, "pass") && strcmp(st, "skip");
}

/* a '~' fence longer than any run of '~' in text (at least 3) */
static size_t fence_len(const char *text)
{
    size_t run = 0, best = 0;
    for (const char *p = text; p && *p; p++) {
        run = *p == '~' ? run + 1 : 0;
        best = run > best ? run : best;
    }
    return best < 3 ? 3 : best + 1;
}

static void md_fence(FILE *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputc('~', f);
}

/* a fix under its list item: the prose as text, the commands in a fenced
 * sh block (each line whole, as it is run) */
static void md_fix(const struct md *m, const struct json *c)
{
    struct fix fx;
    if (!doc_fix(c, &fx)) {
        fputc('\n', m->f);
        return;
    }
    fputs("<br>Fix:", m->f);
    if (fx.say) {
        fputc(' ', m->f);
        md_put(m, fx.say);
    }
    fputc('\n', m->f);
    if (fx.run.n) {
        struct strbuf all = STRBUF_INIT;
        for (size_t i = 0; i < fx.run.n; i++) {
            char *line = md_line(m, fx.run.v[i]);
            strbuf_addf(&all, "  %s\n", line);
            free(line);
        }
        size_t fence = fence_len(all.buf);
        fputs("  ", m->f);
        md_fence(m->f, fence);
        fprintf(m->f, "sh\n%s  ", all.buf);
        md_fence(m->f, fence);
        fputc('\n', m->f);
        strbuf_release(&all);
    }
    if (fx.then) {
        fputs("  ", m->f);
        md_put(m, fx.then);
        fputc('\n', m->f);
    }
    fix_release(&fx);
}

/* a per-GPU check judged on several GPUs: each GPU that did not pass, a
 * table inside its list item (issue 34: which GPUs to drain) */
static void md_gpus(const struct md *m, const struct json *c)
{
    struct doc_gpu *g = xcalloc(DOC_GPUS_MAX, sizeof(*g));
    size_t n = doc_check_gpus(c, g, DOC_GPUS_MAX), shown = 0;
    for (size_t i = 0; n > 1 && i < n; i++) { /* one GPU: the summary is its */
        /* short to paste: the GPUs that passed are counted in the summary */
        if (!strcmp(g[i].status, "pass"))
            continue;
        if (!shown++)
            fputs("\n  | GPU | PCI | Status | Summary |\n  |---|---|---|---|\n", m->f);
        fprintf(m->f, "  | %d | ", g[i].gpu);
        md_code(m, g[i].pci ? g[i].pci : "unknown");
        fputs(" | ", m->f);
        md_put(m, g[i].status);
        fputs(" | ", m->f);
        md_put(m, g[i].summary);
        fputs(" |\n", m->f);
    }
    if (shown)
        fputc('\n', m->f);
    free(g);
}

/* evidence in a fence longer than any run of '~' inside it */
static void evidence(const struct md *m, const struct json *c)
{
    const struct json *ev = json_get(c, "evidence");
    if (!ev || ev->type != JSON_OBJ || !ev->n)
        return;
    struct strbuf all = STRBUF_INIT;
    for (size_t i = 0; i < ev->n; i++) {
        struct strbuf v = STRBUF_INIT;
        doc_value_text(&v, ev->items[i]);
        char *kv = xasprintf("%s = %s", ev->keys[i], v.buf ? v.buf : "");
        char *line = md_line(m, kv);
        strbuf_addf(&all, "%s\n", line);
        free(line);
        free(kv);
        strbuf_release(&v);
    }
    size_t fence = fence_len(all.buf);
    fputs("**", m->f);
    md_put(m, jstr(c, "id"));
    fputs("**\n\n", m->f);
    md_fence(m->f, fence);
    fputc('\n', m->f);
    fputs(all.buf ? all.buf : "", m->f);
    md_fence(m->f, fence);
    fputs("\n\n", m->f);
    strbuf_release(&all);
}

int report_markdown_write(FILE *f, const struct diff_doc *d, int redact)
{
    struct md m = {f, {{0}}, 0, redact};
    m.nw = report_redact_words(d, m.w);
    int code = doc_exit_code(d);
    size_t nfind = 0;
    for (size_t i = 0; i < d->checks->n; i++)
        nfind += finding(d->checks->items[i]);
    fprintf(f, "### rocm-vla-doctor: %zu of %zu checks failed or warned (exit %d: ", nfind,
            d->checks->n, code);
    md_put(&m, doc_exit_meaning(code));
    fputs(")\n\n", f);
    machine(&m, d);
    if (nfind) {
        /* the root cause first: what a reader fixes before the rest */
        const struct json *start = doc_start_with(d);
        if (start) {
            fputs("**Start with** ", f);
            md_code(&m, jstr(start, "id"));
            fputs(": ", f);
            md_put(&m, jstr(start, "summary"));
            fputs("\n\n", f);
        }
        /* in the order to fix them, the check to start with first */
        fputs("**Checks that failed or warned**\n\n", f);
        size_t nidx = 0, *idx = doc_findings(d, &nidx);
        for (size_t k = 0; k < nidx; k++) {
            const struct json *c = d->checks->items[idx[k]];
            fputs("- **", f);
            md_put(&m, diff_check_status(c));
            fputs("** ", f);
            md_code(&m, jstr(c, "id"));
            fputs(": ", f);
            md_put(&m, jstr(c, "summary"));
            md_fix(&m, c);
            md_gpus(&m, c);
        }
        fputs("\n<details><summary>Evidence</summary>\n\n", f);
        for (size_t k = 0; k < nidx; k++)
            evidence(&m, d->checks->items[idx[k]]);
        free(idx);
        fputs("</details>\n\n", f);
    } else {
        fputs("No check failed or warned.\n\n", f);
    }
    const char *ver = doc_member(json_get(d->root, "tool"), "version");
    fputs("<sub>rocm-vla-doctor ", f);
    md_put(&m, ver ? ver : "unknown");
    fputs(redact ? "; host name, user name and home directories redacted (--no-redact keeps "
                   "them)</sub>\n"
                 : "; not redacted</sub>\n",
          f);
    if (fflush(f) || ferror(f))
        return error("cannot write the markdown summary");
    return 0;
}
