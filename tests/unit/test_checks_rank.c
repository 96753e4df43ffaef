/* test_checks_rank.c - which finding the report starts with and the order
 * of the rest (src/core/checks_rank.c): impact, then fail before warn, then
 * the deepest cause, then file order; `impact:` as the loader takes it; and
 * the shipped checks.yaml declaring an impact for every check. */
#include "../../probes/fact_catalog.h"
#include "../../src/core/checks.h"
#include "checks_load_msg.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* in file order: s1 slow, fails on env.wsl; a1 advice, warns on kfd.present;
 * b1 blocks, warns on user.is_root; w1 wrong, fails on dri.render_present;
 * w2 wrong, caused by w3, fails on host.sudo_present; w3 wrong, fails on
 * host.sudo_present too; r1 blocks, but its warn rule is advice of its own
 * (fails on env.wsl && kfd.present, warns on kfd.present) */
static const char rank_yaml[] =
    "schema: rocm-vla-doctor-checks/1\n"
    "checks:\n"
    "  - {id: t.s1, title: t, level: quick, impact: slow, why: w, fix: f, pass: {summary: ok},\n"
    "     fail: [{when: \"env.wsl\", summary: s}]}\n"
    "  - {id: t.a1, title: t, level: quick, impact: advice, why: w, fix: f, pass: {summary: ok},\n"
    "     warn: [{when: \"kfd.present\", summary: s}]}\n"
    "  - {id: t.b1, title: t, level: quick, impact: blocks, why: w, fix: f, pass: {summary: ok},\n"
    "     warn: [{when: \"user.is_root\", summary: s}]}\n"
    "  - {id: t.w1, title: t, level: quick, impact: wrong, why: w, fix: f, pass: {summary: ok},\n"
    "     fail: [{when: \"dri.render_present\", summary: s}]}\n"
    "  - {id: t.w2, title: t, level: quick, impact: wrong, why: w, fix: f, pass: {summary: ok},\n"
    "     caused_by: [t.w3], fail: [{when: \"host.sudo_present\", summary: s}]}\n"
    "  - {id: t.w3, title: t, level: quick, impact: wrong, why: w, fix: f, pass: {summary: ok},\n"
    "     fail: [{when: \"host.sudo_present\", summary: s}]}\n"
    "  - {id: t.r1, title: t, level: quick, impact: blocks, why: w, fix: f, pass: {summary: ok},\n"
    "     fail: [{when: \"env.wsl && kfd.present\", summary: s}],\n"
    "     warn: [{when: \"kfd.present\", impact: advice, summary: s}]}\n";

static void test_rank_order(void)
{
    static const struct {
        int wsl, kfd, root, render, sudo;
        const char *order; /* the findings, most important first */
    } cases[] = {
        {0, 0, 0, 0, 0, ""},
        /* a warning that blocks comes before a failure that slows */
        {1, 0, 1, 0, 0, "t.b1 t.s1"},
        /* wrong before slow, whatever the file order */
        {1, 0, 0, 1, 0, "t.w1 t.s1"},
        /* same impact and status: the cause with a consequence first (w3
         * comes after w1 in the file), its consequence right after it */
        {0, 0, 0, 1, 1, "t.w3 t.w2 t.w1"},
        /* a rule's own impact: r1's warning is advice, below slow, and
         * after a1 (same impact and status, earlier in the file) */
        {1, 1, 0, 0, 0, "t.r1 t.s1 t.a1"},
        {0, 1, 0, 0, 0, "t.a1 t.r1"},
        /* r1's failure takes the check's impact: blocks, first */
        {1, 1, 1, 1, 1, "t.r1 t.b1 t.w3 t.w2 t.w1 t.s1 t.a1"},
    };
    struct checkset cs;
    CHECK(checks_load_string(&cs, "t.yaml", rank_yaml, strlen(rank_yaml)) == 0);
    for (size_t i = 0; i < ARRAY_SIZE(cases) && cs.n; i++) {
        static const char *const names[] = {"env.wsl", "kfd.present", "user.is_root",
                                            "dri.render_present", "host.sudo_present"};
        const int vals[] = {cases[i].wsl, cases[i].kfd, cases[i].root, cases[i].render,
                            cases[i].sudo};
        struct factset fs = FACTSET_INIT;
        for (size_t k = 0; k < ARRAY_SIZE(names); k++)
            fact_set_bool(&fs, names[k], vals[k], NULL);
        struct results r;
        struct run_filter flt = {LEVEL_QUICK, NULL};
        CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
        size_t *order = xcalloc(r.n + 1, sizeof(*order));
        size_t n = results_fix_order(&r, order);
        struct strbuf sb = STRBUF_INIT;
        for (size_t k = 0; k < n; k++)
            strbuf_addf(&sb, "%s%s", k ? " " : "", r.v[order[k]].check->id);
        CHECK_STR(sb.buf ? sb.buf : "", cases[i].order);
        const struct result *s = results_start_with(&r);
        CHECK(n ? s == &r.v[order[0]] : s == NULL);
        strbuf_release(&sb);
        free(order);
        results_release(&r);
        factset_release(&fs);
    }
    checks_release(&cs);
}

/* 0 when the text loads, else -1 with the first line of the message */
static int load_msg(const char *text, char *msg, size_t n)
{
    int rc = checks_load_msg(text, strlen(text), msg, n);
    char *nl = strchr(msg, '\n');
    if (nl)
        *nl = '\0';
    return rc;
}

static void test_impact_load(void)
{
    static const char head[] = "schema: rocm-vla-doctor-checks/1\nchecks:\n"
                               "  - {id: t.x, title: t, level: quick, why: w, fix: f, "
                               "pass: {summary: ok},\n";
    char msg[512], *text;
    text = xasprintf("%s     impact: fatal, fail: [{when: \"env.wsl\", summary: s}]}\n", head);
    CHECK(load_msg(text, msg, sizeof(msg)) == -1);
    CHECK_STR(msg, "t.yaml:4:14: impact must be blocks, wrong, slow or advice");
    free(text);
    text = xasprintf("%s     fail: [{when: \"env.wsl\", impact: [slow], summary: s}]}\n", head);
    CHECK(load_msg(text, msg, sizeof(msg)) == -1);
    CHECK(strstr(msg, "impact") != NULL);
    free(text);
    /* none declared: loads, ranks below advice */
    text = xasprintf("%s     fail: [{when: \"env.wsl\", summary: s}]}\n", head);
    CHECK(load_msg(text, msg, sizeof(msg)) == 0);
    free(text);
    enum impact im = IMPACT_NONE;
    CHECK(impact_parse("wrong", &im) == 0 && im == IMPACT_WRONG);
    CHECK(impact_parse("none", &im) == -1);
    CHECK(impact_parse(NULL, &im) == -1);
    CHECK(impact_name(IMPACT_NONE) == NULL);
    CHECK_STR(impact_name(IMPACT_BLOCKS), "blocks");
}

/* the report starts with what a failure costs: every shipped check says */
static void test_shipped_impacts(void)
{
    struct checkset cs;
    CHECK(checks_load(&cs, "checks.yaml") == 0);
    size_t missing = 0;
    for (size_t i = 0; i < cs.n; i++)
        if (cs.v[i].impact == IMPACT_NONE) {
            fprintf(stderr, "checks.yaml: check %s declares no impact\n", cs.v[i].id);
            missing++;
        }
    CHECK(cs.n > 0 && missing == 0);
    checks_release(&cs);
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema);
    test_rank_order();
    test_impact_load();
    test_shipped_impacts();
    return test_report();
}
