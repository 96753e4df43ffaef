/* diff_out.c - the `diff` command line and its two renderers: doctor-style
 * text (regressions, improvements, check changes, stack changes) and JSON
 * (schema rocm-vla-doctor-diff/1, reports/diff-schema.json). They render
 * the diff_result of diff.c; they decide nothing. */
#include "diff.h"
#include "../core/parse_options.h"
#include "../core/outfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../report/report.h"
#include "../core/util.h"

enum { DIFF_EXIT_OK = 0, DIFF_EXIT_REGRESSION = 1, DIFF_EXIT_USAGE = 2 };

/* ---- text ----------------------------------------------------------------- */

/* report text comes from files: control and bidi characters and invalid
 * bytes never reach the terminal (str_sanitize) */
static void put_safe(FILE *out, const char *s)
{
    char *safe = str_sanitize(s, 0);
    fputs(safe, out);
    free(safe);
}

static void put_value(FILE *out, const struct json *v, const char *absent)
{
    if (!v) {
        fputs(absent, out);
        return;
    }
    struct strbuf sb = STRBUF_INIT;
    diff_value_text(&sb, v);
    if (sb.len > DIFF_VALUE_MAX) {
        /* cut on a UTF-8 boundary */
        size_t n = DIFF_VALUE_MAX - 3;
        while (n > 0 && ((unsigned char)sb.buf[n] & 0xC0) == 0x80)
            n--;
        memcpy(sb.buf + n, "...", 4);
    }
    put_safe(out, sb.buf);
    strbuf_release(&sb);
}

static void put_mark(FILE *out, enum diff_class cls, const struct diff_text_opts *o)
{
    static const char *const uni[] = {"✗", "✓", "~"}, *const ascii[] = {"[XX]", "[ok]", "[~~]"};
    static const char *const color[] = {"\033[31m", "\033[32m", "\033[2m"};
    if (cls == DIFF_CHANGE) {
        fputs("    ", out);
        return;
    }
    if (o->color)
        fputs(color[cls], out);
    if (o->unicode)
        fprintf(out, "[%s]", uni[cls]);
    else
        fputs(ascii[cls], out);
    if (o->color)
        fputs("\033[0m", out);
}

static const char *str_member(const struct json *obj, const char *key)
{
    const struct json *v = obj ? json_get(obj, key) : NULL;
    return v && v->type == JSON_STR ? v->str : NULL;
}

/* the evidence values that differ between the two runs of one check */
static void put_evidence_diff(FILE *out, const struct diff_item *it, size_t w)
{
    const struct json *ea = it->old ? json_get(it->old, "evidence") : NULL;
    const struct json *eb = it->cur ? json_get(it->cur, "evidence") : NULL;
    if (!eb || eb->type != JSON_OBJ)
        return;
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < eb->n; i++) {
        const struct json *va = ea && ea->type == JSON_OBJ ? json_get(ea, eb->keys[i]) : NULL;
        const struct json *vb = eb->items[i];
        struct strbuf sa = STRBUF_INIT, sb = STRBUF_INIT;
        if (va)
            diff_value_text(&sa, va);
        diff_value_text(&sb, vb);
        if ((!va || strcmp(sa.buf, sb.buf) != 0) && shown >= 4) {
            more++;
        } else if (!va || strcmp(sa.buf, sb.buf) != 0) {
            fprintf(out, "      %*s  ", (int)w, "");
            put_safe(out, eb->keys[i]);
            fputs(": ", out);
            put_value(out, va, "(not read)");
            fputs(" -> ", out);
            put_value(out, vb, "(not read)");
            fputc('\n', out);
            shown++;
        }
        strbuf_release(&sa);
        strbuf_release(&sb);
    }
    if (more)
        fprintf(out, "      %*s  (%zu more evidence values changed)\n", (int)w, "", more);
}

