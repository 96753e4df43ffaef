/* test_report.c - the JSON and JUnit writers: escaping, null for unknown and
 * non-finite values, a small result set rendered and parsed back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/report/report.h"
#include "test.h"

/* ---- capture a writer's output ---------------------------------------- */

static char *capture_json_string(const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    json_write_string(f, s);
    fclose(f);
    return buf;
}

static char *capture_fact(const struct fact *fa)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    json_write_fact_value(f, fa);
    fclose(f);
    return buf;
}

static char *capture_xml(const char *s, int attr)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    xml_write_escaped(f, s, attr);
    fclose(f);
    return buf;
}

#define CHECK_JSON_STR(in, want)                                                                   \
    do {                                                                                           \
        char *got_ = capture_json_string(in);                                                      \
        CHECK_STR(got_, want);                                                                     \
        free(got_);                                                                                \
    } while (0)

#define CHECK_XML(in, attr, want)                                                                  \
    do {                                                                                           \
        char *got_ = capture_xml(in, attr);                                                        \
        CHECK_STR(got_, want);                                                                     \
        free(got_);                                                                                \
    } while (0)

/* ---- a strict JSON syntax checker (RFC 8259), enough to parse back ---- */

struct jp {
    const char *p;
    int depth;
};

static int jp_value(struct jp *j);

static void jp_ws(struct jp *j)
{
    while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')
        j->p++;
}

static int jp_string(struct jp *j)
{
    if (*j->p != '"')
        return -1;
    j->p++;
    while (*j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        if (c < 0x20)
            return -1; /* raw control character */
        if (c == '\\') {
            j->p++;
            if (*j->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i])
                        return -1;
                j->p += 5;
                continue;
            }
            if (!*j->p || !strchr("\"\\/bfnrt", *j->p))
                return -1;
        } else if (c >= 0x80) {
            int bad;
            unsigned cp;
            size_t n = utf8_next(j->p, &cp, &bad);
            if (bad)
                return -1;
            j->p += n;
            continue;
        }
        j->p++;
    }
    j->p++;
    return 0;
}

