/* test_vla_json.c - the strict JSON parser behind safetensors headers. */
#include <stdlib.h>
#include <string.h>

#include "../../src/vla/json.h"
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
    /* every prefix of a valid document is rejected without a crash */
    int bad = 0;
    for (size_t n = 0; n < strlen(doc); n++)
        bad += parses("") == 0 && why(doc, n)[0] != 0;
    CHECK(bad == (int)strlen(doc));
    return test_report();
}
