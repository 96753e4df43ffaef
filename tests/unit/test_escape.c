/* test_escape.c - every output format's escaper (src/core/escape.h) fed one
 * hostile corpus: a terminal title and a clear-screen sequence, U+202E and
 * U+0085, bytes that are not UTF-8 (0xff, an overlong NUL, an encoded
 * surrogate), C0 and DEL, spreadsheet formulas, a quote, a comma and a
 * newline. Each output is compared byte for byte. */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/escape.h"
#include "../../src/core/json_out.h"
#include "../../src/core/util.h"
#include "../../src/report/html.h"
#include "../../src/report/report.h"
#include "../../src/report/report_doc.h"
#include "../../src/report/report_prom.h"
#include "test.h"

#define TITLE "\x1b]0;title\x07"
#define CLEAR "\x1b[2J"
#define RLO                                                                                        \
    "a\xe2\x80\xae"                                                                                \
    "b"
#define NEL                                                                                        \
    "a\xc2\x85"                                                                                    \
    "b"
#define FF                                                                                         \
    "a\xff"                                                                                        \
    "b"
#define OVERLONG "\xc0\x80"
#define SURROGATE "\xed\xa0\x80"
#define C0 "\x01\x1f\x7f"
#define FORMULA "=cmd|' /C calc'!A0"

enum fmt { F_TEXT, F_CSV, F_JSON, F_HTML, F_MD, F_PROM, F_HELP, F_XML, F_XML_ATTR };

static char *render(enum fmt f, const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    char *t;
    switch (f) {
    case F_TEXT:
        t = str_sanitize(s, 0);
        fputs(t, m);
        free(t);
        break;
    case F_CSV:
        csv_write_cell(m, s);
        break;
    case F_JSON:
        json_write_string(m, s);
        break;
    case F_HTML:
        html_put(m, s);
        break;
    case F_MD:
        markdown_text(m, s);
        break;
    case F_PROM:
        prom_write_label_value(m, s);
        break;
    case F_HELP:
        prom_write_help(m, s);
        break;
    case F_XML:
    case F_XML_ATTR:
        xml_write_escaped(m, s, f == F_XML_ATTR);
        break;
    }
    fclose(m);
    return buf;
}

#define FFFD "\xef\xbf\xbd"

/* the corpus: each input and what every format makes of it (NULL: not
 * asserted for that format) */
