/* report_text.c - doctor-style terminal output, written for a newcomer on an
 * 80x24 terminal: a legend for the marks, one line per check (wrapped to the
 * terminal), evidence with -v, the counts, and last what to fix - every
 * warning and failure with its fix - and a one-line verdict, so that the key
 * finding is what stays on the screen. Text repeated by several checks is said
 * once ("same as ID"). */
#include "report.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct mark {
    const char *uni, *ascii, *color, *meaning;
};

static const struct mark marks[ST__COUNT] = {
    [ST_PASS] = {"✓", "[ok]", "\033[32m", "pass"},
    [ST_WARN] = {"!", "[!!]", "\033[33m", "warning"},
    [ST_FAIL] = {"✗", "[XX]", "\033[31m", "failed"},
    [ST_SKIP] = {"-", "[--]", "\033[2m", "skipped (not judged)"},
    [ST_ERROR] = {"E", "[ER]", "\033[35m", "probe error"},
    [ST_TIMEOUT] = {"T", "[TO]", "\033[35m", "probe timed out"},
};

#define MARK_COLS 5 /* "[ok] " and "[✓]  ": the mark and the space after it */
/* a fix's commands start this far right of "fix:", two columns right of its
 * wrapped prose (at 5), so that prose and commands never look alike */
#define FIX_CMD_INDENT 7

int report_text_width(FILE *out, int requested)
{
    if (requested > 0)
        return requested < 40 ? 40 : requested;
    const char *c = getenv("COLUMNS");
    char *end;
    long n = c && *c ? strtol(c, &end, 10) : 0;
    if (c && *c && *end == '\0' && n >= 40 && n <= 1000)
        return (int)n;
    struct winsize ws;
    if (out && isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        return ws.ws_col;
    return 80;
}

/* a writer that knows its column, for word wrapping */
struct tw {
    FILE *out;
    const struct text_opts *o;
    int width, col;
};

static void tw_nl(struct tw *t)
{
    fputc('\n', t->out);
    t->col = 0;
}

static void tw_pad(struct tw *t, int to)
{
    for (; t->col < to; t->col++)
        fputc(' ', t->out);
}

/* one byte of text already sanitised by tw_text; a control byte here would
 * be the report's own mistake, still never sent raw */
static void tw_byte(struct tw *t, unsigned char ch)
{
    fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, t->out);
    if ((ch & 0xc0) != 0x80) /* a UTF-8 continuation byte takes no column */
        t->col++;
}

static int cols_of(const char *s, size_t n)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    return c;
}

/* text, wrapped at spaces to the width; continuation lines start at column
 * hang. A word longer than a whole line is cut. Every string of the report
 * passes here and is sanitised first (str_sanitize): summaries, evidence and
 * the host name quote files of the machine or a snapshot, whose C0/C1
 * controls, bidi overrides and invalid bytes must not reach the terminal. */
static void tw_text(struct tw *t, const char *text, int hang)
{
    char *safe = str_sanitize(text, 0);
    const char *s = safe;
    int fresh = 1; /* nothing of this text on the current line yet */
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        size_t n = strcspn(s, " ");
        int wc = cols_of(s, n);
        int sep = fresh ? 0 : 1;
        if (t->col + sep + wc > t->width && t->col > hang) {
            tw_nl(t);
            tw_pad(t, hang);
            sep = 0;
        }
        if (sep)
            tw_byte(t, ' ');
        for (size_t i = 0; i < n; i++) {
            if (t->col >= t->width && ((unsigned char)s[i] & 0xc0) != 0x80) {
                tw_nl(t);
                tw_pad(t, hang);
            }
            tw_byte(t, (unsigned char)s[i]);
        }
        fresh = 0;
        s += n;
    }
    free(safe);
}

static void tw_mark(struct tw *t, enum status st)
{
    const struct mark *mk = &marks[st];
    if (t->o->color)
        fputs(mk->color, t->out);
    if (t->o->unicode)
        fprintf(t->out, "[%s]", mk->uni);
    else
        fputs(mk->ascii, t->out);
    if (t->o->color)
        fputs("\033[0m", t->out);
    t->col += t->o->unicode ? 3 : 4;
    tw_pad(t, t->col + (t->o->unicode ? 2 : 1));
}

/* the first earlier result that is not a pass with the same text, or NULL;
 * short texts ("no AMD GPU") read better repeated than referred to */
static const char *same_as(const struct results *r, size_t upto, const char *text, int fix)
{
    if (!text || strlen(text) <= 40)
        return NULL;
    for (size_t j = 0; j < upto; j++) {
        const char *o = fix ? r->v[j].fix : r->v[j].summary;
        if (r->v[j].st != ST_PASS && o && strcmp(o, text) == 0)
            return r->v[j].check->id;
    }
    return NULL;
}