/* the numerics gate's line: by how much the fixed-seed actions moved */
static void put_numerics(FILE *out, const struct diff_item *it)
{
    if (it->at < 0) {
        fputs("the actions changed; not compared: ", out);
        put_safe(out, it->why ? it->why : "?");
        fputc('\n', out);
        return;
    }
    if (it->moved == 0)
        fputs("the actions' bits changed (an action outside the sample: the digest's hash)", out);
    else
        fprintf(out,
                "the fixed-seed actions moved by %.6g (sampled action %d), %.4g%% of the "
                "largest |action|",
                it->moved, it->at, it->change_pct);
    if (it->tol_pct >= 0)
        fprintf(out, "; tolerance %g%%\n", it->tol_pct);
    else
        fputs("; tolerance off\n", out);
}

static void put_item(FILE *out, const struct diff_doc *cur, const struct diff_item *it, size_t w,
                     const struct diff_text_opts *o)
{
    put_mark(out, it->cls, o);
    fputc(' ', out);
    put_safe(out, it->name);
    fprintf(out, "%*s  ", (int)(w > strlen(it->name) ? w - strlen(it->name) : 0), "");
    if (it->subj == DIFF_CHECK) {
        const char *sa = diff_check_status(it->old), *sb = diff_check_status(it->cur);
        put_safe(out, sa ? sa : "(new check)");
        fputs(" -> ", out);
        put_safe(out, sb ? sb : "(not in the current report)");
        const char *sum = str_member(it->cur, "summary");
        if (it->cls == DIFF_REGRESSION && (!sb || strcmp(sb, "skip") == 0))
            fputs(" (coverage lost; --allow-skip accepts it)", out);
        if (sum && *sum) {
            fputs(": ", out);
            put_safe(out, sum);
        }
        fputc('\n', out);
        if (it->cls == DIFF_REGRESSION || o->verbose)
            put_evidence_diff(out, it, w);
        return;
    }
    if (it->what == DW_NUMERICS) {
        put_numerics(out, it);
        return;
    }
    put_value(out, it->old, "(not in the baseline)");
    fputs(" -> ", out);
    put_value(out, it->cur, "(not in the current report)");
    if (it->what == DW_PERF) {
        if (isfinite(it->change_pct))
            fprintf(out, " (%+.1f%%", it->change_pct);
        else
            fputs(" (from 0", out);
        fprintf(out, ", %s is better", it->direction < 0 ? "lower" : "higher");
        if (it->tol_pct >= 0)
            fprintf(out, ", tolerance %g%%)", it->tol_pct);
        else
            fputs(", tolerance off)", out);
    } else if (it->what == DW_UNKNOWN) {
        const char *why = diff_fact_reason(cur, it->name);
        if (why) {
            fputs(": ", out);
            put_safe(out, why);
        }
    }
    if (it->cls == DIFF_REGRESSION && it->what != DW_PERF)
        fputs(" (a measurement was lost; --allow-skip accepts it)", out);
    fputc('\n', out);
}

/* "gpu.3." of "gpu.3.vram_bytes", or 0 */
static size_t gpu_prefix(const char *name)
{
    if (!str_starts(name, "gpu."))
        return 0;
    size_t i = 4;
    while (name[i] >= '0' && name[i] <= '9')
        i++;
    return i > 4 && name[i] == '.' ? i + 1 : 0;
}

/* text hides the changes that move on every run unless -v */
static enum diff_fact_group diff_item_group(const struct diff_item *it);
static const char *diff_group_name(enum diff_fact_group g);

static int folded(const struct diff_item *it)
{
    return it->cls == DIFF_CHANGE && it->subj == DIFF_FACT &&
           (it->what == DW_PERF || (it->what == DW_VALUE && diff_fact_is_telemetry(it->name)));
}

/* the item is in the section: its class, its subject (-1 any), and for a
 * fact change its group (-1 any) */
static int in_section(const struct diff_item *it, enum diff_class cls, int subj, int group)
{
    return it->cls == cls && (subj < 0 || (int)it->subj == subj) &&
           (group < 0 || (int)diff_item_group(it) == group);
}

