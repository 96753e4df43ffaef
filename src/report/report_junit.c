/* report_junit.c - the JUnit XML report for CI systems (Jenkins, GitLab,
 * GitHub actions), in the common "junit-10" layout of reports/junit.xsd:
 * one <testsuite> with one <testcase> per check.
 *
 * Mapping: fail -> <failure>, error and timeout -> <error>, skip ->
 * <skipped>, pass and warn -> a passing test case (a warning is written to
 * <system-out>; CI gates that want warnings to fail use the exit status of
 * --strict). Evidence goes to <system-out>. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define UTF8_REPLACEMENT "\xEF\xBF\xBD"

void xml_write_escaped(FILE *out, const char *s, int attr)
{
    while (s && *s) {
        unsigned cp;
        int bad;
        size_t n = utf8_next(s, &cp, &bad);
        /* U+FFFE and U+FFFF are valid UTF-8 but not XML 1.0 characters */
        if (bad || cp == 0xfffe || cp == 0xffff) {
            fputs(UTF8_REPLACEMENT, out);
            s += n;
            continue;
        }
        s += n;
        switch (cp) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&apos;", out);
            break;
        case '\t':
        case '\n':
        case '\r':
            /* attribute-value normalisation would turn these into spaces */
            if (attr)
                fprintf(out, "&#%u;", cp);
            else
                fputc((int)cp, out);
            break;
        default:
            if (cp < 0x20) /* other C0 controls cannot appear in XML 1.0 at all */
                fputs(UTF8_REPLACEMENT, out);
            else if (char_unsafe(cp)) /* DEL, C1, bidi: kept, as a reference */
                fprintf(out, "&#x%X;", cp);
            else
                fwrite(s - n, 1, n, out);
        }
    }
}

static void xml_attr(FILE *out, const char *name, const char *value)
{
    fprintf(out, " %s=\"", name);
    xml_write_escaped(out, value, 1);
    fputc('"', out);
}

/* seconds with millisecond precision, '.' as separator whatever the locale */
static void xml_attr_seconds(FILE *out, const char *name, double s)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%.3f", s > 0 && s < 1e12 ? s : 0.0);
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
    xml_attr(out, name, buf);
}

static void property(FILE *out, const char *name, const char *value)
{
    if (!value)
        return;
    fputs("      <property", out);
    xml_attr(out, "name", name);
    xml_attr(out, "value", value);
    fputs("/>\n", out);
}

/* the fix as lines, each command whole on its own (indented), without the
 * last line break; NULL when none */
static char *junit_fix(const struct result *res)
{
    struct fix fx = result_fix(res);
    char *s = fix_lines(&fx, "  ");
    if (s && *s)
        s[strlen(s) - 1] = '\0';
    return s;
}

static void write_system_out(FILE *out, const struct result *res)
{
    fputs("      <system-out>", out);
    if (res->st == ST_WARN) {
        fputs("warning: ", out);
        xml_write_escaped(out, res->summary, 0);
        char *fix = junit_fix(res);
        if (fix) {
            fputs(" / fix: ", out);
            xml_write_escaped(out, fix, 0);
        }
        free(fix);
    } else {
        fprintf(out, "%s: ", status_name(res->st));
        xml_write_escaped(out, res->summary, 0);
    }
    fputc('\n', out);
    if (res->nev)
        fputs("evidence:\n", out);
    for (size_t i = 0; i < res->nev; i++) {
        const struct evidence *ev = &res->ev[i];
        char *v = ev->fact ? fact_to_text(ev->fact) : xstrdup("not probed");
        fputs("  ", out);
        xml_write_escaped(out, ev->name, 0);
        fputs(" = ", out);
        xml_write_escaped(out, v, 0);
        if (ev->fact && ev->fact->type == FACT_UNKNOWN && ev->fact->reason) {
            fputs(" (", out);
            xml_write_escaped(out, ev->fact->reason, 0);
            fputc(')', out);
        } else if (ev->fact && ev->fact->source) {
            fputs(" [", out);
            xml_write_escaped(out, ev->fact->source, 0);
            fputc(']', out);
        }
        fputc('\n', out);
        free(v);
    }
    fputs("</system-out>\n", out);
}

/* evidence of another GPU than gpu (gpu.<j>.x, j != gpu): not this
 * testcase's */
static int other_gpu_fact(const char *name, int gpu)
{
    char pre[32];
    if (!str_starts(name, "gpu.") || name[4] < '0' || name[4] > '9')
        return 0;
    snprintf(pre, sizeof(pre), "gpu.%d.", gpu);
    return !str_starts(name, pre);
}