/* same_as() for the findings in the order to fix them: the first ranked
 * before the k-th (printed below it, nearer the verdict) with the same
 * text, so that the full text stays with the more important one */
static const char *ranked_before(const struct results *r, const size_t *order, size_t k,
                                 const char *text, int fix)
{
    if (!text || strlen(text) <= 40)
        return NULL;
    for (size_t j = 0; j < k; j++) {
        const struct result *o = &r->v[order[j]];
        const char *t = fix ? o->fix : o->summary;
        if (t && strcmp(t, text) == 0)
            return o->check->id;
    }
    return NULL;
}

/* a fix command: one line, whole, whatever the width, so that what is
 * pasted is what was printed (sanitised, never wrapped or cut) */
static void tw_command(struct tw *t, const char *cmd, int indent)
{
    char *safe = str_sanitize(cmd, 0);
    tw_pad(t, indent);
    for (const char *p = safe; *p; p++)
        tw_byte(t, (unsigned char)*p);
    free(safe);
    tw_nl(t);
}

/* "fix:" at column hang, its say prose after it (wrapped), each command on
 * a line of its own indented deeper than the prose, then the then prose;
 * dup names an earlier check with the same fix */
static void tw_fix(struct tw *t, const struct result *res, int hang, const char *dup)
{
    const struct fix view = result_fix(res), *f = &view;
    tw_pad(t, hang);
    tw_text(t, "fix:", hang);
    if (dup || f->say) {
        char *s = dup ? xasprintf("same as %s", dup) : NULL;
        fputc(' ', t->out);
        t->col++;
        tw_text(t, s ? s : f->say, hang + 5);
        free(s);
    }
    tw_nl(t);
    if (dup)
        return;
    for (size_t i = 0; i < f->run.n; i++)
        tw_command(t, f->run.v[i], hang + FIX_CMD_INDENT);
    if (f->then) {
        tw_pad(t, hang + 5);
        tw_text(t, f->then, hang + 5);
        tw_nl(t);
    }
}

static void write_counts(struct tw *t, const struct results *r, double secs)
{
    const size_t *c = r->counts;
    char buf[320];
    int n = snprintf(buf, sizeof(buf), "%zu passed, %zu warning%s, %zu failed, %zu skipped",
                     c[ST_PASS], c[ST_WARN], c[ST_WARN] == 1 ? "" : "s", c[ST_FAIL], c[ST_SKIP]);
    if (c[ST_ERROR] || c[ST_TIMEOUT])
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", %zu error%s, %zu timed out", c[ST_ERROR],
                      c[ST_ERROR] == 1 ? "" : "s", c[ST_TIMEOUT]);
    snprintf(buf + n, sizeof(buf) - (size_t)n, " (%zu check%s in %.2f s)", r->n,
             r->n == 1 ? "" : "s", secs);
    tw_text(t, buf, 0);
    tw_nl(t);
}

static const struct result *find(const struct results *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].check->id, id) == 0)
            return &r->v[i];
    return NULL;
}

/* the last line: what the results add up to, and where to start: the
 * root cause (results_start_with), never a check that merely follows it */
static void write_verdict(struct tw *t, const struct results *r)
{
    const size_t *c = r->counts;
    size_t bad = c[ST_FAIL] + c[ST_ERROR] + c[ST_TIMEOUT];
    const struct result *gp = find(r, "gpu.present");
    const struct result *start = results_start_with(r);
    const char *first = start ? start->check->id : "?";
    char buf[256];
    if (gp && gp->st == ST_FAIL && start == gp)
        snprintf(buf, sizeof(buf),
                 "Verdict: no AMD GPU: nothing that needs one can pass on this machine "
                 "(see gpu.present).");
    else if (bad)
        snprintf(buf, sizeof(buf), "Verdict: not ready: %zu check%s did not pass; start with %s.",
                 bad, bad == 1 ? "" : "s", first);
    else if (c[ST_WARN])
        snprintf(buf, sizeof(buf),
                 "Verdict: nothing failed; %zu warning%s to review above; start with %s.",
                 c[ST_WARN], c[ST_WARN] == 1 ? "" : "s", first);
    else
        snprintf(buf, sizeof(buf), "Verdict: nothing failed (%zu passed, %zu not judged).",
                 c[ST_PASS], c[ST_SKIP]);
    tw_text(t, buf, 9);
    tw_nl(t);
}

