/* test.h - a minimal unit-test harness. Each test binary prints one line
 * "N passed, M failed" at the end (tests/run.sh sums them) and exits 1 on
 * any failure. CHECK never aborts, so one run shows every failure. */
#ifndef RVD_TEST_H
#define RVD_TEST_H

#include <stdio.h>
#include <string.h>

static int test_passed, test_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            test_passed++;                                                                         \
        } else {                                                                                   \
            test_failed++;                                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (a_ && b_ && strcmp(a_, b_) == 0) {                                                     \
            test_passed++;                                                                         \
        } else {                                                                                   \
            test_failed++;                                                                         \
            fprintf(stderr, "%s:%d: CHECK_STR failed: %s == \"%s\", want \"%s\"\n", __FILE__,      \
                    __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");                         \
        }                                                                                          \
    } while (0)

static inline int test_report(void)
{
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}

#endif
