/* test_boundaries.c - every rule of every check pinned on both sides of its
 * bounds, status and deciding rule.
 *
 * tests/data/boundaries/cases.tsv (written by `make boundaries`, that is
 * tools/dead_rules.c --cases) holds, for every rule of checks.yaml, a fact
 * set where it decides (its witness) and the witness with each number fact
 * the rule reads moved to c-1, c and c+1 of each constant of its text (and
 * to k*b + c and either side where it is compared with k*b + c of another
 * fact b, to the boundary and either side where a side sums facts, as in
 * `a + b >= c`; equal and different where two string facts are compared;
 * unknown and known where the rule tests it with known()), with
 * the status and the deciding rule (result.rule: "fail[0]", "warn[1]",
 * "pass") that each gave when the table was written. Each case is run here
 * through the real checks_run() on the checks.yaml the product embeds, so a
 * threshold moved, an operator swapped (< for <=) or a rule removed changes
 * a verdict or its rule and fails this test, where a single case far past a
 * threshold (test_verdicts) does not.
 *
 * Coverage is enforced, not hoped for: every rule of every check must have a
 * witness deciding by it, every check a passing case, and every rule that
 * compares with a number an edge case;
 * a rule added without regenerating the table fails here by name.
 *
 * tests/data/boundaries/survivors.tsv, written by hand in the same format,
 * adds what the generator cannot reach: each alternative of a regular
 * expression, a distribution that is neither Debian nor Fedora, each flag
 * of a disjunction alone (the survivors of make mutation, issue 21). */
#include "../../probes/fact_catalog.h"
#include "../../src/core/checks.h"
#include "../../src/core/fact_wire.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#define TABLE "tests/data/boundaries/cases.tsv"
/* hand-written cases that kill make mutation's survivors (not regenerated) */
#define SURVIVORS "tests/data/boundaries/survivors.tsv"

struct bcase {
    char *check, *about, *what, *status, *rule;
};

static struct bcase *cases;
static size_t ncases;

/* one block: the header line, then the facts in the wire format */
static void run_block(const struct checkset *cs, char *block)
{
    char *nl = strchr(block, '\n');
    if (!nl)
        nl = block + strlen(block);
    char *facts = *nl ? nl + 1 : nl;
    *nl = '\0';
    struct strlist f = STRLIST_INIT;
    strlist_split(&f, block, "\t");
    CHECK(f.n == 6 && strcmp(f.v[0], "case") == 0);
    if (f.n != 6 || strcmp(f.v[0], "case") != 0) {
        fprintf(stderr, "  malformed header: %s\n", block);
        strlist_release(&f);
        return;
    }
    struct factset fs = FACTSET_INIT;
    fact_wire_parse(&fs, facts, strlen(facts));
    struct strlist only = STRLIST_INIT;
    strlist_add(&only, f.v[1]);
    struct run_filter flt = {LEVEL_SOAK, &only};
    struct results r;
    int found = checks_find(cs, f.v[1]) != NULL;
    CHECK(found);
    if (!found)
        fprintf(stderr, "  %s: no such check in checks.yaml (regenerate: make boundaries)\n",
                f.v[1]);
    else if (checks_run(cs, &fs, &flt, &r) == 0) {
        int ok = r.n == 1 && strcmp(status_name(r.v[0].st), f.v[4]) == 0 &&
                 strcmp(r.v[0].rule, f.v[5]) == 0;
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  %s %s (%s): got %s %s, want %s %s\n", f.v[1], f.v[2], f.v[3],
                    r.n ? status_name(r.v[0].st) : "nothing", r.n ? r.v[0].rule : "", f.v[4],
                    f.v[5]);
        results_release(&r);
    } else {
        CHECK(!"checks_run failed");
    }
    cases = xrealloc(cases, (ncases + 1) * sizeof(*cases));
    cases[ncases++] = (struct bcase){xstrdup(f.v[1]), xstrdup(f.v[2]), xstrdup(f.v[3]),
                                     xstrdup(f.v[4]), xstrdup(f.v[5])};
    strlist_release(&only);
    factset_release(&fs);
    strlist_release(&f);
}

/* is there a case of check id about rule `about`: a witness it decides
 * (edge 0), or an edge case, its witness with one number moved (edge 1;
 * whoever decides: in `a > 0 || b > 0` one move does not flip it)? */
static int has_case(const char *id, const char *about, int edge)
{
    for (size_t i = 0; i < ncases; i++)
        if (strcmp(cases[i].check, id) == 0 && strcmp(cases[i].about, about) == 0 &&
            (strcmp(cases[i].what, "witness") == 0) == !edge &&
            (edge || strcmp(cases[i].rule, about) == 0))
            return 1;
    return 0;
}

/* does the rule compare something with a number (an edge must exist)? */
static int compares_number(const char *src)
{
    for (const char *p = src; *p; p++)
        if (*p == '<' || *p == '>') {
            const char *q = p + 1 + (p[1] == '=');
            while (*q == ' ')
                q++;
            if ((*q >= '0' && *q <= '9') || (*q == '-' && q[1] >= '0' && q[1] <= '9'))
                return 1;
        }
    return 0;
}

static void check_coverage(const struct checkset *cs)
{
    for (size_t i = 0; i < cs->n; i++) {
        const struct check *ck = &cs->v[i];
        const struct rule *lists[3] = {ck->skip, ck->fail, ck->warn};
        const size_t counts[3] = {ck->nskip, ck->nfail, ck->nwarn};
        static const char *const kinds[3] = {"skip", "fail", "warn"};
        for (int k = 0; k < 3; k++)
            for (size_t j = 0; j < counts[k]; j++) {
                char about[32];
                snprintf(about, sizeof(about), "%s[%zu]", kinds[k], j);
                int w = has_case(ck->id, about, 0);
                int e = !compares_number(lists[k][j].when_src) || has_case(ck->id, about, 1);
                CHECK(w && e);
                if (!w || !e)
                    fprintf(stderr, "  %s %s: no %s case (make boundaries): %s\n", ck->id, about,
                            w ? "edge" : "witness", lists[k][j].when_src);
            }
        int p = has_case(ck->id, "pass", 0);
        CHECK(p);
        if (!p)
            fprintf(stderr, "  %s: no passing case (make boundaries)\n", ck->id);
    }
}

/* every case of one table; 0, or -1 when it cannot be read */
static int replay(const struct checkset *cs, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    int rd = read_user_file(path, 64u << 20, &text, &len);
    CHECK(rd == 0);
    if (rd) {
        fprintf(stderr, "  cannot read %s (run from the source tree)\n", path);
        return -1;
    }
    /* blocks are separated by an empty line; comment blocks start with '#' */
    for (char *p = text; p && *p;) {
        char *end = strstr(p, "\n\n");
        if (end)
            end[1] = '\0'; /* the last record keeps its newline: the wire needs it */
        if (str_starts(p, "case\t"))
            run_block(cs, p);
        p = end ? end + 2 : NULL;
    }
    free(text);
    return 0;
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    struct checkset cs;
    /* RVD_TEST_CHECKS: a mutant of checks.yaml (make mutation) */
    CHECK(checks_load_default(&cs, getenv("RVD_TEST_CHECKS")) == 0);
    if (replay(&cs, TABLE) || replay(&cs, SURVIVORS))
        return test_report();
    check_coverage(&cs);
    for (size_t i = 0; i < ncases; i++) {
        free(cases[i].check);
        free(cases[i].about);
        free(cases[i].what);
        free(cases[i].status);
        free(cases[i].rule);
    }
    free(cases);
    checks_release(&cs);
    return test_report();
}