/* the GPU probes measured fewer devices than the runtime shows (the default
 * is device 0): say so, since a gate that misses GPU 3 of 8 passes it
 * (issue 34) */
static void write_measured_note(struct tw *t, const struct factset *fs)
{
    const struct fact *m = fs ? fact_get(fs, "gpu.measured") : NULL;
    const struct fact *c = fs ? fact_get(fs, "runtime.device_count") : NULL;
    if (!m || m->type != FACT_LIST || !m->list.n || !c || c->type != FACT_INT ||
        c->i <= (int64_t)m->list.n)
        return;
    char buf[256];
    snprintf(buf, sizeof(buf),
             "Note: the GPU probes measured %zu of the runtime's %lld devices; --gpu all measures "
             "every one, as a CI or fleet gate must.",
             m->list.n, (long long)c->i);
    tw_nl(t);
    tw_text(t, buf, 6);
    tw_nl(t);
}

/* warnings, then probe errors and timeouts, then failures, each with its fix */
/* the findings in the order to fix them (results_fix_order), reversed so
 * that the one to start with stands last, just above the verdict; each
 * root cause below its consequences, which say "see" it */
static void write_to_fix(struct tw *t, const struct results *r)
{
    size_t *order = xcalloc(r->n + 1, sizeof(*order));
    size_t n = results_fix_order(r, order);
    if (n) {
        tw_nl(t);
        tw_text(t, "To fix (most important last; 'rocm-vla-doctor explain ID' says why):", 0);
        tw_nl(t);
    }
    for (size_t k = n; k-- > 0;) {
        size_t i = order[k];
        const struct result *res = &r->v[i];
        tw_mark(t, res->st);
        tw_text(t, res->check->id, MARK_COLS);
        fputc(':', t->out);
        t->col++;
        const char *dup = ranked_before(r, order, k, res->summary, 0);
        char *s = dup ? xasprintf("same as %s", dup) : NULL;
        fputc(' ', t->out);
        t->col++;
        tw_text(t, s ? s : res->summary, MARK_COLS);
        free(s);
        tw_nl(t);
        if (res->fix)
            tw_fix(t, res, MARK_COLS, ranked_before(r, order, k, res->fix, 1));
    }
    free(order);
}

/* a per-GPU check that warned or failed on several GPUs: one line per such GPU
 * with its own words, so that every GPU to drain is named (the check's
 * line speaks of the worst) */
static void write_gpu_lines(struct tw *t, const struct result *res, int hang)
{
    size_t bad = 0;
    for (size_t j = 0; j < res->ngpus; j++)
        bad += status_not_passing(res->gpus[j].st);
    if (bad < 2) /* the check's line names the one GPU */
        return;
    for (size_t j = 0; j < res->ngpus; j++) {
        const struct gpu_verdict *g = &res->gpus[j];
        if (!status_not_passing(g->st)) /* a skip's reason is the check's */
            continue;
        char *line =
            xasprintf("GPU %d (%s) %s: %s", g->gpu, g->pci ? g->pci : "PCI address unknown",
                      status_name(g->st), g->summary);
        tw_pad(t, hang + 2);
        tw_text(t, line, hang + 4);
        free(line);
        tw_nl(t);
    }
}

static void write_evidence(struct tw *t, const struct result *res, int hang)
{
    tw_pad(t, hang);
    tw_text(t, "check:", hang);
    fputc(' ', t->out);
    t->col++;
    tw_text(t, res->check->title, hang + 7);
    tw_nl(t);
    /* which rule decided: what a reader compares with checks.yaml */
    tw_pad(t, hang);
    tw_text(t, "rule:", hang);
    fputc(' ', t->out);
    t->col++;
    tw_text(t, res->rule, hang + 6);
    tw_nl(t);
    for (size_t j = 0; j < res->nev; j++) {
        const struct evidence *ev = &res->ev[j];
        char *v = ev->fact ? fact_to_text(ev->fact) : xstrdup("not probed");
        char *line;
        if (ev->fact && ev->fact->type == FACT_UNKNOWN && ev->fact->reason)
            line = xasprintf("%s = %s (%s)", ev->name, v, ev->fact->reason);
        else if (ev->fact && ev->fact->source)
            line = xasprintf("%s = %s  [%s]", ev->name, v, ev->fact->source);
        else
            line = xasprintf("%s = %s", ev->name, v);
        tw_pad(t, hang);
        tw_text(t, line, hang + 4);
        tw_nl(t);
        free(line);
        free(v);
    }
}

/* -v: the slowest probes by their probe.<name>.wall_s, so that a slow run
 * says where its time went */
