/* test_snapshot_path.c - the lexical checks of tar member names and link
 * targets (src/snapshot/snapshot_path.c) on every shape of name: each
 * sequence of 1 to 4 components drawn from ".", "..", "" and a plain name,
 * with and without a leading and a trailing '/', is split and checked
 * against the rule stated independently here (by the final string: empty,
 * absolute, any "..", else the plain components in order). A refused name
 * must leave the caller's list exactly as it was (the double free of
 * "./../x" was a refusal that had already freed part of it); run under
 * ASan, any second free or leak shows. Then the same shapes as link
 * targets from directories 0 to 2 deep, and the length, depth and newline
 * limits. */
#include <stdlib.h>
#include <string.h>

#include "../../src/core/util.h"
#include "../../src/snapshot/snapshot_path.h"
#include "../../src/snapshot/snapshot_tar.h"
#include "test.h"

#define MAXC 4
static const char *const alphabet[] = {".", "..", "", "a"};
#define NALPHA 4

/* the rule, by the string: what snapshot_path_split must say, and the
 * components it must give (appended to want) */
static enum snapshot_path_verdict expect_name(const char *s, struct strlist *want)
{
    if (!*s)
        return SNAPSHOT_PATH_EMPTY;
    if (s[0] == '/')
        return SNAPSHOT_PATH_ABSOLUTE;
    struct strlist parts = STRLIST_INIT;
    strlist_split(&parts, s, "/");
    enum snapshot_path_verdict v = SNAPSHOT_PATH_OK;
    for (size_t i = 0; i < parts.n; i++) {
        if (strcmp(parts.v[i], "..") == 0)
            v = SNAPSHOT_PATH_DOTDOT;
        else if (strcmp(parts.v[i], ".") != 0)
            strlist_add(want, parts.v[i]);
    }
    strlist_release(&parts);
    return v;
}

/* as a link target from a directory depth deep: climbs above the root? */
static enum snapshot_path_verdict expect_link(size_t depth, const char *s)
{
    if (!*s)
        return SNAPSHOT_PATH_EMPTY;
    if (s[0] == '/')
        return SNAPSHOT_PATH_ABSOLUTE;
    struct strlist parts = STRLIST_INIT;
    strlist_split(&parts, s, "/");
    long d = (long)depth;
    enum snapshot_path_verdict v = SNAPSHOT_PATH_OK;
    for (size_t i = 0; i < parts.n && !v; i++) {
        if (strcmp(parts.v[i], "..") == 0)
            v = --d < 0 ? SNAPSHOT_PATH_LEAVES : SNAPSHOT_PATH_OK;
        else if (strcmp(parts.v[i], ".") != 0)
            d++;
    }
    strlist_release(&parts);
    return v;
}

static int lists_equal(const struct strlist *a, const struct strlist *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0)
            return 0;
    return 1;
}

static int n_names, n_refused, n_links;

static void check_one(const char *name)
{
    /* the caller's list holds an entry already: a refusal leaves it alone,
     * a success appends after it */
    struct strlist got = STRLIST_INIT, want = STRLIST_INIT;
    strlist_add(&got, "kept");
    strlist_add(&want, "kept");
    enum snapshot_path_verdict v = snapshot_path_split(name, &got);
    enum snapshot_path_verdict ev = expect_name(name, &want);
    if (ev) { /* a refusal adds nothing */
        strlist_release(&want);
        strlist_add(&want, "kept");
        n_refused++;
    }
    n_names++;
    if (v != ev || !lists_equal(&got, &want)) {
        test_failed++;
        fprintf(stderr, "split '%s': verdict %d (%s), want %d; %zu components, want %zu\n", name, v,
                snapshot_path_why(v, 0), ev, got.n, want.n);
    } else {
        test_passed++;
    }
    strlist_release(&got);
    strlist_release(&want);
    for (size_t depth = 0; depth < 3; depth++) {
        n_links++;
        enum snapshot_path_verdict lv = snapshot_path_link_ok(depth, name);
        if (lv != expect_link(depth, name)) {
            test_failed++;
            fprintf(stderr, "link '%s' from depth %zu: verdict %d, want %d\n", name, depth, lv,
                    expect_link(depth, name));
        } else {
            test_passed++;
        }
    }
}

/* every sequence of k components (k = 1..MAXC), each a letter of the
 * alphabet, the plain ones numbered by position so that the order shows */
