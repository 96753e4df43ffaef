/* test_checks_schema.c - the checks loader validates against the schema its
 * caller passes in (checks_set_schema), and against nothing else: a schema
 * of this test's own (two facts, two probes) decides which names and types
 * load, the suggestion comes from it, no schema at all is an error, and
 * the budget search (checks_budget) runs on what that schema loaded. The
 * test links only core: the loader needs nothing above it. */
/* layers: core */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../src/core/checks.h"
#include "test.h"

static int my_fact_type(const char *name, enum fact_type *type)
{
    if (strcmp(name, "my.count") == 0)
        *type = FACT_INT;
    else if (strcmp(name, "my.ms") == 0)
        *type = FACT_FLOAT;
    else if (strcmp(name, "my.name") == 0)
        *type = FACT_STR;
    else
        return -1;
    return 0;
}

static const char *my_suggest(const char *name, int per_gpu, char *buf, size_t n)
{
    (void)per_gpu;
    if (strcmp(name, "my.cuont") != 0)
        return NULL;
    snprintf(buf, n, "my.count");
    return buf;
}

static const char *my_probe(size_t i)
{
    static const char *const names[] = {"alpha", "beta"};
    return i < 2 ? names[i] : NULL;
}

static const struct checks_schema mine = {my_fact_type, my_suggest, my_probe};

/* one check in a file; its stderr goes to a file the test reads back */
static int load(const char *probe, const char *when, char *msg, size_t n)
{
    char *text = xasprintf("schema: rocm-vla-doctor-checks/1\n"
                           "checks:\n"
                           "  - id: t.one\n"
                           "    title: one\n"
                           "    level: quick\n"
                           "%s%s%s"
                           "    how: h\n"
                           "    fail: [{when: '%s', summary: 'over at {my.ms}'}]\n"
                           "    pass: {summary: ok}\n"
                           "    fix: f\n"
                           "    why: w\n",
                           probe ? "    probe: " : "", probe ? probe : "", probe ? "\n" : "", when);
    fflush(stderr);
    FILE *err = tmpfile();
    int saved = dup(fileno(stderr));
    dup2(fileno(err), fileno(stderr));
    struct checkset cs;
    int rc = checks_load_string(&cs, "t.yaml", text, strlen(text));
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    rewind(err);
    size_t got = fread(msg, 1, n - 1, err);
    msg[got] = 0;
    fclose(err);
    if (rc == 0)
        checks_release(&cs);
    free(text);
    return rc;
}

int main(void)
{
    char msg[512];
    /* no schema: nothing would be validated, so nothing loads */
    CHECK(checks_schema() == NULL);
    CHECK(load(NULL, "my.ms > 5", msg, sizeof(msg)) == -1);
    CHECK(strstr(msg, "no fact schema") != NULL);

    checks_set_schema(&mine);
    CHECK(checks_schema() == &mine);
    CHECK(load("beta", "my.ms > 5 and my.count >= 1", msg, sizeof(msg)) == 0);
    /* a name the schema lacks, with its suggestion */
    CHECK(load(NULL, "my.cuont > 1", msg, sizeof(msg)) == -1);
    CHECK(strstr(msg, "unknown fact 'my.cuont' (did you mean 'my.count'?)") != NULL);
    CHECK(load(NULL, "gpu.count > 1", msg, sizeof(msg)) == -1);
    CHECK(strstr(msg, "unknown fact 'gpu.count'") != NULL);
    /* the schema's types decide the type check */
    CHECK(load(NULL, "my.name > 1", msg, sizeof(msg)) == -1);
    /* probe names come from the schema */
    CHECK(load("gamma", "my.ms > 5", msg, sizeof(msg)) == -1);
    CHECK(strstr(msg, "unknown probe 'gamma' (probes: alpha, beta)") != NULL);

    /* the budget search on a set this schema loaded: fails above 5 ms */
    const char *text = "schema: rocm-vla-doctor-checks/1\n"
                       "checks:\n"
                       "  - id: t.lat\n"
                       "    title: latency\n"
                       "    level: quick\n"
                       "    how: h\n"
                       "    reads: [my.ms]\n"
                       "    fail: [{when: 'my.ms > 5', summary: slow}]\n"
                       "    pass: {summary: ok}\n"
                       "    fix: f\n"
                       "    why: w\n";
    struct checkset cs;
    CHECK(checks_load_string(&cs, "b.yaml", text, strlen(text)) == 0);
    struct factset fs = FACTSET_INIT;
    fact_set_float(&fs, "my.ms", 1.0, NULL);
    double b = 0;
    CHECK(checks_budget(&cs, &fs, "t.lat", "my.ms", 0, &b) == 0);
    CHECK(b > 4.999 && b <= 5.0);
    CHECK(checks_budget(&cs, &fs, "t.nope", "my.ms", 0, &b) == -ENOENT);
    factset_release(&fs);
    checks_release(&cs);
    return test_report();
}