#define SLOWEST_N 5
static void write_slowest(struct tw *t, const struct factset *fs)
{
    const struct fact *top[SLOWEST_N];
    size_t n = 0;
    for (size_t i = 0; fs && i < fs->n; i++) {
        const struct fact *f = fs->v[i];
        if (f->type != FACT_FLOAT || !str_starts(f->name, "probe.") ||
            !str_ends(f->name, ".wall_s"))
            continue;
        if (n == SLOWEST_N && top[n - 1]->f >= f->f)
            continue;
        /* insertion into the list, slowest first; a full list drops its last */
        size_t k = n < SLOWEST_N ? n++ : SLOWEST_N - 1;
        while (k > 0 && top[k - 1]->f < f->f) {
            top[k] = top[k - 1];
            k--;
        }
        top[k] = f;
    }
    if (!n)
        return;
    tw_nl(t);
    tw_text(t, "slowest probes (wall time):", 4);
    tw_nl(t);
    for (size_t i = 0; i < n; i++) {
        const char *name = top[i]->name + strlen("probe.");
        char *probe = xstrndup(name, strlen(name) - strlen(".wall_s"));
        char *secs = xasprintf("%.3f s", top[i]->f);
        tw_pad(t, 4);
        tw_text(t, probe, 4);
        tw_pad(t, 22); /* the times in one column */
        tw_text(t, secs, 22);
        tw_nl(t);
        free(secs);
        free(probe);
    }
}

void report_text_write(FILE *out, const struct report_meta *m, const struct results *r,
                       const struct text_opts *o)
{
    struct tw t = {out, o, report_text_width(out, o->width), 0};
    int idw = 0;
    for (size_t i = 0; i < r->n; i++) {
        int n = (int)strlen(r->v[i].check->id);
        idw = n > idw ? n : idw;
    }
    /* summaries start after the mark and the widest id; on a narrow
     * terminal continuation lines start further left */
    int col0 = MARK_COLS + idw + 2;
    int hang = t.width - col0 >= 30 ? col0 : MARK_COLS + 1;

    /* the checks file is named unless it is the built-in one: an installed
     * copy says which file on disk judged the machine */
    int named = m->checks && strcmp(m->checks, "(built in)");
    char *head = xasprintf("rocm-vla-doctor %s: %s, level %s%s%s%s%s", m->version,
                           m->hostname ? m->hostname : "unknown host", m->level,
                           m->sysroot ? ", sysroot " : "", m->sysroot ? m->sysroot : "",
                           named ? ", checks " : "", named ? m->checks : "");
    tw_text(&t, head, 4);
    free(head);
    tw_nl(&t);
    /* a verdict on a release is only as new as the table that knew it */
    if (m->support_data) {
        char *sd = xasprintf("support data %s", m->support_data);
        tw_text(&t, sd, 4);
        free(sd);
        tw_nl(&t);
    }
    tw_text(&t, "marks:", 4);
    for (int st = 0; st < ST__COUNT; st++) {
        char *item = o->unicode ? xasprintf("[%s] %s%s", marks[st].uni, marks[st].meaning,
                                            st + 1 < ST__COUNT ? "," : "")
                                : xasprintf("%s %s%s", marks[st].ascii, marks[st].meaning,
                                            st + 1 < ST__COUNT ? "," : "");
        /* a mark and its meaning stay on one line */
        if (t.col + 1 + cols_of(item, strlen(item)) > t.width) {
            tw_nl(&t);
            tw_pad(&t, 4);
        } else {
            fputc(' ', out);
            t.col++;
        }
        for (const char *p = item; *p; p++)
            tw_byte(&t, (unsigned char)*p);
        free(item);
    }
    tw_nl(&t);
    tw_nl(&t);

    for (size_t i = 0; i < r->n; i++) {
        const struct result *res = &r->v[i];
        tw_mark(&t, res->st);
        tw_text(&t, res->check->id, hang);
        tw_pad(&t, col0);
        const char *dup = res->st == ST_PASS ? NULL : same_as(r, i, res->summary, 0);
        char *s = dup ? xasprintf("same as %s", dup) : NULL;
        tw_text(&t, s ? s : res->summary, hang);
        free(s);
        tw_nl(&t);
        write_gpu_lines(&t, res, hang);
        if (o->verbose) {
            if (res->fix)
                tw_fix(&t, res, hang, NULL);
            write_evidence(&t, res, hang);
        }
    }
    if (o->verbose)
        write_slowest(&t, o->timing);
    tw_nl(&t);
    write_counts(&t, r, m->duration_s);
    write_measured_note(&t, o->timing);
    write_to_fix(&t, r);
    write_verdict(&t, r);
}