static void put_section(FILE *out, const struct diff_doc *cur, const struct diff_result *r,
                        enum diff_class cls, int subj, int group, const char *title, size_t w,
                        const struct diff_text_opts *o)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (in_section(&r->v[i], cls, subj, group) && (o->verbose || !folded(&r->v[i])))
            n++;
    if (!n)
        return;
    fprintf(out, "\n%s (%zu):\n", title, n);
    for (size_t i = 0; i < r->n; i++) {
        const struct diff_item *it = &r->v[i];
        if (!in_section(it, cls, subj, group) || (!o->verbose && folded(it)))
            continue;
        /* a GPU that appeared or vanished is one line, not forty */
        size_t p = it->subj == DIFF_FACT && (it->what == DW_ADDED || it->what == DW_REMOVED)
                       ? gpu_prefix(it->name)
                       : 0;
        size_t j = i + 1;
        while (p && j < r->n && in_section(&r->v[j], cls, DIFF_FACT, group) &&
               r->v[j].what == it->what && strncmp(r->v[j].name, it->name, p) == 0 &&
               gpu_prefix(r->v[j].name) == p)
            j++;
        if (p && j - i >= 4 && !o->verbose) {
            put_mark(out, cls, o);
            fputc(' ', out);
            fprintf(out, "%.*s* (%zu facts)  %s\n", (int)p, it->name, j - i,
                    it->what == DW_ADDED ? "new in the current report"
                                         : "not in the current report");
            i = j - 1;
            continue;
        }
        put_item(out, cur, it, w, o);
    }
}

static void put_run(FILE *out, const char *label, const struct diff_doc *d)
{
    const struct json *host = json_get(d->root, "host");
    const char *hn = str_member(host, "hostname"), *lv = str_member(host, "level");
    const char *st = str_member(host, "started");
    fprintf(out, "%s ", label);
    put_safe(out, d->name);
    fputs(" (", out);
    put_safe(out, hn ? hn : "unknown host");
    fputs(", level ", out);
    put_safe(out, lv ? lv : "?");
    if (st) {
        fputs(", ", out);
        put_safe(out, st);
    }
    fputs(")\n", out);
}

/* the facts a person asks about first after an update: the stack, down
 * to the firmware amdgpu loaded (a driver or linux-firmware update changes
 * gpu.<i>.fw.<ip> without a word elsewhere) */
int diff_headline_fact(const char *name)
{
    static const char *const names[] = {"driver.version",         "rocm.version", "kernel.release",
                                        "python.torch_version",   "gpu.count",    "host.os",
                                        "driver.firmware_package"};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    size_t p = gpu_prefix(name);
    return p && (strcmp(name + p, "gfx") == 0 || strcmp(name + p, "vbios") == 0 ||
                 (str_starts(name + p, "fw.") && name[p + 3]));
}

/* stack facts beyond the headline: versions a person did not look for
 * first but that are still the machine's software or firmware */
static int stack_fact(const char *name)
{
    static const char *const names[] = {"kernel.version_code", "runtime.version", "torch.version",
                                        "python.version", "driver.dkms_versions"};
    if (diff_headline_fact(name))
        return 1;
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    size_t p = gpu_prefix(name);
    return p && (strcmp(name + p, "mec_fw") == 0 || strcmp(name + p, "gfx_target_version") == 0);
}

static enum diff_fact_group diff_item_group(const struct diff_item *it)
{
    if (it->what == DW_PERF)
        return DIFF_GROUP_PERF;
    if (it->what == DW_VALUE && diff_fact_is_telemetry(it->name))
        return DIFF_GROUP_TELEMETRY;
    return stack_fact(it->name) ? DIFF_GROUP_STACK : DIFF_GROUP_OTHER;
}

/* "stack", "telemetry", ... */
static const char *diff_group_name(enum diff_fact_group g)
{
    static const char *const names[] = {"stack", "telemetry", "performance", "other"};
    return (unsigned)g < ARRAY_SIZE(names) ? names[g] : "other";
}

