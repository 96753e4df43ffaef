/* html_page.c - escaping and the page skeleton shared by the HTML report,
 * the diff and the fleet pages (html.h). */
#include "html.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

void html_put(FILE *f, const char *s)
{
    if (!s)
        return;
    /* controls and bidi characters visible first, so that the page shows
     * what the file held and nothing can hide text from the reader */
    char *safe = str_sanitize(s, 1);
    for (const char *p = safe; *p; p++) {
        switch (*p) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc(*p, f);
        }
    }
    free(safe);
}

void html_el(FILE *f, const char *open, const char *text, const char *close)
{
    fputs(open, f);
    html_put(f, text);
    fputs(close, f);
}

void html_putf(FILE *f, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    html_put(f, sb.buf ? sb.buf : "");
    strbuf_release(&sb);
}

void html_num(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("unknown", f);
        return;
    }
    char buf[48];
    snprintf(buf, sizeof(buf), "%.4g", v);
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
    fputs(buf, f);
}

/* colours: the text report's (green pass, yellow warn, red fail), readable
 * on white and in print */
static const char css[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:72em;color:#222;padding:0 1em}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}"
    "th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".st{font-weight:bold;padding:.05em .45em;border-radius:.3em;color:#fff}"
    ".st-pass{background:#2e7d32}.st-warn{background:#b26a00}.st-fail{background:#c62828}"
    ".st-error{background:#6a1b9a}.st-timeout{background:#4527a0}.st-skip{background:#757575}"
    ".st-unknown{background:#455a64}"
    "tr.row-fail td{background:#fdecea}tr.row-warn td{background:#fff4e0}"
    ".finding{border-left:.3em solid #ccc;padding:.2em .8em;margin:.8em 0}"
    ".finding.fail,.finding.error,.finding.timeout{border-color:#c62828}"
    ".finding.warn{border-color:#b26a00}"
    ".fix{background:#f5f5f5;padding:.3em .6em;white-space:pre-wrap}"
    ".fix p{margin:.2em 0}.fix pre.cmd{white-space:pre;overflow-x:auto;margin:.2em 0}"
    ".unknown{color:#757575;font-style:italic}code{font-size:.95em}"
    ".verdict{font-size:1.1em;margin:.6em 0}"
    "svg{display:block;margin:.6em 0 1.2em 0;font-family:sans-serif;font-size:12px}"
    "svg .bar{fill:#1565c0}svg .bar.over{fill:#c62828}svg .before{fill:#90a4ae}"
    "svg .mark{stroke:#000;stroke-width:2}svg .ref{stroke:#c62828;stroke-width:1.5;"
    "stroke-dasharray:4 3}svg .median{stroke:#2e7d32;stroke-width:1.5;stroke-dasharray:4 3}"
    "svg .dot{fill:#1565c0}svg .axis{stroke:#999}svg .title{font-weight:bold;font-size:13px}"
    "svg .unk{fill:#757575;font-style:italic}";

void html_page_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    html_put(f, title);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
    html_put(f, title);
    fputs("</h1>\n", f);
}

void html_page_end(FILE *f)
{
    fputs("</body>\n</html>\n", f);
}

void html_status(FILE *f, const char *status)
{
    static const char *const known[] = {"pass", "warn", "fail", "skip", "error", "timeout"};
    const char *cls = "unknown";
    for (size_t i = 0; i < ARRAY_SIZE(known); i++)
        if (status && strcmp(status, known[i]) == 0)
            cls = known[i];
    fprintf(f, "<span class=\"st st-%s\">", cls);
    html_put(f, status ? status : "unknown");
    fputs("</span>", f);
}
