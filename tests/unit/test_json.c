/* test_json.c - the strict JSON reader (src/core/json.c) behind safetensors
 * headers and reports. */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/util.h"
#include "../../src/core/json.h"
#include "test.h"

static int parses(const char *s)
{
    char err[200];
    struct json *j = json_parse(s, strlen(s), err, sizeof(err));
    json_free(j);
    return j != NULL;
}

static const char *why(const char *s, size_t len)
{
    static char err[200];
    struct json *j = json_parse(s, len, err, sizeof(err));
    json_free(j);
    return j ? "" : err;
}

int main(void)
{
    char err[200];
    const char *doc =
        "{\"a\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [0, 24]},"
        " \"s\": \"\\u00e9\\ud83d\\ude00\\n\", \"t\": true, \"n\": null, \"f\": -1.5e3}";
    struct json *j = json_parse(doc, strlen(doc), err, sizeof(err));
    CHECK(j != NULL);
    if (j) {
        const struct json *a = json_get(j, "a");
        unsigned long long v = 0;
        CHECK(a && a->type == JSON_OBJ);
        CHECK(json_u64(json_get(a, "shape")->items[1], &v) == 0 && v == 3);
        CHECK_STR(json_get(j, "s")->str, "\xc3\xa9\xf0\x9f\x98\x80\n");
        CHECK(json_get(j, "t")->type == JSON_BOOL && json_get(j, "t")->b == 1);
        CHECK(json_get(j, "f")->num == -1500.0);
        CHECK(json_u64(json_get(j, "f"), &v) == -1); /* not a non-negative integer */
        CHECK(json_get(j, "missing") == NULL);
    }
    json_free(j);

    CHECK(parses("[]") && parses("{}") && parses(" 0 ") && parses("\"\""));
    CHECK(!parses(""));
    CHECK(!parses("{\"a\":1,}"));
    CHECK(!parses("[1 2]"));
    CHECK(!parses("01"));
    CHECK(!parses("1."));
    CHECK(!parses("{\"a\":1} x"));
    CHECK(!parses("\"abc"));
    CHECK(!parses("\"tab\there\""));
    CHECK(!parses("\"\\x\""));
    CHECK(!parses("\"\\u12\""));
    CHECK(!parses("\"\\ud800\""));          /* lone surrogate */
    CHECK(!parses("\"\\u0000\""));          /* NUL inside a name */
    CHECK(!parses("\"\xc0\xaf\""));         /* overlong */
    CHECK(!parses("\"\xed\xa0\x80\""));     /* encoded surrogate */
    CHECK(!parses("\"\xf4\x90\x80\x80\"")); /* beyond U+10FFFF */
    CHECK(!parses("\"\xe2\x82\""));         /* truncated sequence */
    CHECK(!parses("tru"));
    CHECK(strstr(why("{\"a\":1,\"a\":2}", 13), "duplicate key 'a'") != NULL);
    CHECK(strstr(why("\"\xff\"", 3), "invalid UTF-8") != NULL);

    /* nesting: 16 levels parse, 17 do not, 100000 do not crash */
    char deep[200001];
    for (int n = 16; n <= 17; n++) {
        memset(deep, '[', (size_t)n);
        memset(deep + n, ']', (size_t)n);
        deep[2 * n] = 0;
        CHECK(parses(deep) == (n == 16));
    }
    memset(deep, '[', 100000);
    memset(deep + 100000, ']', 100000);
    deep[200000] = 0;
    CHECK(strstr(why(deep, 200000), "nesting deeper") != NULL);
    /* many keys: every one found by json_get, a duplicate of an early key
     * at the very end is reported by its name at its own offset (the time
     * bound is tests/hostile_inputs.sh's; this asserts correctness) */
    {
        enum { NK = 200000 };
        struct strbuf sb = STRBUF_INIT;
        strbuf_addc(&sb, '{');
        for (int i = 0; i < NK; i++)
            strbuf_addf(&sb, "%s\"k%d\":%d", i ? "," : "", i, i);
        size_t before_dup = sb.len;
        strbuf_adds(&sb, "}");
        struct json *big = json_parse(sb.buf, sb.len, err, sizeof(err));
        CHECK(big && big->n == NK);
        int found = 0;
        for (int i = 0; big && i < NK; i += 997) {
            char k[16];
            snprintf(k, sizeof(k), "k%d", i);
            const struct json *v = json_get(big, k);
            unsigned long long u;
            found += v && json_u64(v, &u) == 0 && u == (unsigned long long)i;
        }
        CHECK(found == (NK + 996) / 997);
        CHECK(json_get(big, "k200000") == NULL && json_get(big, "") == NULL);
        json_free(big);
        sb.len = before_dup;
        strbuf_adds(&sb, ",\"k7\":0}");
        const char *w = why(sb.buf, sb.len);
        char want[64];
        snprintf(want, sizeof(want), "duplicate key 'k7' at byte %zu", before_dup + 5);
        CHECK_STR(w, want);
        strbuf_release(&sb);
    }
    /* empty key and keys differing only after 8 bytes */
    CHECK(parses("{\"\":1,\"abcdefgh1\":1,\"abcdefgh2\":1}"));
    CHECK(strstr(why("{\"\":1,\"\":2}", 13), "duplicate key ''") != NULL);
    CHECK(strstr(why("{\"abcdefghij\":1,\"abcdefghij\":2}", 31), "duplicate key 'abcdefghij'"));

    /* numbers: strict grammar, no silent rounding of huge literals, no inf */
    CHECK(parses("1e308") && parses("-0") && parses("1e-400") && parses("0.5E+3"));
    CHECK(strstr(why("1e309", 5), "number out of range") != NULL);
    CHECK(strstr(why("-1e999", 6), "number out of range") != NULL);
    CHECK(!parses("+1") && !parses(".5") && !parses("1e") && !parses("1e+") && !parses("-"));
    CHECK(!parses("NaN") && !parses("Infinity") && !parses("0x10") && !parses("1.e5"));
    {
        char num[JSON_MAX_NUMBER + 2];
        memset(num, '0', sizeof(num) - 1);
        num[1] = '.';
        num[JSON_MAX_NUMBER - 1] = '1';
        num[JSON_MAX_NUMBER] = 0; /* the longest literal accepted: 0.00...01 */
        CHECK(parses(num));
        num[JSON_MAX_NUMBER] = '1';
        num[JSON_MAX_NUMBER + 1] = 0;
        CHECK(strstr(why(num, JSON_MAX_NUMBER + 1), "number longer than") != NULL);
        /* a 100-digit literal is read whole, not cut at 63 characters */
        char hundred[102] = "1";
        memset(hundred + 1, '0', 100);
        hundred[101] = 0;
        struct json *h = json_parse(hundred, 101, err, sizeof(err));
        CHECK(h && h->num == 1e100);
        json_free(h);
    }

    /* every prefix of a valid document is rejected without a crash */
    int bad = 0;
    for (size_t n = 0; n < strlen(doc); n++)
        bad += parses("") == 0 && why(doc, n)[0] != 0;
    CHECK(bad == (int)strlen(doc));
    return test_report();
}