static void put_headline(FILE *out, const struct diff_result *r)
{
    int first = 1;
    for (size_t i = 0; i < r->n; i++) {
        const struct diff_item *it = &r->v[i];
        if (it->subj != DIFF_FACT || !diff_headline_fact(it->name))
            continue;
        fputs(first ? "  stack:    " : "            ", out);
        first = 0;
        put_safe(out, it->name);
        fputc(' ', out);
        put_value(out, it->old, "(none)");
        fputs(" -> ", out);
        put_value(out, it->cur, "(none)");
        fputc('\n', out);
    }
}

void diff_write_text(FILE *out, const struct diff_doc *base, const struct diff_doc *cur,
                     const struct diff_result *r, const struct diff_text_opts *o)
{
    fprintf(out, "rocm-vla-doctor %s diff\n", RVD_VERSION);
    put_run(out, "  baseline", base);
    put_run(out, "  current ", cur);
    const char *la = str_member(json_get(base->root, "host"), "level");
    const char *lb = str_member(json_get(cur->root, "host"), "level");
    if (la && lb && strcmp(la, lb) != 0)
        fprintf(out, "  note: the runs used different levels; checks of the other level are "
                     "reported as new or missing\n");
    put_headline(out, r);
    size_t w = 0;
    for (size_t i = 0; i < r->n; i++)
        if (!folded(&r->v[i]) || o->verbose)
            w = strlen(r->v[i].name) > w ? strlen(r->v[i].name) : w;
    if (w > 40)
        w = 40;
    put_section(out, cur, r, DIFF_REGRESSION, -1, -1, "Regressions", w, o);
    put_section(out, cur, r, DIFF_IMPROVEMENT, -1, -1, "Improvements", w, o);
    put_section(out, cur, r, DIFF_CHANGE, DIFF_CHECK, -1, "Check changes", w, o);
    /* what was updated apart from what moves on every run (issue 34) */
    put_section(out, cur, r, DIFF_CHANGE, DIFF_FACT, DIFF_GROUP_STACK, "Stack changes", w, o);
    put_section(out, cur, r, DIFF_CHANGE, DIFF_FACT, DIFF_GROUP_OTHER, "Other fact changes", w, o);
    put_section(out, cur, r, DIFF_CHANGE, DIFF_FACT, DIFF_GROUP_TELEMETRY,
                "Telemetry (readings that move between runs)", w, o);
    put_section(out, cur, r, DIFF_CHANGE, DIFF_FACT, DIFF_GROUP_PERF,
                "Performance within tolerance", w, o);
    size_t tele = 0, perf = 0;
    for (size_t i = 0; i < r->n; i++)
        if (folded(&r->v[i]))
            *(r->v[i].what == DW_PERF ? &perf : &tele) += 1;
    if (!o->verbose && (tele || perf))
        fprintf(out,
                "\n(also changed: %zu telemetry reading%s, %zu performance value%s within "
                "tolerance; -v lists them)\n",
                tele, tele == 1 ? "" : "s", perf, perf == 1 ? "" : "s");
    size_t nr = r->count[DIFF_REGRESSION], ni = r->count[DIFF_IMPROVEMENT],
           nc = r->count[DIFF_CHANGE];
    fprintf(out, "\n%zu regression%s, %zu improvement%s, %zu change%s: %s\n", nr,
            nr == 1 ? "" : "s", ni, ni == 1 ? "" : "s", nc, nc == 1 ? "" : "s",
            nr ? "the gate fails (exit 1)" : "no regression (exit 0)");
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_run(FILE *out, const char *key, const struct diff_doc *d)
{
    const struct json *host = json_get(d->root, "host"), *tool = json_get(d->root, "tool");
    fprintf(out, "  \"%s\": {\"file\": ", key);
    json_write_string(out, d->name);
    fputs(", \"version\": ", out);
    json_write_string(out, str_member(tool, "version"));
    fputs(", \"hostname\": ", out);
    json_write_string(out, str_member(host, "hostname"));
    fputs(", \"level\": ", out);
    json_write_string(out, str_member(host, "level"));
    fputs(", \"started\": ", out);
    json_write_string(out, str_member(host, "started"));
    fputs("},\n", out);
}

static void json_item(FILE *out, const struct diff_doc *cur, const struct diff_item *it)
{
    fprintf(out, "    {\"kind\": \"%s\", ", it->subj == DIFF_CHECK ? "check" : "fact");
    fputs(it->subj == DIFF_CHECK ? "\"id\": " : "\"name\": ", out);
    json_write_string(out, it->name);
    fprintf(out, ", \"change\": \"%s\", \"old\": ", diff_what_name(it->what));
    if (it->subj == DIFF_CHECK) {
        json_write_string(out, diff_check_status(it->old));
        fputs(", \"new\": ", out);
        json_write_string(out, diff_check_status(it->cur));
        fputs(", \"summary\": ", out);
        json_write_string(out, str_member(it->cur, "summary"));
        fputs(", \"old_summary\": ", out);
        json_write_string(out, str_member(it->old, "summary"));
    } else {
        json_write_value(out, it->old);
        fputs(", \"new\": ", out);
        json_write_value(out, it->cur);
        fprintf(out, ", \"group\": \"%s\"", diff_group_name(diff_item_group(it)));
        if (it->what == DW_UNKNOWN) {
            fputs(", \"reason\": ", out);
            json_write_string(out, diff_fact_reason(cur, it->name));
        }
        if (it->what == DW_NUMERICS) {
            fputs(", \"moved\": ", out);
            json_write_number(out, it->at >= 0 ? it->moved : NAN, 9);
            fputs(", \"change_pct\": ", out);
            json_write_number(out, it->at >= 0 ? it->change_pct : NAN, 6);
            fputs(", \"tolerance_pct\": ", out);
            json_write_number(out, it->tol_pct >= 0 ? it->tol_pct : NAN, 6);
            fputs(", \"not_compared\": ", out);
            json_write_string(out, it->at >= 0 ? "" : it->why ? it->why : "?");
        }
        if (it->what == DW_PERF) {
            fprintf(out, ", \"direction\": \"%s\", \"change_pct\": ",
                    it->direction < 0 ? "lower_is_better" : "higher_is_better");
            json_write_number(out, it->change_pct, 6);
            fputs(", \"tolerance_pct\": ", out);
            json_write_number(out, it->tol_pct >= 0 ? it->tol_pct : NAN, 6);
        }
    }
    fputc('}', out);
}

int diff_write_json(FILE *out, const struct diff_doc *base, const struct diff_doc *cur,
                    const struct diff_result *r)
{
    static const char *const keys[] = {"regressions", "improvements", "changes"};
    fputs("{\n  \"schema\": \"" DIFF_SCHEMA_OUT "\",\n", out);
    json_run(out, "baseline", base);
    json_run(out, "current", cur);
    for (int cls = 0; cls < 3; cls++) {
        fprintf(out, "  \"%s\": [", keys[cls]);
        int first = 1;
        for (size_t i = 0; i < r->n; i++) {
            if ((int)r->v[i].cls != cls)
                continue;
            fputs(first ? "\n" : ",\n", out);
            first = 0;
            json_item(out, cur, &r->v[i]);
        }
        fputs(first ? "],\n" : "\n  ],\n", out);
    }
    fprintf(out,
            "  \"summary\": {\"regressions\": %zu, \"improvements\": %zu, \"changes\": %zu, "
            "\"exit_code\": %d}\n}\n",
            r->count[DIFF_REGRESSION], r->count[DIFF_IMPROVEMENT], r->count[DIFF_CHANGE],
            r->count[DIFF_REGRESSION] ? DIFF_EXIT_REGRESSION : DIFF_EXIT_OK);
    if (fflush(out) || ferror(out))
        return error("cannot write the JSON diff");
    return 0;
}

/* ---- the command ----------------------------------------------------------- */

struct diff_cmd_opts {
    struct diff_opts o;
    const char *json, *html;
    int no_color, verbose;
};

int diff_opt_tolerance(void *base, const struct optspec *spec, const char *v)
{
    return diff_tol_add((struct diff_opts *)((char *)base + spec->off), v);
}

static const struct optspec diff_opts_table[] = {
    OPT_OUT(struct diff_cmd_opts, json, "json", 0, "FILE|-", "the comparison as JSON"),
    OPT_OUT(struct diff_cmd_opts, html, "html", 0, "FILE|-", "the comparison as one HTML page"),
    OPT_TOLERANCE(struct diff_cmd_opts, o, "the regression threshold of a figure (repeatable)"),
    OPT_FLAG(struct diff_cmd_opts, o.allow_skip, "allow-skip", 0,
             "a check that passed and now skips is no regression"),
    OPT_NO_COLOR(struct diff_cmd_opts, no_color),
    OPT_VERBOSE(struct diff_cmd_opts, verbose),
    OPT_HELP_VERSION_END,
};

static void diff_more_help(FILE *out)
{
    fputs("Exit status: 0 no regression, 1 regression, 2 usage error or unreadable report.\n", out);
}

const struct cmd_spec diff_spec = {"diff",
                                   "diff",
                                   "BASELINE.json CURRENT.json",
                                   "Compares two JSON reports: checks and figures that got worse.",
                                   diff_opts_table,
                                   diff_more_help};

int diff_cmd(int argc, char **argv)
{
    struct diff_cmd_opts dopt = {0};
    int rc = DIFF_EXIT_USAGE;
    int first = parse_options(argc, argv, &diff_spec, &dopt);
    struct diff_opts o = dopt.o;
    if (first <= 0) {
        rc = first == PARSE_DONE ? DIFF_EXIT_OK : DIFF_EXIT_USAGE;
        goto out;
    }
    const char *json_path = dopt.json, *html_path = dopt.html;
    int no_color = dopt.no_color, verbose = dopt.verbose;
    if (argc - first != 2) {
        error("diff takes two reports, the baseline and the current run (got %d)", argc - first);
        parse_options_usage_short(stderr, &diff_spec);
        goto out;
    }
    if (json_path && html_path && strcmp(json_path, html_path) == 0) {
        error("diff: --json and --html name the same %s '%s'",
              strcmp(json_path, "-") ? "file" : "output", json_path);
        goto out;
    }
    /* the outputs first: a bad path fails before any report is read */
    struct outfile jf = {0}, hf = {0};
    if (json_path && outfile_open(&jf, json_path, 1))
        goto out;
    if (html_path && outfile_open(&hf, html_path, 1)) {
        if (jf.f)
            outfile_close(&jf, 1);
        goto out;
    }
    struct diff_doc base, cur;
    if (diff_doc_load(&base, argv[first])) {
        if (jf.f)
            outfile_close(&jf, 1);
        if (hf.f)
            outfile_close(&hf, 1);
        goto out;
    }
    if (diff_doc_load(&cur, argv[first + 1])) {
        diff_doc_release(&base);
        if (jf.f)
            outfile_close(&jf, 1);
        if (hf.f)
            outfile_close(&hf, 1);
        goto out;
    }
    struct diff_result r;
    rc = diff_compare(&base, &cur, &o, &r) ? DIFF_EXIT_REGRESSION : DIFF_EXIT_OK;
    /* an unwritable output is exit 2 whatever the comparison found */
    int text_to_stdout = !jf.is_stdout && !hf.is_stdout;
    if (jf.f) {
        int failed = diff_write_json(jf.f, &base, &cur, &r) != 0;
        if (outfile_close(&jf, failed))
            rc = DIFF_EXIT_USAGE;
    }
    if (hf.f) {
        int failed = diff_write_html(hf.f, &base, &cur, &r) != 0;
        if (outfile_close(&hf, failed))
            rc = DIFF_EXIT_USAGE;
    }
    FILE *tout = text_to_stdout ? stdout : stderr;
    int tty = isatty(fileno(tout)) && !getenv("NO_COLOR") && !no_color;
    struct diff_text_opts to = {tty, tty, verbose};
    diff_write_text(tout, &base, &cur, &r, &to);
    diff_result_release(&r);
    diff_doc_release(&base);
    diff_doc_release(&cur);
out:
    diff_opts_release(&o);
    return rc;
}