static void all_combinations(void)
{
    for (int k = 1; k <= MAXC; k++) {
        int total = 1;
        for (int i = 0; i < k; i++)
            total *= NALPHA;
        for (int code = 0; code < total; code++)
            for (int lead = 0; lead < 2; lead++)
                for (int trail = 0; trail < 2; trail++) {
                    struct strbuf sb = STRBUF_INIT;
                    if (lead)
                        strbuf_addc(&sb, '/');
                    for (int i = 0, c = code; i < k; i++, c /= NALPHA) {
                        if (i)
                            strbuf_addc(&sb, '/');
                        const char *comp = alphabet[c % NALPHA];
                        if (strcmp(comp, "a") == 0)
                            strbuf_addf(&sb, "a%d", i);
                        else
                            strbuf_adds(&sb, comp);
                    }
                    if (trail)
                        strbuf_addc(&sb, '/');
                    strbuf_add(&sb, "", 0);
                    check_one(sb.buf);
                    strbuf_release(&sb);
                }
    }
}

static enum snapshot_path_verdict split_count(const char *name, size_t *n)
{
    struct strlist c = STRLIST_INIT;
    enum snapshot_path_verdict v = snapshot_path_split(name, &c);
    *n = c.n;
    strlist_release(&c);
    return v;
}

static void limits(void)
{
    size_t n;
    /* the tarball of issue 18, and its neighbours */
    CHECK(split_count("./../x", &n) == SNAPSHOT_PATH_DOTDOT && n == 0);
    CHECK(split_count("././../x", &n) == SNAPSHOT_PATH_DOTDOT && n == 0);
    CHECK(split_count("a/./b/..", &n) == SNAPSHOT_PATH_DOTDOT && n == 0);
    CHECK(split_count("./", &n) == SNAPSHOT_PATH_OK && n == 0);
    CHECK(split_count("...", &n) == SNAPSHOT_PATH_OK && n == 1);
    CHECK(split_count("..a/.b", &n) == SNAPSHOT_PATH_OK && n == 2);
    CHECK(split_count("a\nb", &n) == SNAPSHOT_PATH_NEWLINE);
    CHECK(split_count("a/b\r", &n) == SNAPSHOT_PATH_NEWLINE);
    CHECK(snapshot_path_link_ok(0, "x\n") == SNAPSHOT_PATH_NEWLINE);

    /* depth: DEPTH_MAX kept components, "." not counted */
    struct strbuf sb = STRBUF_INIT;
    for (int i = 0; i < DEPTH_MAX; i++)
        strbuf_adds(&sb, "d/./");
    CHECK(split_count(sb.buf, &n) == SNAPSHOT_PATH_OK && n == DEPTH_MAX);
    strbuf_adds(&sb, "e");
    CHECK(split_count(sb.buf, &n) == SNAPSHOT_PATH_TOO_DEEP && n == 0);
    strbuf_release(&sb);

    /* length: NAME_MAX_LEN bytes pass, one more is refused (names and
     * targets alike) */
    char *name = xmalloc(NAME_MAX_LEN + 2);
    memset(name, 'n', NAME_MAX_LEN + 1);
    name[NAME_MAX_LEN] = '\0';
    CHECK(split_count(name, &n) == SNAPSHOT_PATH_OK && n == 1);
    CHECK(snapshot_path_link_ok(0, name) == SNAPSHOT_PATH_OK);
    name[NAME_MAX_LEN] = 'n';
    name[NAME_MAX_LEN + 1] = '\0';
    CHECK(split_count(name, &n) == SNAPSHOT_PATH_TOO_LONG && n == 0);
    CHECK(snapshot_path_link_ok(0, name) == SNAPSHOT_PATH_TOO_LONG);
    free(name);

    /* a climb that comes back is still a climb above the root */
    CHECK(snapshot_path_link_ok(1, "../../x/..") == SNAPSHOT_PATH_LEAVES);
    CHECK(snapshot_path_link_ok(1, "../x/../y") == SNAPSHOT_PATH_OK);
    CHECK(strstr(snapshot_path_why(SNAPSHOT_PATH_DOTDOT, 0), "'..' component") != NULL);
    CHECK(strstr(snapshot_path_why(SNAPSHOT_PATH_TOO_DEEP, 0), "128 levels") != NULL);
}

int main(void)
{
    all_combinations();
    /* 2 * 2 * (4 + 16 + 64 + 256) names: the loop really ran */
    CHECK(n_names == 1360 && n_links == 3 * 1360);
    CHECK(n_refused > 0 && n_refused < n_names);
    limits();
    printf("%d names, %d refused, %d link targets\n", n_names, n_refused, n_links);
    return test_report();
}
