/* test_suggest.c - the one edit distance behind every "did you mean"
 * (src/core/suggest.h): distances, case folding, the third-of-the-word
 * limit on both sides, and the closest of several candidates winning. */
#include "../../src/core/suggest.h"
#include "test.h"

static const char *best_of(const char *typed, const char *const *cands)
{
    static char buf[64];
    struct suggest sg;
    suggest_init(&sg, typed, buf, sizeof(buf));
    for (; *cands; cands++)
        suggest_consider(&sg, *cands);
    return suggest_best(&sg);
}

int main(void)
{
    CHECK(edit_distance("", "") == 0);
    CHECK(edit_distance("lst", "list") == 1);
    CHECK(edit_distance("levl", "level") == 1);
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("PI0", "pi0") == 0); /* letters fold */
    CHECK(edit_distance("abc", "") == 3);

    static const char *const cmds[] = {"check", "list", "explain", "soak", "monitor", NULL};
    CHECK_STR(best_of("lst", cmds), "list");
    CHECK_STR(best_of("explian", cmds), "explain");
    CHECK(best_of("frobnicate", cmds) == NULL);
    /* "sok" (3 letters) may differ by 1: soak; "sx" (2) by 0 only */
    CHECK_STR(best_of("sok", cmds), "soak");
    CHECK(best_of("sx", cmds) == NULL);
    /* 6 letters allow 2 edits, not 3 */
    static const char *const one[] = {"abcdef", NULL};
    CHECK_STR(best_of("abcdxy", one), "abcdef");
    CHECK(best_of("abcxyz", one) == NULL);
    /* the closest wins, the first of equals stays */
    static const char *const two[] = {"level", "levels", "lever", NULL};
    CHECK_STR(best_of("levl", two), "level");
    /* a zero-size buffer keeps nothing and says so */
    struct suggest sg;
    suggest_init(&sg, "x", NULL, 0);
    suggest_consider(&sg, "x");
    CHECK(suggest_best(&sg) == NULL);
    return test_report();
}