static int jp_number(struct jp *j)
{
    const char *s = j->p;
    if (*j->p == '-')
        j->p++;
    if (*j->p == '0')
        j->p++;
    else if (*j->p >= '1' && *j->p <= '9')
        while (*j->p >= '0' && *j->p <= '9')
            j->p++;
    else
        return -1;
    if (*j->p == '.') {
        j->p++;
        if (!(*j->p >= '0' && *j->p <= '9'))
            return -1;
        while (*j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    if (*j->p == 'e' || *j->p == 'E') {
        j->p++;
        if (*j->p == '+' || *j->p == '-')
            j->p++;
        if (!(*j->p >= '0' && *j->p <= '9'))
            return -1;
        while (*j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    return j->p > s ? 0 : -1;
}

static int jp_members(struct jp *j, char close, int keyed)
{
    j->p++;
    jp_ws(j);
    if (*j->p == close) {
        j->p++;
        return 0;
    }
    for (;;) {
        jp_ws(j);
        if (keyed) {
            if (jp_string(j))
                return -1;
            jp_ws(j);
            if (*j->p++ != ':')
                return -1;
        }
        if (jp_value(j))
            return -1;
        jp_ws(j);
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p == close) {
            j->p++;
            return 0;
        }
        return -1;
    }
}

static int jp_value(struct jp *j)
{
    int rc;
    jp_ws(j);
    if (++j->depth > 64)
        return -1;
    switch (*j->p) {
    case '{':
        rc = jp_members(j, '}', 1);
        break;
    case '[':
        rc = jp_members(j, ']', 0);
        break;
    case '"':
        rc = jp_string(j);
        break;
    case 't':
        rc = strncmp(j->p, "true", 4) ? -1 : (j->p += 4, 0);
        break;
    case 'f':
        rc = strncmp(j->p, "false", 5) ? -1 : (j->p += 5, 0);
        break;
    case 'n':
        rc = strncmp(j->p, "null", 4) ? -1 : (j->p += 4, 0);
        break;
    default:
        rc = jp_number(j);
    }
    j->depth--;
    return rc;
}

static int json_well_formed(const char *text)
{
    struct jp j = {text, 0};
    if (jp_value(&j))
        return 0;
    jp_ws(&j);
    return *j.p == '\0';
}

/* ---- tests ------------------------------------------------------------ */

static void test_json_strings(void)
{
    CHECK_JSON_STR("plain", "\"plain\"");
    CHECK_JSON_STR("", "\"\"");
    CHECK_JSON_STR(NULL, "null");
    CHECK_JSON_STR("say \"hi\"", "\"say \\\"hi\\\"\"");
    CHECK_JSON_STR("C:\\path", "\"C:\\\\path\"");
    CHECK_JSON_STR("a\nb\tc\rd", "\"a\\u000ab\\u0009c\\u000dd\"");
    CHECK_JSON_STR("\x01\x1f", "\"\\u0001\\u001f\"");
    /* DEL, C1 and bidi controls as \u escapes: the exact text for a parser,
     * nothing a terminal acts on for a cat of the file */
    CHECK_JSON_STR("/ and \x7f", "\"/ and \\u007f\"");
    CHECK_JSON_STR("\xC2\x85\xC2\x9B\xE2\x80\xAE", "\"\\u0085\\u009b\\u202e\"");
    /* valid UTF-8 passes through untouched */
    CHECK_JSON_STR("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",
                   "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
    /* invalid bytes become U+FFFD */
    CHECK_JSON_STR("a\xFFz", "\"a\xEF\xBF\xBDz\"");
    CHECK_JSON_STR("\x80", "\"\xEF\xBF\xBD\"");
    CHECK_JSON_STR("end\xC3", "\"end\xEF\xBF\xBD\"");           /* truncated at the end */
    CHECK_JSON_STR("\xE2\x82x", "\"\xEF\xBF\xBDx\"");           /* truncated, one U+FFFD */
    CHECK_JSON_STR("\xC0\xAF", "\"\xEF\xBF\xBD\xEF\xBF\xBD\""); /* overlong '/' */
    CHECK_JSON_STR("\xE0\x80\xAF", "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
    CHECK_JSON_STR("\xED\xA0\x80", "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""); /* surrogate */
    CHECK_JSON_STR("\xF4\x90\x80\x80", "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
    CHECK_JSON_STR("\xF4\x8F\xBF\xBF", "\"\xF4\x8F\xBF\xBF\""); /* U+10FFFF is fine */

    /* every escaped form parses back */
    char *s = capture_json_string("\"\\\x01\xFF\xC3\xA9\n");
    CHECK(json_well_formed(s));
    free(s);
}

static void test_json_values(void)
{
    struct factset fs = FACTSET_INIT;
    struct strlist l = STRLIST_INIT;
    strlist_add(&l, "gfx90a");
    strlist_add(&l, "q\"uote");
    fact_set_unknown(&fs, "u", "/sys/x", "not present");
    fact_set_bool(&fs, "b", 1, NULL);
    fact_set_bool(&fs, "b0", 0, NULL);
    fact_set_int(&fs, "i", -42, NULL);
    fact_set_int(&fs, "zero", 0, NULL);
    fact_set_int(&fs, "big", INT64_MAX, NULL);
    fact_set_float(&fs, "f", 0.1, NULL);
    fact_set_float(&fs, "nan", NAN, NULL);
    fact_set_float(&fs, "inf", INFINITY, NULL);
    fact_set_float(&fs, "ninf", -INFINITY, NULL);
    fact_set_str(&fs, "s", "x", NULL);
    fact_set_list(&fs, "l", &l, NULL);
    fact_set_list(&fs, "empty", NULL, NULL);

    static const struct {
        const char *name, *want;
    } cases[] = {
        {"u", "null"},
        {"b", "true"},
        {"b0", "false"},
        {"i", "-42"},
        {"zero", "0"},
        {"big", "9223372036854775807"},
        {"f", "0.10000000000000001"},
        {"nan", "null"},
        {"inf", "null"},
        {"ninf", "null"},
        {"s", "\"x\""},
        {"l", "[\"gfx90a\", \"q\\\"uote\"]"},
        {"empty", "[]"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *got = capture_fact(fact_get(&fs, cases[i].name));
        CHECK_STR(got, cases[i].want);
        free(got);
    }
    char *got = capture_fact(NULL); /* evidence that no probe produced */
    CHECK_STR(got, "null");
    free(got);
    strlist_release(&l);
    factset_release(&fs);
}

/* a checkset-free result set: two checks and their evidence */
struct sample {
    struct factset fs;
    struct check ck[4];
    struct result res[4];
    struct evidence ev[3];
    struct results r;
    struct report_meta m;
};

static void sample_init(struct sample *s)
{
    memset(s, 0, sizeof(*s));
    /* inserted out of order: the report sorts, the factset must not change */
    fact_set_str(&s->fs, "z.last", "tail", "/proc/z");
    fact_set_int(&s->fs, "gpu.0.vram_bytes", 8589934592LL,
                 "/sys/class/drm/card0/device/mem_info_vram_total");
    fact_set_unknown(&s->fs, "a.first", "/sys/a", "cannot read /sys/a: Permission denied");
    fact_set_float(&s->fs, "gpu.0.temp_c", NAN, "hwmon");

    s->ck[0] = (struct check){.id = "gpu.vram", .title = "enough VRAM", .level = LEVEL_QUICK};
    s->ck[1] = (struct check){
        .id = "kfd.access", .title = "kfd <opens> & \"works\"", .level = LEVEL_STANDARD};
    s->ck[2] = (struct check){.id = "pcie.link", .title = "link", .level = LEVEL_QUICK};
    s->ck[3] = (struct check){.id = "vla", .title = "workload", .level = LEVEL_FULL};

    s->ev[0] = (struct evidence){"gpu.0.vram_bytes", fact_get(&s->fs, "gpu.0.vram_bytes")};
    s->ev[1] = (struct evidence){"a.first", fact_get(&s->fs, "a.first")};
    s->ev[2] = (struct evidence){"never.probed", NULL};

    s->res[0] = (struct result){&s->ck[0], ST_FAIL, "8 GiB < 12 GiB", "use a \"bigger\" GPU",
                                s->ev,     1,       "fail[0]",        .fix_parts = FIX_INIT};
    s->res[1] = (struct result){&s->ck[1],
                                ST_SKIP,
                                "cannot tell: a.first is unknown\x01",
                                NULL,
                                s->ev + 1,
                                2,
                                "fail[0]?",
                                .fix_parts = FIX_INIT};
    s->res[2] = (struct result){&s->ck[2], ST_WARN, "x8 <not x16>", "reseat the card",
                                NULL,      0,       "warn[1]",      .fix_parts = FIX_INIT};
    s->res[3] = (struct result){&s->ck[3], ST_TIMEOUT, "probe vla timed out", NULL, NULL,
                                0,         "probe",    .fix_parts = FIX_INIT};
    s->r.v = s->res;
    s->r.n = 4;
    s->r.counts[ST_FAIL] = s->r.counts[ST_SKIP] = s->r.counts[ST_WARN] = 1;
    s->r.counts[ST_TIMEOUT] = 1;

    s->m = (struct report_meta){RVD_VERSION,
                                "quick",
                                NULL,
                                "(built in)",
                                "box",
                                "6.8.0",
                                "Ubuntu 24.04",
                                "2025-01-02T03:04:05Z",
                                1.5,
                                0,
                                "as of 2026-12 (newest ROCm 10.1)"};
}

static char *render_json(const struct sample *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    CHECK(report_json_write(f, &s->m, &s->fs, &s->r) == 0);
    fclose(f);
    return buf;
}

static void test_json_report(void)
{
    struct sample s;
    sample_init(&s);
    char *j = render_json(&s);
    CHECK(json_well_formed(j));
    CHECK(strstr(j, "\"schema\": \"rocm-vla-doctor/1\"") != NULL);
    CHECK(strstr(j, "\"hostname\": \"box\"") != NULL);
    CHECK(strstr(j, "\"sysroot\": null") != NULL);
    CHECK(strstr(j, "\"duration_s\": 1.5") != NULL);
    CHECK(strstr(j, "\"a.first\": null") != NULL);
    CHECK(strstr(j, "\"gpu.0.temp_c\": null") != NULL);
    CHECK(strstr(j, "\"gpu.0.vram_bytes\": 8589934592") != NULL);
    CHECK(strstr(j, "\"a.first\": {\"source\": \"/sys/a\", \"reason\": \"cannot read /sys/a: "
                    "Permission denied\"}") != NULL);
    CHECK(strstr(j, "\"z.last\": {\"source\": \"/proc/z\", \"reason\": null}") != NULL);
    /* facts sorted by name in the report ... */
    const char *a = strstr(j, "\"a.first\""), *g = strstr(j, "\"gpu.0.temp_c\""),
               *z = strstr(j, "\"z.last\"");
    CHECK(a && g && z && a < g && g < z);
    /* ... while the factset keeps its order */
    CHECK_STR(s.fs.v[0]->name, "z.last");
    CHECK_STR(s.fs.v[2]->name, "a.first");
    CHECK(strstr(j, "\"status\": \"fail\"") != NULL);
    CHECK(strstr(j, "\"fix\": \"use a \\\"bigger\\\" GPU\"") != NULL);
    CHECK(strstr(j, "\"title\": \"kfd <opens> & \\\"works\\\"\"") != NULL);
    CHECK(strstr(j, "\"level\": \"standard\"") != NULL);
    CHECK(strstr(j, "unknown\\u0001\"") != NULL);
    CHECK(strstr(j, "\"fix\": null") != NULL);
    /* which rule decided, for tests and readers to compare */
    CHECK(strstr(j, "\"rule\": \"fail[0]\"") != NULL);
    CHECK(strstr(j, "\"rule\": \"fail[0]?\"") != NULL);
    CHECK(strstr(j, "\"rule\": \"probe\"") != NULL);
    CHECK(strstr(j, "\"never.probed\": null") != NULL);
    CHECK(strstr(j, "\"evidence\": {}") != NULL);
    CHECK(strstr(j, "\"status\": \"timeout\"") != NULL);
    CHECK(strstr(j, "\"summary\": {\"pass\": 0, \"warn\": 1, \"fail\": 1, \"skip\": 1, "
                    "\"error\": 0, \"timeout\": 1, \"total\": 4, \"exit_code\": 1}") != NULL);
    free(j);

    /* exit_code follows --strict: only a warning left */
    s.r.n = 3;
    s.res[0].st = ST_PASS;
    s.r.counts[ST_FAIL] = s.r.counts[ST_TIMEOUT] = 0;
    s.r.counts[ST_PASS] = 1;
    j = render_json(&s);
    CHECK(strstr(j, "\"exit_code\": 0}") != NULL);
    free(j);
    s.m.strict = 1;
    j = render_json(&s);
    CHECK(strstr(j, "\"exit_code\": 1}") != NULL);
    CHECK(json_well_formed(j));
    free(j);

    /* an empty run is still a well-formed document */
    struct factset none = FACTSET_INIT;
    struct results empty = {NULL, 0, {0}};
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    CHECK(report_json_write(f, &s.m, &none, &empty) == 0);
    fclose(f);
    CHECK(json_well_formed(buf));
    CHECK(strstr(buf, "\"facts\": {}") != NULL);
    CHECK(strstr(buf, "\"checks\": []") != NULL);
    free(buf);
    factset_release(&s.fs);
}

static void test_xml_escaping(void)
{
    CHECK_XML("<a & 'b' \"c\">", 0, "&lt;a &amp; &apos;b&apos; &quot;c&quot;&gt;");
    CHECK_XML("line1\nline2\ttab", 0, "line1\nline2\ttab");
    CHECK_XML("line1\nline2\ttab\r", 1, "line1&#10;line2&#9;tab&#13;");
    CHECK_XML("bell\x07!", 0, "bell\xEF\xBF\xBD!"); /* illegal in XML 1.0 */
    CHECK_XML("esc\x1b[0m", 1, "esc\xEF\xBF\xBD[0m");
    CHECK_XML("caf\xC3\xA9", 0, "caf\xC3\xA9");
    CHECK_XML("bad\xFF", 0, "bad\xEF\xBF\xBD");
    CHECK_XML("\xEF\xBF\xBE\xEF\xBF\xBF", 0, "\xEF\xBF\xBD\xEF\xBF\xBD"); /* U+FFFE, U+FFFF */
    CHECK_XML("\xEF\xBF\xBD", 0, "\xEF\xBF\xBD");
    CHECK_XML("", 0, "");
    CHECK_XML(NULL, 0, "");
}

static void test_junit_report(void)
{
    struct sample s;
    sample_init(&s);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    CHECK(report_junit_write(f, &s.m, &s.r) == 0);
    fclose(f);
    CHECK(str_starts(buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
    CHECK(strstr(buf, "<testsuite name=\"rocm-vla-doctor\" tests=\"4\" failures=\"1\" "
                      "errors=\"1\" skipped=\"1\" time=\"1.500\" "
                      "timestamp=\"2025-01-02T03:04:05Z\" hostname=\"box\">") != NULL);
    CHECK(strstr(buf, "<testcase classname=\"gpu\" name=\"gpu.vram\">") != NULL);
    CHECK(strstr(buf, "<failure message=\"8 GiB &lt; 12 GiB\" type=\"fail\">use a "
                      "&quot;bigger&quot; GPU</failure>") != NULL);
    CHECK(strstr(buf, "<skipped message=\"cannot tell: a.first is unknown\xEF\xBF\xBD\"/>") !=
          NULL);
    CHECK(strstr(buf, "warning: x8 &lt;not x16&gt; / fix: reseat the card") != NULL);
    CHECK(strstr(buf, "<testcase classname=\"vla\" name=\"vla\">") != NULL);
    CHECK(strstr(buf, "<error message=\"probe vla timed out\" type=\"timeout\"/>") != NULL);
    CHECK(strstr(buf, "gpu.0.vram_bytes = 8589934592 [/sys/class/drm/card0/device/"
                      "mem_info_vram_total]") != NULL);
    CHECK(strstr(buf, "never.probed = not probed") != NULL);
    CHECK(strstr(buf, "a.first = unknown (cannot read /sys/a: Permission denied)") != NULL);
    CHECK(str_ends(buf, "</testsuite>\n</testsuites>\n"));
    /* a warning is not a JUnit failure: one <failure> only */
    const char *first = strstr(buf, "<failure");
    CHECK(first && !strstr(first + 1, "<failure"));
    free(buf);
    factset_release(&s.fs);
}

int main(void)
{
    test_json_strings();
    test_json_values();
    test_json_report();
    test_xml_escaping();
    test_junit_report();
    return test_report();
}