static const struct {
    const char *in;
    const char *want[F_XML_ATTR + 1];
} corpus[] = {
    {TITLE,
     {"\\x1b]0;title\\x07", "\\x1b]0;title\\x07", "\"\\u001b]0;title\\u0007\"",
      "\\x1b]0;title\\x07", "\\\\x1b\\]0;title\\\\x07", "\"\\\\x1b]0;title\\\\x07\"",
      "\\\\x1b]0;title\\\\x07", FFFD "]0;title" FFFD, NULL}},
    {CLEAR,
     {"\\x1b[2J", "\\x1b[2J", "\"\\u001b[2J\"", "\\x1b[2J", "\\\\x1b\\[2J", "\"\\\\x1b[2J\"", NULL,
      FFFD "[2J", NULL}},
    {RLO,
     {"a\\u202eb", "a\\u202eb", "\"a\\u202eb\"", "a\\u202eb", "a\\\\u202eb", "\"a\\\\u202eb\"",
      "a\\\\u202eb", "a&#x202E;b", NULL}},
    {NEL,
     {"a\\u0085b", "a\\u0085b", "\"a\\u0085b\"", "a\\u0085b", "a\\\\u0085b", "\"a\\\\u0085b\"",
      NULL, "a&#x85;b", NULL}},
    {FF,
     {"a\\xffb", "a\\xffb", "\"a" FFFD "b\"", "a\\xffb", "a\\\\xffb", "\"a" FFFD "b\"", NULL,
      "a" FFFD "b", NULL}},
    {OVERLONG,
     {"\\xc0\\x80", "\\xc0\\x80", "\"" FFFD FFFD "\"", "\\xc0\\x80", "\\\\xc0\\\\x80",
      "\"" FFFD FFFD "\"", NULL, FFFD FFFD, NULL}},
    {SURROGATE,
     {"\\xed\\xa0\\x80", "\\xed\\xa0\\x80", "\"" FFFD FFFD FFFD "\"", "\\xed\\xa0\\x80", NULL,
      "\"" FFFD FFFD FFFD "\"", NULL, FFFD FFFD FFFD, NULL}},
    {C0,
     {"\\x01\\x1f\\x7f", "\\x01\\x1f\\x7f", "\"\\u0001\\u001f\\u007f\"", NULL, NULL,
      "\"\\\\x01\\\\x1f\\\\x7f\"", NULL, FFFD FFFD "&#x7F;", NULL}},
    /* formulas: text in CSV (a leading quote, as spreadsheet-safe exporters
     * do), unchanged elsewhere but for each format's own escapes */
    {FORMULA,
     {FORMULA, "'" FORMULA, "\"" FORMULA "\"", "=cmd|&#39; /C calc&#39;!A0",
      "=cmd\\|' /C calc'\\!A0", NULL, NULL, "=cmd|&apos; /C calc&apos;!A0", NULL}},
    {"+1", {"+1", "'+1", "\"+1\"", NULL, NULL, NULL, NULL, NULL, NULL}},
    {"-1", {"-1", "'-1", "\"-1\"", NULL, NULL, NULL, NULL, NULL, NULL}},
    {"@SUM(1)", {"@SUM(1)", "'@SUM(1)", NULL, NULL, "\\@SUM(1)", NULL, NULL, NULL, NULL}},
    {"=1,2", {NULL, "\"'=1,2\"", NULL, NULL, NULL, NULL, NULL, NULL, NULL}},
    /* a tab or CR first is visible in CSV, so it cannot start a formula */
    {"\t=1", {"\\x09=1", "\\x09=1", "\"\\u0009=1\"", NULL, NULL, NULL, NULL, NULL, "&#9;=1"}},
    {"\r=1", {"\\x0d=1", "\\x0d=1", NULL, NULL, NULL, NULL, NULL, NULL, "&#13;=1"}},
    /* a quote, a comma, a newline */
    {"a\"b",
     {"a\"b", "\"a\"\"b\"", "\"a\\\"b\"", "a&quot;b", NULL, "\"a\\\"b\"", "a\"b", "a&quot;b",
      NULL}},
    {"a,b", {"a,b", "\"a,b\"", "\"a,b\"", NULL, NULL, NULL, NULL, "a,b", NULL}},
    {"a\nb",
     {"a\\x0ab", "a\\x0ab", "\"a\\u000ab\"", "a\nb", "a b", "\"a\\nb\"", "a\\nb", "a\nb",
      "a&#10;b"}},
    {"<b a='x'>&",
     {NULL, NULL, NULL, "&lt;b a=&#39;x&#39;&gt;&amp;", "&lt;b a='x'&gt;&amp;", NULL, NULL,
      "&lt;b a=&apos;x&apos;&gt;&amp;", NULL}},
    /* every bidi control of the set */
    {"\xd8\x9c\xe2\x80\x8e\xe2\x80\x8f\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9",
     {"\\u061c\\u200e\\u200f\\u202a\\u2066\\u2069", NULL,
      "\"\\u061c\\u200e\\u200f\\u202a\\u2066\\u2069\"", NULL, NULL, NULL, NULL,
      "&#x61C;&#x200E;&#x200F;&#x202A;&#x2066;&#x2069;", NULL}},
    {"\xef\xbf\xbe", {NULL, NULL, NULL, NULL, NULL, NULL, NULL, FFFD, NULL}}, /* not XML */
    {"caf\xc3\xa9",
     {"caf\xc3\xa9", "caf\xc3\xa9", "\"caf\xc3\xa9\"", NULL, NULL, NULL, NULL, "caf\xc3\xa9",
      NULL}},
    {"", {"", "", "\"\"", "", "", "\"\"", "", "", ""}},
};