static void write_testcase(FILE *out, const struct result *res, const char *name)
{
    const char *id = res->check->id;
    const char *dot = strchr(id, '.');
    char *classname = dot ? xstrndup(id, (size_t)(dot - id)) : xstrdup(id);
    const char *summary = res->summary ? res->summary : "";

    fputs("    <testcase", out);
    xml_attr(out, "classname", classname);
    xml_attr(out, "name", name ? name : id);
    fputs(">\n", out);
    free(classname);
    switch (res->st) {
    case ST_FAIL:
        fputs("      <failure", out);
        xml_attr(out, "message", summary);
        xml_attr(out, "type", "fail");
        fputc('>', out);
        char *fix = junit_fix(res);
        xml_write_escaped(out, fix ? fix : summary, 0);
        free(fix);
        fputs("</failure>\n", out);
        break;
    case ST_ERROR:
    case ST_TIMEOUT:
        fputs("      <error", out);
        xml_attr(out, "message", summary);
        xml_attr(out, "type", status_name(res->st));
        fputs("/>\n", out);
        break;
    case ST_SKIP:
        fputs("      <skipped", out);
        xml_attr(out, "message", summary);
        fputs("/>\n", out);
        break;
    default: /* pass, warn */
        break;
    }
    write_system_out(out, res);
    fputs("    </testcase>\n", out);
}

/* a per-GPU check judged on several GPUs is one testcase per GPU (issue 34:
 * a CI page then names each broken GPU), "ID (GPU 3, 0000:75:00.0)", with
 * that GPU's status, summary, fix and evidence; any other check, and one
 * judged on one GPU (its name stays stable for a 1-GPU machine's CI
 * history), is one testcase */
static void write_check(FILE *out, const struct result *res)
{
    if (res->ngpus < 2) { /* one GPU keeps the check's own name */
        write_testcase(out, res, NULL);
        return;
    }
    for (size_t j = 0; j < res->ngpus; j++) {
        const struct gpu_verdict *g = &res->gpus[j];
        struct result one = *res;
        one.st = g->st;
        one.summary = g->summary;
        one.fix = g->fix;
        memset(&one.fix_parts, 0, sizeof(one.fix_parts));
        one.ev = xcalloc(res->nev + 1, sizeof(*one.ev));
        one.nev = 0;
        for (size_t i = 0; i < res->nev; i++)
            if (!other_gpu_fact(res->ev[i].name, g->gpu))
                one.ev[one.nev++] = res->ev[i];
        char *name = g->pci ? xasprintf("%s (GPU %d, %s)", res->check->id, g->gpu, g->pci)
                            : xasprintf("%s (GPU %d)", res->check->id, g->gpu);
        write_testcase(out, &one, name);
        free(name);
        free(one.ev);
    }
}

int report_junit_write(FILE *out, const struct report_meta *m, const struct results *r)
{
    char num[4][32];
    size_t c[ST__COUNT] = {0}, n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct result *res = &r->v[i];
        for (size_t j = 0; res->ngpus > 1 && j < res->ngpus; j++)
            c[res->gpus[j].st]++;
        if (res->ngpus < 2)
            c[res->st]++;
        n += res->ngpus > 1 ? res->ngpus : 1;
    }
    snprintf(num[0], sizeof(num[0]), "%zu", n);
    snprintf(num[1], sizeof(num[1]), "%zu", c[ST_FAIL]);
    snprintf(num[2], sizeof(num[2]), "%zu", c[ST_ERROR] + c[ST_TIMEOUT]);
    snprintf(num[3], sizeof(num[3]), "%zu", c[ST_SKIP]);

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", out);
    xml_attr(out, "name", "rocm-vla-doctor");
    xml_attr(out, "tests", num[0]);
    xml_attr(out, "failures", num[1]);
    xml_attr(out, "errors", num[2]);
    xml_attr_seconds(out, "time", m->duration_s);
    fputs(">\n  <testsuite", out);
    xml_attr(out, "name", "rocm-vla-doctor");
    xml_attr(out, "tests", num[0]);
    xml_attr(out, "failures", num[1]);
    xml_attr(out, "errors", num[2]);
    xml_attr(out, "skipped", num[3]);
    xml_attr_seconds(out, "time", m->duration_s);
    if (m->started)
        xml_attr(out, "timestamp", m->started);
    xml_attr(out, "hostname", m->hostname ? m->hostname : "unknown");
    fputs(">\n    <properties>\n", out);
    property(out, "version", m->version);
    property(out, "level", m->level);
    property(out, "checks", m->checks);
    property(out, "sysroot", m->sysroot);
    property(out, "os", m->os);
    property(out, "kernel", m->kernel);
    property(out, "strict", m->strict ? "true" : "false");
    fputs("    </properties>\n", out);
    for (size_t i = 0; i < r->n; i++)
        write_check(out, &r->v[i]);
    fputs("  </testsuite>\n</testsuites>\n", out);
    if (fflush(out) || ferror(out))
        return error("cannot write the JUnit report");
    return 0;
}