static void test_corpus(void)
{
    for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++)
        for (int f = 0; f <= F_XML_ATTR; f++) {
            if (!corpus[i].want[f])
                continue;
            char *got = render((enum fmt)f, corpus[i].in);
            if (strcmp(got, corpus[i].want[f]))
                fprintf(stderr, "corpus %zu, format %d:\n", i, f);
            CHECK_STR(got, corpus[i].want[f]);
            free(got);
        }
    /* keep_newlines: a multi-line message keeps its lines and tabs */
    char *keep = str_sanitize("a\nb\tc\rd", 1);
    CHECK_STR(keep, "a\nb\tc\\x0dd");
    free(keep);
    char *null_cell = render(F_CSV, NULL), *null_json = render(F_JSON, NULL);
    CHECK_STR(null_cell, "");
    CHECK_STR(null_json, "null");
    free(null_cell);
    free(null_json);
}

static void test_json_round_trip(void)
{
    /* the reader takes back exactly what the writer wrote */
    char *w = render(F_JSON, TITLE RLO NEL "\\\"");
    char err[128];
    struct json *j = json_parse(w, strlen(w), err, sizeof(err));
    CHECK(j && j->type == JSON_STR && strcmp(j->str, TITLE RLO NEL "\\\"") == 0);
    json_free(j);
    free(w);

    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    json_write_number(m, 1.5, 17);
    fputc(' ', m);
    json_write_number(m, 0.0 / 0.0, 17);
    fputc(' ', m);
    json_write_number(m, 1.0 / 0.0, 9);
    fputc(' ', m);
    json_write_number(m, 1.0 / 3.0, 6);
    fclose(m);
    CHECK_STR(buf, "1.5 null null 0.333333");
    free(buf);
}

static void check_word(const char *in, const char *want)
{
    struct strbuf sb = STRBUF_INIT;
    shell_word(&sb, in);
    CHECK_STR(sb.buf, want);
    strbuf_release(&sb);
}

/* a fact's value in a fix command: exact bytes, one word, one line */
static void test_shell_word(void)
{
    check_word("gfx1100", "gfx1100");
    check_word("https://download.pytorch.org/whl/rocm6.2",
               "https://download.pytorch.org/whl/rocm6.2");
    check_word("a_b@c%d+e=f:g,h.i/j-k", "a_b@c%d+e=f:g,h.i/j-k");
    check_word("", "''");
    check_word("two words", "'two words'");
    check_word("x; rm -rf /", "'x; rm -rf /'");
    check_word("$(id)`id`", "'$(id)`id`'");
    check_word("it's", "'it'\\''s'");
    check_word("=ls", "'=ls'"); /* zsh reads an unquoted =ls as /usr/bin/ls */
    check_word("-5", "-5");
    check_word("back\\slash", "'back\\slash'");
    /* POSIX form only (issue 30): what no quote carries safely is refused */
    const char *refused[] = {"a\nb",     "t\tq'\\",        "\x7f", "x\rY", "\xff",
                             "\xc0\x80", "a\342\200\256b", /* U+202E: octal, so b is no hex digit */
                             "\xc2\x9b", "zw\xe2\x80\x8b", "-rf",  "--x=1"};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        struct strbuf sb = STRBUF_INIT;
        CHECK(shell_word(&sb, refused[i]) == -1 && sb.len == 0);
        CHECK(shell_word_refusal(refused[i]) != NULL);
        strbuf_release(&sb);
    }
    CHECK(shell_word_refusal("linux-modules-extra-6.8.0") == NULL);
    check_word("caf\xc3\xa9", "'caf\xc3\xa9'");
}

int main(void)
{
    test_corpus();
    test_json_round_trip();
    test_shell_word();
    return test_report();
}
