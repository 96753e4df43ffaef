/* test_checks.c - checks.yaml loading and the engine: rule order, unknown
 * facts skip instead of passing, per-GPU worst wins, probe errors; every
 * name is validated against the fact catalogue and every rule type-checked
 * at load; a type error found at evaluation is status error; caused_by. */
#include "../../probes/fact_catalog.h"
#include "../../src/core/checks.h"
#include "checks_load_msg.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char yaml[] =
    "schema: rocm-vla-doctor-checks/1\n"
    "data:\n"
    "  sup:\n"
    "    \"6.2\": [gfx1100, gfx942]\n"
    "checks:\n"
    "  - id: t.vram\n"
    "    title: vram\n"
    "    level: quick\n"
    "    per: gpu\n"
    "    skip: [{when: \"gpu.count == 0\", summary: \"no gpu\"}]\n"
    "    fail: [{when: \"gpu.vram_bytes < 12 GiB\", summary: \"small {gpu.vram_bytes}\"}]\n"
    "    warn: [{when: \"gpu.vram_bytes < 16 GiB\", summary: \"tight\", fix: \"buy\"}]\n"
    "    pass: {summary: \"ok {gpu.vram_bytes} on {gpu}\"}\n"
    "    fix: \"bigger gpu\"\n"
    "    why: w\n"
    "  - id: t.gfx\n"
    "    title: gfx\n"
    "    level: quick\n"
    "    per: gpu\n"
    "    fail: [{when: \"!(gpu.gfx in lookup(sup, rocm.series))\", summary: \"unsupported\"}]\n"
    "    pass: {summary: ok}\n"
    "    fix: f\n"
    "    why: w\n"
    "  - id: t.crash\n"
    "    title: crash\n"
    "    level: standard\n"
    "    probe: sync\n"
    "    pass: {summary: ok}\n"
    "    why: w\n";

static const struct result *find(const struct results *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].check->id, id) == 0)
            return &r->v[i];
    return NULL;
}

/* one check around a fragment: `line8` is line 8 (per: gpu or not), the
 * fragment starts on line 9 */
static char *check_yaml(const char *line8, const char *body)
{
    return xasprintf("schema: rocm-vla-doctor-checks/1\n"
                     "data:\n"
                     "  sup: [gfx1100]\n"
                     "checks:\n"
                     "  - id: t.one\n"
                     "    title: one\n"
                     "    level: quick\n"
                     "%s"
                     "%s"
                     "%s"
                     "    fix: f\n"
                     "    why: w\n",
                     line8, body,
                     /* a fragment with its own pass rule: no duplicate key */
                     strstr(body, "    pass:") ? "" : "    pass: {summary: ok}\n");
}

/* load a whole text: 0 when it loads, else -1 with the loader's message */
static int load_text(const char *text, size_t len, char *msg, size_t n)
{
    return checks_load_msg(text, len, msg, n);
}

/* load a fragment: 0 when it loads, else -1 with the loader's message */
static int load_frag(const char *per, const char *body, char *msg, size_t n)
{
    char *text = check_yaml(per, body);
    int rc = load_text(text, strlen(text), msg, n);
    free(text);
    return rc;
}

/* the whole text is rejected with this first message line */
static int text_rejects(const char *text, const char *want)
{
    char msg[1024];
    if (load_text(text, strlen(text), msg, sizeof(msg)) == 0) {
        fprintf(stderr, "accepted, want: %s\n", want);
        return 0;
    }
    char *nl = strchr(msg, '\n');
    if (nl)
        *nl = '\0';
    if (strcmp(msg, want) != 0) {
        fprintf(stderr, "got:  %s\nwant: %s\n", msg, want);
        return 0;
    }
    return 1;
}

/* the fragment is rejected with exactly this first message line */
static int rejects(const char *per, const char *body, const char *want)
{
    char msg[1024];
    if (load_frag(per, body, msg, sizeof(msg)) == 0) {
        fprintf(stderr, "accepted, want: %s\n", want);
        return 0;
    }
    char *nl = strchr(msg, '\n');
    if (nl)
        *nl = '\0';
    if (strcmp(msg, want) != 0) {
        fprintf(stderr, "got:  %s\nwant: %s\n", msg, want);
        return 0;
    }
    return 1;
}

static int accepts(const char *per, const char *body)
{
    char msg[1024];
    if (load_frag(per, body, msg, sizeof(msg)) == 0)
        return 1;
    fprintf(stderr, "rejected: %s", msg);
    return 0;
}

#define PER "    per: gpu\n"
#define GLOBAL "    how: h\n"
#define FAIL_WHEN(w) "    fail: [{when: '" w "', summary: s}]\n"

static void test_validation(void)
{
    /* (a) a misspelt fact in a rule: the column points at it */
    CHECK(rejects(PER, FAIL_WHEN("gpu.cuont == 0"),
                  "t.yaml:9:20: unknown fact 'gpu.cuont' (did you mean 'gpu.count'?) in rule "
                  "\"gpu.cuont == 0\""));
    CHECK(rejects(PER, FAIL_WHEN("gpu.count > 0 && gpu.vram_byts < 1 GiB"),
                  "t.yaml:9:37: unknown fact 'gpu.vram_byts' (did you mean 'gpu.vram_bytes'?) in "
                  "rule \"gpu.count > 0 && gpu.vram_byts < 1 GiB\""));
    CHECK(rejects(GLOBAL, "    skip: [{when: 'probe.snyc.status == \"ok\"', summary: s}]\n",
                  "t.yaml:9:20: unknown fact 'probe.snyc.status' (did you mean "
                  "'probe.sync.status'?) in rule \"probe.snyc.status == \"ok\"\""));
    CHECK(rejects(GLOBAL, FAIL_WHEN("nonsense.fact"),
                  "t.yaml:9:20: unknown fact 'nonsense.fact' (no probe declares it; see "
                  "'rocm-vla-doctor list --facts') in rule \"nonsense.fact\""));
    /* per-GPU names only in per-GPU checks; an explicit index anywhere */
    CHECK(rejects(GLOBAL, FAIL_WHEN("gpu.vram_bytes < 1"),
                  "t.yaml:9:20: unknown fact 'gpu.vram_bytes' (did you mean "
                  "'gpu.<i>.vram_bytes'?) in rule \"gpu.vram_bytes < 1\""));
    CHECK(accepts(GLOBAL, FAIL_WHEN("gpu.0.vram_bytes < 1 && gpu.count > 0")));
    CHECK(accepts(PER, FAIL_WHEN("gpu.vram_bytes < 1 && gpu.count > 0")));
    /* bare words in a list are facts */
    CHECK(rejects(PER, FAIL_WHEN("gpu.gfx in [gfx1100]"),
                  "t.yaml:9:32: unknown fact 'gfx1100' (no probe declares it; see "
                  "'rocm-vla-doctor list --facts') in rule \"gpu.gfx in [gfx1100]\""));
    /* patterns: probe names, environment variables, runtime devices */
    CHECK(accepts(GLOBAL, FAIL_WHEN("probe.gemm_peak.status != \"ok\"")));
    CHECK(accepts(GLOBAL, FAIL_WHEN("env.var.HSA_OVERRIDE_GFX_VERSION == \"11.0.0\"")));
    CHECK(accepts(GLOBAL, FAIL_WHEN("runtime.dev.0.vram_bytes < 1 GiB")));
    CHECK(rejects(GLOBAL, FAIL_WHEN("runtime.dev.x.vram_bytes < 1 GiB"),
                  "t.yaml:9:20: unknown fact 'runtime.dev.x.vram_bytes' (did you mean "
                  "'runtime.dev.<i>.vram_bytes'?) in rule \"runtime.dev.x.vram_bytes < 1 "
                  "GiB\""));
    /* (b) reads */
    CHECK(rejects(PER, "    reads: [gpu.count, gpu.gfxx]\n",
                  "t.yaml:9:24: unknown fact 'gpu.gfxx' (did you mean 'gpu.gfx'?) in 'reads'"));
    CHECK(rejects(GLOBAL, "    reads: rocm.verison\n",
                  "t.yaml:9:12: unknown fact 'rocm.verison' (did you mean 'rocm.version'?) in "
                  "'reads'"));
    /* (c) placeholders in summaries and fixes, units, {gpu} */
    CHECK(rejects(PER, "    fail: [{when: 'gpu.count > 0', summary: 'has {gpu.vram:gib} GiB'}]\n",
                  "t.yaml:9:51: unknown fact 'gpu.vram' (no probe declares it; see "
                  "'rocm-vla-doctor list --facts') in placeholder {gpu.vram:gib}"));
    CHECK(rejects(PER,
                  "    fail: [{when: 'gpu.count > 0', summary: s, fix: 'see {rocm.verson}'}]\n",
                  "t.yaml:9:59: unknown fact 'rocm.verson' (did you mean 'rocm.version'?) in "
                  "placeholder {rocm.verson}"));
    CHECK(rejects(PER, "    fail: [{when: 'gpu.count > 0', summary: '{gpu.gfx:gib}'}]\n",
                  "t.yaml:9:47: {gpu.gfx:gib} converts a number, but gpu.gfx is a string"));
    CHECK(
        rejects(PER, "    fail: [{when: 'gpu.count > 0', summary: '{gpu.vram_bytes:kib}'}]\n",
                "t.yaml:9:47: unknown unit 'kib' in {gpu.vram_bytes:kib} (gib, mib or one/many)"));
    /* the plural form {count:one/many} needs a number and two words; {sudo} is built in */
    CHECK(rejects(PER, "    fail: [{when: 'gpu.count > 0', summary: '{gpu.gfx:one/many}'}]\n",
                  "t.yaml:9:47: {gpu.gfx:one/many} counts a number, but gpu.gfx is a string"));
    CHECK(rejects(GLOBAL, "    fail: [{when: 'gpu.count > 0', summary: '{gpu.count:/GPUs}'}]\n",
                  "t.yaml:9:47: {gpu.count:/GPUs}: the plural form is {gpu.count:one/many}"));
    CHECK(rejects(GLOBAL, "    fail: [{when: 'gpu.count > 0', summary: '{gpu.count:a/b/c}'}]\n",
                  "t.yaml:9:47: {gpu.count:a/b/c}: the plural form is {gpu.count:one/many}"));
    CHECK(accepts(GLOBAL, "    fail: [{when: 'gpu.count > 0', summary: '{gpu.count:GPU/GPUs}', "
                          "fix: '{sudo}usermod -aG render $LOGNAME'}]\n"));
    CHECK(rejects(GLOBAL, "    fail: [{when: 'gpu.count > 0', summary: 'GPU {gpu}'}]\n",
                  "t.yaml:9:51: {gpu} is the GPU's index: only in a 'per: gpu' check"));
    CHECK(rejects(PER, "    fail: [{when: 'gpu.count > 0', summary: 'a {gpu.gfx'}]\n",
                  "t.yaml:9:49: '{' without '}' in \"a {gpu.gfx\""));
    CHECK(accepts(PER, "    fail: [{when: 'gpu.count > 0', summary: '{gpu} {gpu.vram_bytes:mib} "
                       "{gpu.gfx}', fix: '{rocm.version}'}]\n"));
    CHECK(rejects(GLOBAL, "    skip: [{when: 'gpu.count == 0', summary: '{gpu.cont}'}]\n",
                  "t.yaml:9:48: unknown fact 'gpu.cont' (did you mean 'gpu.count'?) in "
                  "placeholder {gpu.cont}"));
    CHECK(rejects(GLOBAL, "    pass: {summary: '{rocm.seriess}'}\n",
                  "t.yaml:9:23: unknown fact 'rocm.seriess' (did you mean 'rocm.series'?) in "
                  "placeholder {rocm.seriess}"));
    /* the check's own fix; a probe that does not exist; a missing table */
    char *fix_frag = xasprintf("    fail: [{when: 'gpu.count > 0', summary: s}]\n");
    CHECK(accepts(GLOBAL, fix_frag));
    free(fix_frag);
    CHECK(rejects(
        "    probe: snyc\n", "",
        "t.yaml:8:12: unknown probe 'snyc' (probes: host, env, driver, kernel_log, kfd, "
        "user, container, gpu, pcie, iommu, virt, kernel, driver_cause, tuning, rocm, python, "
        "rocm_libs, link_start, "
        "gpu_runtime, peaks, kernels, "
        "sync, bandwidth, mem_bandwidth, hmm, mem_release, target_binaries, vulkan, fp, "
        "fp_sampling, gemm_peak, memtest, p2p, link_end, vla, torch)"));
    CHECK(rejects(PER, FAIL_WHEN("!(gpu.gfx in lookup(supported, rocm.series))"),
                  "t.yaml:9:40: unknown data table 'supported' (see 'data:') in rule "
                  "\"!(gpu.gfx in lookup(supported, rocm.series))\""));
    CHECK(accepts(PER, FAIL_WHEN("!(gpu.gfx in lookup(sup, rocm.series))")));
    /* (d), (e) and the other type errors, from the declared types */
    CHECK(rejects(PER, FAIL_WHEN("!gpu.count"),
                  "t.yaml:9:20: '!' needs a yes/no value, not a number in rule \"!gpu.count\""));
    CHECK(rejects(PER, FAIL_WHEN("gpu.count contains 1"),
                  "t.yaml:9:30: 'contains' searches a list or a string, not a number in rule "
                  "\"gpu.count contains 1\""));
    CHECK(rejects(PER, FAIL_WHEN("\"gfx1100\" in gpu.count"),
                  "t.yaml:9:30: 'in' searches a list or a string, not a number in rule "
                  "\"\"gfx1100\" in gpu.count\""));
    CHECK(rejects(GLOBAL, FAIL_WHEN("kfd.present && kfd.group"),
                  "t.yaml:9:32: '&&' needs yes/no values on both sides, not a string in rule "
                  "\"kfd.present && kfd.group\""));
    CHECK(rejects(GLOBAL, FAIL_WHEN("user.groups || kfd.present"),
                  "t.yaml:9:32: '||' needs yes/no values on both sides, not a list in rule "
                  "\"user.groups || kfd.present\""));
    CHECK(rejects(GLOBAL, FAIL_WHEN("kfd.present == \"true\""),
                  "t.yaml:9:32: '==' compares a yes/no value with a string in rule "
                  "\"kfd.present == \"true\"\""));
    CHECK(rejects(GLOBAL, FAIL_WHEN("rocm.version < 6"),
                  "t.yaml:9:33: '<' needs two numbers or two strings, not a string and a number "
                  "in rule \"rocm.version < 6\""));
    CHECK(rejects(GLOBAL, FAIL_WHEN("rocm.major"),
                  "t.yaml:9:20: the rule is not a yes/no question (it gives a number) in rule "
                  "\"rocm.major\""));
    CHECK(rejects(GLOBAL, "    skip: [{when: 'len(rocm.major) > 1', summary: s}]\n",
                  "t.yaml:9:24: len() needs a list or a string, not a number in rule "
                  "\"len(rocm.major) > 1\""));
}

/* a type the declarations cannot see (a fact whose value has another type
 * than declared, as a probe bug or an old snapshot would give): the check is
 * `error` naming the rule, never pass and never "no probe produced" */
static void test_eval_type_error(void)
{
    char *text =
        check_yaml(GLOBAL, "    skip: [{when: 'gpu.count == 0', summary: none}]\n"
                           "    fail: [{when: 'rocm.version contains \"6\"', summary: six}]\n");
    struct checkset cs;
    CHECK(checks_load_string(&cs, "t.yaml", text, strlen(text)) == 0);
    free(text);
    struct factset fs = FACTSET_INIT;
    fact_set_int(&fs, "gpu.count", 1, NULL);
    fact_set_int(&fs, "rocm.version", 6, NULL); /* declared a string */
    struct results r;
    struct run_filter flt = {LEVEL_QUICK, NULL};
    CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
    CHECK(r.n == 1 && r.v[0].st == ST_ERROR);
    CHECK(r.n == 1 &&
          strcmp(r.v[0].summary, "configuration error in rule \"rocm.version contains \"6\"\": "
                                 "'contains' searches a list or a string, not a number") == 0);
    CHECK(results_exit_code(&r, 0) == 1);
    results_release(&r);
    /* in a skip rule too, and a rule that is not a yes/no question */
    fact_set_str(&fs, "gpu.count", "1", NULL); /* declared a number */
    CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
    CHECK(r.n == 1 && r.v[0].st == ST_ERROR);
    CHECK(r.n == 1 && strstr(r.v[0].summary, "rule \"gpu.count == 0\"") == NULL); /* == is fine */
    results_release(&r);
    fact_set_int(&fs, "gpu.count", 1, NULL);
    fact_set_bool(&fs, "rocm.version", 1, NULL);
    CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
    CHECK(r.n == 1 && r.v[0].st == ST_ERROR);
    results_release(&r);
    checks_release(&cs);

    text = check_yaml(GLOBAL, "    skip: [{when: 'kfd.present', summary: none}]\n");
    CHECK(checks_load_string(&cs, "t.yaml", text, strlen(text)) == 0);
    free(text);
    fact_set_str(&fs, "kfd.present", "yes", NULL); /* declared yes/no */
    CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
    CHECK(r.n == 1 && r.v[0].st == ST_ERROR);
    CHECK(r.n == 1 && strcmp(r.v[0].summary, "configuration error in rule \"kfd.present\": not a "
                                             "yes/no question (it gives a string)") == 0);
    results_release(&r);
    /* unknown stays "cannot tell" */
    fact_set_unknown(&fs, "kfd.present", "/dev/kfd", "unreadable");
    CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
    CHECK(r.n == 1 && r.v[0].st == ST_PASS); /* a skip rule that cannot tell does not skip */
    results_release(&r);
    checks_release(&cs);
    factset_release(&fs);
}

/* a list fact past FACT_LIST_MAX keeps its first items and counts the rest:
 * asking for an item it did not keep cannot tell (skip), never "not there"
 * (pass); one it kept still decides */
static enum status capped_list_status(const char *needle)
{
    char *rule = xasprintf("    fail: [{when: '\"%s\" in kernel.dmesg.firmware_files', "
                           "summary: failed}]\n",
                           needle);
    char *text = check_yaml(GLOBAL, rule);
    struct checkset cs;
    CHECK(checks_load_string(&cs, "t.yaml", text, strlen(text)) == 0);
    free(text);
    free(rule);
    struct strlist fw = STRLIST_INIT;
    for (size_t i = 0; i < FACT_LIST_MAX + 5; i++)
        strlist_add_owned(&fw, xasprintf("fw/%zu.bin", i));
    struct factset fs = FACTSET_INIT;
    fact_set_list(&fs, "kernel.dmesg.firmware_files", &fw, NULL);
    strlist_release(&fw);
    struct results r;
    struct run_filter flt = {LEVEL_QUICK, NULL};
    CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
    enum status st = r.n == 1 ? r.v[0].st : ST_ERROR;
    results_release(&r);
    factset_release(&fs);
    checks_release(&cs);
    return st;
}

static void test_capped_list(void)
{
    char last[32];
    snprintf(last, sizeof(last), "fw/%d.bin", FACT_LIST_MAX + 4); /* not kept */
    CHECK(capped_list_status(last) == ST_SKIP);
    CHECK(capped_list_status("fw/0.bin") == ST_FAIL); /* kept */
}

/* the catalogue: every probe declares its facts; patterns match as documented */
static void test_catalogue(void)
{
    CHECK(fact_catalog_missing() == NULL);
    CHECK(fact_pattern_match("gpu.<i>.vram_bytes", "gpu.12.vram_bytes"));
    CHECK(!fact_pattern_match("gpu.<i>.vram_bytes", "gpu.x.vram_bytes"));
    CHECK(!fact_pattern_match("gpu.<i>.vram_bytes", "gpu..vram_bytes"));
    CHECK(!fact_pattern_match("gpu.<i>.vram_bytes", "gpu.0.vram_bytes.x"));
    CHECK(fact_pattern_match("probe.<probe>.status", "probe.fp_sampling.status"));
    CHECK(!fact_pattern_match("probe.<probe>.status", "probe.nosuch.status"));
    CHECK(fact_pattern_match("env.var.<VAR>", "env.var.HSA_OVERRIDE_GFX_VERSION"));
    CHECK(!fact_pattern_match("env.var.<VAR>", "env.var."));
    const struct fact_decl *d;
    const char *probe;
    CHECK(fact_catalog_find("gpu.3.link.speed_gts", &d, &probe) == 0 && d->type == FACT_FLOAT &&
          strcmp(probe, "pcie") == 0);
    CHECK(fact_catalog_find("probe.vla.wall_s", &d, &probe) == 0 && d->type == FACT_FLOAT);
    CHECK(fact_catalog_find("gpu.vram_bytes", &d, &probe) == -1);
    char buf[FACT_NAME_MAX];
    CHECK_STR(fact_catalog_suggest("gpu.vram_byte", 1, buf, sizeof(buf)), "gpu.vram_bytes");
    CHECK_STR(fact_catalog_suggest("gpu.vram_bytes", 0, buf, sizeof(buf)), "gpu.<i>.vram_bytes");
    CHECK(fact_catalog_suggest("completely.different", 0, buf, sizeof(buf)) == NULL);
}

#define HEAD "schema: rocm-vla-doctor-checks/1\nchecks:\n"
#define CHECK1 "  - {id: a.b, title: t, level: quick, why: w, pass: {summary: ok}}\n"

/* n checks with ids c.0 ... c.<n-1>, the last one repeating c.<dup> when
 * dup >= 0 (owned) */
static char *many_checks(size_t n, long dup)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, HEAD);
    for (size_t i = 0; i < n; i++)
        strbuf_addf(&sb, "  - {id: c.%zu, title: t, level: quick, why: w, pass: {summary: ok}}\n",
                    dup >= 0 && i + 1 == n ? (size_t)dup : i);
    return strbuf_detach(&sb);
}

/* hostile checks files: each of these overran, leaked, exploded or was
 * accepted before */
static void test_hostile_yaml(void)
{
    /* duplicate keys anywhere: top level (a second `checks:` overran the
     * heap array), a rule (a second `when:` leaked), a check, a table */
    CHECK(text_rejects(HEAD CHECK1 "checks:\n" CHECK1 CHECK1,
                       "t.yaml:4:1: duplicate key 'checks' (first at line 2)"));
    CHECK(text_rejects(HEAD "  - {id: a.b, title: t, level: quick, why: w, pass: {summary: ok},\n"
                            "     fail: [{when: 'gpu.count > 0', when: 'gpu.count > 1', "
                            "summary: s, fix: f}]}\n",
                       "t.yaml:4:37: duplicate key 'when' (first at line 4)"));
    CHECK(text_rejects(HEAD "  - id: a.b\n    title: t\n    level: quick\n    id: a.c\n",
                       "t.yaml:6:5: duplicate key 'id' (first at line 3)"));
    CHECK(text_rejects("schema: rocm-vla-doctor-checks/1\ndata:\n  t: {a: [x], a: [y]}\n"
                       "checks:\n" CHECK1,
                       "t.yaml:3:15: duplicate key 'a' (first at line 3)"));
    CHECK(text_rejects("schema: rocm-vla-doctor-checks/1\ndata:\n  t: [x]\n  t: [y]\n"
                       "checks:\n" CHECK1,
                       "t.yaml:4:3: duplicate key 't' (first at line 3)"));
    CHECK(text_rejects(HEAD CHECK1 "schema: rocm-vla-doctor-checks/1\n",
                       "t.yaml:4:1: duplicate key 'schema' (first at line 1)"));

    /* anchors and aliases: refused where they stand, before any expansion */
    CHECK(text_rejects("a: &x [1, 2]\nb: [*x, *x]\n",
                       "t.yaml:1:4: YAML anchor '&x': aliases and anchors are not allowed in a "
                       "checks file"));
    CHECK(text_rejects(HEAD "  - *nowhere\n",
                       "t.yaml:3:5: YAML alias '*nowhere': aliases and anchors are not allowed "
                       "in a checks file"));
    {
        /* billion laughs: 9 levels of 10 aliases each */
        struct strbuf sb = STRBUF_INIT;
        strbuf_adds(&sb, "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (int i = 1; i < 10; i++)
            strbuf_addf(&sb,
                        "l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n",
                        i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
        CHECK(text_rejects(sb.buf, "t.yaml:1:5: YAML anchor '&l0': aliases and anchors are not "
                                   "allowed in a checks file"));
        strbuf_release(&sb);
    }
    /* nesting: refused at the first level too many, before libyaml's
     * document loader (quadratic in depth) sees it */
    {
        size_t n = 200000;
        char *deep = malloc(n + 16);
        memcpy(deep, "checks: ", 8);
        memset(deep + 8, '[', n);
        deep[n + 8] = '\0';
        CHECK(text_rejects(deep, "t.yaml:1:40: nested deeper than 32 levels"));
        memset(deep + 8, '{', n);
        CHECK(text_rejects(deep, "t.yaml:1:40: nested deeper than 32 levels"));
        free(deep);
    }
    CHECK(text_rejects(HEAD CHECK1 "---\nschema: x\n",
                       "t.yaml:4:1: a checks file holds one YAML document"));
    /* the size cap holds for text that did not come from a file too */
    {
        size_t n = (4u << 20) + 1;
        char *big = malloc(n + 1), msg[256];
        memset(big, '#', n);
        big[n] = '\0';
        CHECK(load_text(big, n, msg, sizeof(msg)) == -1 && strstr(msg, "larger than 4 MiB"));
        free(big);
    }

    /* tens of thousands of checks: the id scan is hashed */
    {
        char msg[256];
        char *text = many_checks(30000, -1);
        CHECK(load_text(text, strlen(text), msg, sizeof(msg)) == 0);
        free(text);
        text = many_checks(30000, 7);
        CHECK(text_rejects(text, "t.yaml:30002:5: duplicate check id 'c.7' (first at line 10)"));
        free(text);
    }

    /* timeout: a finite number of seconds in (0, 600] */
    static const char *const bad_timeouts[] = {"nan", "NaN", "inf", "-inf",   "infinity", "1e999",
                                               "0",   "-1",  "601", "1e-999", "\"\"",     "5s"};
    for (size_t i = 0; i < sizeof(bad_timeouts) / sizeof(bad_timeouts[0]); i++) {
        char *frag = xasprintf("    timeout: %s\n", bad_timeouts[i]);
        int ok = rejects(GLOBAL, frag,
                         "t.yaml:9:14: check t.one: timeout must be a number of seconds above 0 "
                         "and at most 600");
        if (!ok)
            fprintf(stderr, "  (timeout: %s)\n", bad_timeouts[i]);
        CHECK(ok);
        free(frag);
    }
    CHECK(accepts(GLOBAL, "    timeout: 600\n"));
    CHECK(accepts(GLOBAL, "    timeout: 0.5\n"));

    /* a rule error inside a check names the rule's position */
    CHECK(rejects(GLOBAL, FAIL_WHEN("len() > 0"),
                  "t.yaml:9:20: len() takes 1 argument, not 0 in rule \"len() > 0\""));
    CHECK(rejects(GLOBAL, FAIL_WHEN("gpu.count > 0 && \"x\" matches \"(a{255}){255}\""),
                  "t.yaml:9:49: regular expression \"(a{255}){255}\" refused: regular expression "
                  "too large with its repetitions expanded (over 512) in rule \"gpu.count > 0 "
                  "&& \"x\" matches \"(a{255}){255}\"\""));
}

/* data tables: plain lists answer every key, keyed tables their keys, in
 * a sorted index */
static void test_data_index(void)
{
    static const char text[] = "schema: rocm-vla-doctor-checks/1\n"
                               "data:\n"
                               "  zz: [z]\n"
                               "  mid: {\"6.2\": [a], \"6.1\": [b], \"10\": [c]}\n"
                               "  aa: [q]\n"
                               "checks:\n" CHECK1;
    struct checkset cs;
    CHECK(checks_load_string(&cs, "t.yaml", text, strlen(text)) == 0);
    struct val v;
    CHECK(checks_table(&cs, "mid", "6.1", &v) == 0 && v.l.n == 1 && strcmp(v.l.v[0], "b") == 0);
    val_release(&v);
    CHECK(checks_table(&cs, "mid", "10", &v) == 0 && strcmp(v.l.v[0], "c") == 0);
    val_release(&v);
    CHECK(checks_table(&cs, "mid", "6.3", &v) == -1);
    CHECK(checks_table(&cs, "mid", NULL, &v) == -1);
    CHECK(checks_table(&cs, "zz", "anything", &v) == 0 && strcmp(v.l.v[0], "z") == 0);
    val_release(&v);
    CHECK(checks_table(&cs, "aa", NULL, &v) == 0 && strcmp(v.l.v[0], "q") == 0);
    val_release(&v);
    CHECK(checks_table(&cs, "m", "6.1", &v) == -1);
    CHECK(checks_table(&cs, "nope", "6.1", &v) == -1);
    CHECK(checks_data_find(&cs, "mid", NULL) != NULL);
    CHECK(checks_data_find(&cs, "mi", NULL) == NULL);
    checks_release(&cs);
}

/* the top-level peaks table (src/core/checks_peaks.c): strict, each error at
 * its file:line:col; rows found by processor with or without features */
static char *peaks_yaml(const char *rows)
{
    return xasprintf("schema: rocm-vla-doctor-checks/1\n"
                     "peaks:%s"
                     "checks:\n"
                     "  - id: t.one\n"
                     "    title: one\n"
                     "    level: quick\n"
                     "    pass: {summary: ok}\n"
                     "    why: w\n",
                     rows);
}

static int peaks_reject(const char *rows, const char *want)
{
    char *t = peaks_yaml(rows);
    int ok = text_rejects(t, want);
    free(t);
    return ok;
}

static void test_peaks_table(void)
{
    char *t = peaks_yaml("\n  - {arch: gfx942, source: s, fp16_matrix: 2048, fp32_vector: 256,"
                         " mem_transfers_per_clock: 4, memory: HBM3, name: n}\n"
                         "  - {arch: sm_90a, source: s2, bf16_matrix: 4096}\n");
    struct checkset cs;
    CHECK(checks_load_string(&cs, "t.yaml", t, strlen(t)) == 0);
    free(t);
    CHECK(cs.peaks.n == 2);
    const struct peak_arch *a = peaks_find(&cs.peaks, "gfx942:sramecc+:xnack-");
    CHECK(a && a->fp16_matrix == 2048 && a->bf16_matrix == 0 && a->mem_transfers_per_clock == 4);
    CHECK(a && a->line == 3 && strcmp(a->source, "s") == 0 && strcmp(a->memory, "HBM3") == 0);
    CHECK(peaks_find(&cs.peaks, "amdgcn-amd-amdhsa--gfx942") == a);
    CHECK(peaks_find(&cs.peaks, "gfx94") == NULL && peaks_find(&cs.peaks, "gfx9420") == NULL);
    CHECK(peaks_find(&cs.peaks, "sm_90a") && peaks_find(&cs.peaks, "sm_90") == NULL);
    CHECK(peaks_find(&cs.peaks, NULL) == NULL);
    checks_release(&cs);

    CHECK(peaks_reject(" {a: 1}\n", "t.yaml:2:8: 'peaks' must be a list of architectures"));
    CHECK(peaks_reject("\n  - gfx942\n",
                       "t.yaml:3:5: a peaks entry must be a mapping (arch, source, figures)"));
    CHECK(peaks_reject("\n  - {arch: gfx942, source: s, fp16: 1}\n",
                       "t.yaml:3:31: unknown key 'fp16' in peaks (arch, name, memory, source, "
                       "fp16_matrix, bf16_matrix, fp32_vector, mem_transfers_per_clock)"));
    CHECK(peaks_reject("\n  - {source: s}\n", "t.yaml:3:5: peaks entry has no 'arch'"));
    CHECK(peaks_reject("\n  - {arch: GFX942, source: s}\n",
                       "t.yaml:3:5: peaks arch 'GFX942' must be gfxNNN or sm_NN"));
    CHECK(peaks_reject("\n  - {arch: sm_, source: s}\n",
                       "t.yaml:3:5: peaks arch 'sm_' must be gfxNNN or sm_NN"));
    CHECK(peaks_reject("\n  - {arch: gfx942}\n", "t.yaml:3:5: peaks entry gfx942 has no 'source'"));
    CHECK(peaks_reject("\n  - {arch: gfx942, source: \"\"}\n",
                       "t.yaml:3:28: peaks 'source' must be a non-empty string"));
    CHECK(peaks_reject("\n  - {arch: [gfx942], source: s}\n",
                       "t.yaml:3:12: peaks 'arch' must be a non-empty string"));
    CHECK(peaks_reject("\n  - {? [a] : 1, arch: gfx942, source: s}\n",
                       "t.yaml:3:8: peaks keys must be strings"));
    static const char *const bad[] = {"0", "-1", "nan", "inf", "1e7", "abc", "\"\"", "[1]"};
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        char *rows = xasprintf("\n  - {arch: gfx942, source: s, fp32_vector: %s}\n", bad[i]);
        char *want = xasprintf("t.yaml:3:44: peaks 'fp32_vector' must be a positive number (at "
                               "most 1e6), not '%s'",
                               bad[i][0] == '['   ? "a list or mapping"
                               : bad[i][0] == '"' ? ""
                                                  : bad[i]);
        int ok = peaks_reject(rows, want);
        if (!ok)
            fprintf(stderr, "  (fp32_vector: %s)\n", bad[i]);
        CHECK(ok);
        free(rows);
        free(want);
    }
    CHECK(peaks_reject("\n  - {arch: gfx942, source: s}\n  - {arch: gfx942, source: t}\n",
                       "t.yaml:4:5: peaks arch 'gfx942' listed twice (first at line 3)"));
    CHECK(peaks_reject("\n  - {arch: gfx942, arch: gfx90a, source: s}\n",
                       "t.yaml:3:20: duplicate key 'arch' (first at line 3)"));

    /* the built-in table loads and covers the architectures the issue names */
    CHECK(checks_load_default(&cs, NULL) == 0);
    static const char *const archs[] = {"gfx908",  "gfx90a",  "gfx940",  "gfx941", "gfx942",
                                        "gfx1030", "gfx1100", "gfx1101", "sm_80",  "sm_90"};
    for (size_t i = 0; i < ARRAY_SIZE(archs); i++) {
        a = peaks_find(&cs.peaks, archs[i]);
        CHECK(a && a->fp16_matrix > 0 && a->fp32_vector > 0 && a->source && *a->source);
    }
    /* MI300X: 304 CUs x 2100 MHz x 2048 = 1307.4 TFLOPS dense fp16 (AMD's figure) */
    a = peaks_find(&cs.peaks, "gfx942");
    CHECK(a && a->fp16_matrix * 304 * 2100e6 / 1e12 > 1307 &&
          a->fp16_matrix * 304 * 2100e6 / 1e12 < 1308);
    checks_release(&cs);
}

/* ---- caused_by: the loader refuses an unknown id, a check naming itself,
 * a cycle and a rule's id outside its check's list, at the id's line:col;
 * after a run a consequence names its cause and points its fix there,
 * judged on the same GPU where both are per GPU, and the check to start
 * with is a root cause, roots of a failure before roots of warnings only */

/* a check on lines 3-8 (id on line 3, caused_by on line 6 at column 16) */
#define CHECK_AT(id, causes)                                                                       \
    "  - id: " id "\n"                                                                             \
    "    title: t\n"                                                                               \
    "    level: quick\n"                                                                           \
    "    caused_by: " causes "\n"                                                                  \
    "    pass: {summary: ok}\n"                                                                    \
    "    why: w\n"
#define HEAD "schema: rocm-vla-doctor-checks/1\nchecks:\n"

static void test_cause_loader(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {HEAD CHECK_AT("t.a", "[t.nope]"),
         "t.yaml:6:17: check t.a: caused_by names 't.nope', which is no check"},
        {HEAD CHECK_AT("t.a", "[t.a]"), "t.yaml:6:17: check t.a: caused_by names the check itself"},
        {HEAD CHECK_AT("t.a", "[t.b]") CHECK_AT("t.b", "[t.a]"),
         "t.yaml:12:17: caused_by cycle: t.a -> t.b -> t.a"},
        {HEAD CHECK_AT("t.a", "[t.b]") CHECK_AT("t.b", "[t.c]") CHECK_AT("t.c", "[t.a]"),
         "t.yaml:18:17: caused_by cycle: t.a -> t.b -> t.c -> t.a"},
        {HEAD CHECK_AT("t.a", "t.zz"),
         "t.yaml:6:16: check t.a: caused_by names 't.zz', which is no check"},
        {HEAD CHECK_AT("t.a", "[t.b]") CHECK_AT("t.b", "[]"), ""},
        {HEAD CHECK_AT("t.a", "{x: 1}"), "t.yaml:6:16: caused_by must be a list of strings"},
        {HEAD CHECK_AT("t.b",
                       "[]") "  - id: t.a\n"
                             "    title: t\n"
                             "    level: quick\n"
                             "    caused_by: [t.b]\n"
                             "    fail: [{when: \"env.wsl\", caused_by: [t.c], summary: s}]\n"
                             "    pass: {summary: ok}\n"
                             "    fix: f\n"
                             "    why: w\n" CHECK_AT("t.c", "[]"),
         "t.yaml:13:42: check t.a: a rule's caused_by names 't.c', which is not in the check's "
         "caused_by"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char msg[512];
        if (*cases[i].want)
            CHECK(text_rejects(cases[i].text, cases[i].want));
        else
            CHECK(load_text(cases[i].text, strlen(cases[i].text), msg, sizeof(msg)) == 0);
    }
}

/* root r1 (fail on env.wsl, warn on user.is_root); c1 caused by r1 (fail on
 * kfd.present); c2 caused by c1 (fail on dri.render_present); r2 a root
 * of its own (warn on host.sudo_present); n1 caused by r1 except for its
 * rule fail[0] (caused_by: []); per-GPU p and q caused by p */
static const char cause_yaml[] =
    "schema: rocm-vla-doctor-checks/1\n"
    "checks:\n"
    "  - {id: t.r2, title: t, level: quick, why: w, fix: f, pass: {summary: ok},\n"
    "     warn: [{when: \"host.sudo_present\", summary: r2w}]}\n"
    "  - {id: t.c2, title: t, level: quick, why: w, fix: f, pass: {summary: ok},\n"
    "     caused_by: [t.c1], fail: [{when: \"dri.render_present\", summary: c2f}]}\n"
    "  - {id: t.c1, title: t, level: quick, why: w, fix: f, pass: {summary: ok},\n"
    "     caused_by: [t.r1], fail: [{when: \"kfd.present\", summary: c1f}]}\n"
    "  - {id: t.r1, title: t, level: quick, why: w, fix: f, pass: {summary: ok},\n"
    "     fail: [{when: \"env.wsl\", summary: r1f}], warn: [{when: \"user.is_root\", summary: "
    "r1w}]}\n"
    "  - {id: t.n1, title: t, level: quick, why: w, fix: f, pass: {summary: ok},\n"
    "     caused_by: [t.r1], fail: [{when: \"kfd.present && dri.render_present\", caused_by: [],\n"
    "     summary: n1own}, {when: \"kfd.present\", summary: n1f}]}\n"
    "  - {id: t.p, title: t, level: quick, per: gpu, why: w, fix: f, pass: {summary: ok},\n"
    "     fail: [{when: \"gpu.vram_bytes < 12 GiB\", summary: pf}]}\n"
    "  - {id: t.q, title: t, level: quick, per: gpu, why: w, fix: f, pass: {summary: ok},\n"
    "     caused_by: [t.p], fail: [{when: \"gpu.vram_bytes < 16 GiB\", summary: qf}]}\n";

static const char *cause_of(const struct results *r, const char *id)
{
    const struct result *x = find(r, id);
    return x && x->cause ? x->cause->check->id : "-";
}

static void test_cause_run(void)
{
    static const struct {
        int wsl, root, kfd, render, sudo;
        long long vram0, vram1; /* GiB */
        const char *start, *c1, *c2, *n1, *q;
    } cases[] = {
        /* everything passes: nothing to start with */
        {0, 0, 0, 0, 0, 20, 20, NULL, "-", "-", "-", "-"},
        /* a warning root beats a later root because it explains a failure */
        {0, 1, 1, 0, 1, 20, 20, "t.r1", "t.r1", "-", "t.r1", "-"},
        /* a warning root without consequences comes after any failure */
        {0, 0, 1, 0, 1, 20, 20, "t.c1", "-", "-", "-", "-"},
        /* only warnings: the first root of a warning */
        {0, 0, 0, 0, 1, 20, 20, "t.r2", "-", "-", "-", "-"},
        /* a chain r1 <- c1 <- c2; the rule with caused_by [] stands alone */
        {1, 0, 1, 1, 0, 20, 20, "t.r1", "t.r1", "t.c1", "-", "-"},
        /* c2 fails alone: its cause passed, so it is a root */
        {0, 0, 0, 1, 0, 20, 20, "t.c2", "-", "-", "-", "-"},
        /* per GPU: q fails worst on GPU 0, where p passes: not caused */
        {0, 0, 0, 0, 0, 14, 8, "t.p", "-", "-", "-", "-"},
        /* per GPU: q's worst GPU is where p fails too */
        {0, 0, 0, 0, 0, 8, 20, "t.p", "-", "-", "-", "t.p"},
    };
    struct checkset cs;
    CHECK(checks_load_string(&cs, "t.yaml", cause_yaml, strlen(cause_yaml)) == 0);
    for (size_t i = 0; i < ARRAY_SIZE(cases) && cs.n; i++) {
        struct factset fs = FACTSET_INIT;
        fact_set_bool(&fs, "env.wsl", cases[i].wsl, NULL);
        fact_set_bool(&fs, "user.is_root", cases[i].root, NULL);
        fact_set_bool(&fs, "kfd.present", cases[i].kfd, NULL);
        fact_set_bool(&fs, "dri.render_present", cases[i].render, NULL);
        fact_set_bool(&fs, "host.sudo_present", cases[i].sudo, NULL);
        fact_set_int(&fs, "gpu.count", 2, NULL);
        fact_set_int(&fs, "gpu.0.vram_bytes", cases[i].vram0 << 30, NULL);
        fact_set_int(&fs, "gpu.1.vram_bytes", cases[i].vram1 << 30, NULL);
        struct results r;
        struct run_filter flt = {LEVEL_QUICK, NULL};
        CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
        const struct result *s = results_start_with(&r);
        if (cases[i].start)
            CHECK_STR(s ? s->check->id : "(none)", cases[i].start);
        else
            CHECK(s == NULL);
        CHECK_STR(cause_of(&r, "t.c1"), cases[i].c1);
        CHECK_STR(cause_of(&r, "t.c2"), cases[i].c2);
        CHECK_STR(cause_of(&r, "t.n1"), cases[i].n1);
        CHECK_STR(cause_of(&r, "t.q"), cases[i].q);
        /* a consequence says so and gives no second fix */
        for (size_t j = 0; j < r.n; j++) {
            const struct result *x = &r.v[j];
            if (!x->cause)
                continue;
            char *want = xasprintf("see %s", x->cause->check->id);
            CHECK_STR(x->fix, want);
            free(want);
            CHECK(strstr(x->summary, "(caused by ") != NULL);
            CHECK(x->cause->st != ST_PASS && x->cause->st != ST_SKIP);
        }
        results_release(&r);
        factset_release(&fs);
    }
    checks_release(&cs);
}

#define FIX_RULE(fix)                                                                              \
    "    fail:\n      - when: 'gpu.count == 0'\n        summary: s\n        fix: " fix "\n"

/* the fix model (man 5 checks.yaml, Fixes): a string, or say/run/then */
static void test_fix_load(void)
{
    CHECK(accepts(GLOBAL, FIX_RULE("{say: a, run: ['{sudo}modprobe amdgpu'], then: b}")));
    CHECK(accepts(GLOBAL, FIX_RULE("{run: 'rocminfo'}")));
    /* an old-style file with a command in prose still loads (the lint of
     * the built-in file is tests/fix_commands.sh) */
    CHECK(accepts(GLOBAL, FIX_RULE("'{sudo}modprobe amdgpu, then reboot'")));
    CHECK(rejects(GLOBAL, FIX_RULE("{say: a, doo: b}"),
                  "t.yaml:12:23: unknown key 'doo' in fix (say, run, then)"));
    CHECK(rejects(GLOBAL, FIX_RULE("{run: [[rocminfo]]}"),
                  "t.yaml:12:21: fix 'run' must be a list of strings"));
    /* a run item by distribution (checks_family.c): known families only,
     * each a command, at least one */
    CHECK(rejects(GLOBAL, FIX_RULE("{run: [{a: b}]}"),
                  "t.yaml:12:22: unknown distribution 'a' in fix 'run' (debian, fedora, suse, "
                  "arch)"));
    CHECK(rejects(GLOBAL, FIX_RULE("{run: [{debian: [x]}]}"),
                  "t.yaml:12:30: fix 'run' for debian must be a command"));
    CHECK(
        rejects(GLOBAL, FIX_RULE("{run: [{}]}"), "t.yaml:12:21: fix 'run' names no distribution"));
    CHECK(accepts(GLOBAL, FIX_RULE("{run: [{debian: 'apt install x', arch: 'pacman -S x'}, "
                                   "rocminfo]}")));
    CHECK(rejects(GLOBAL, FIX_RULE("{run: [{fedora: 'dnf install {rocm.seris}'}]}"),
                  "t.yaml:12:44: unknown fact 'rocm.seris' (did you mean 'rocm.series'?) in "
                  "placeholder {rocm.seris}"));
    CHECK(rejects(GLOBAL, FIX_RULE("{say: [a]}"), "t.yaml:12:20: fix 'say' must be a string"));
    CHECK(rejects(GLOBAL, FIX_RULE("[a]"),
                  "t.yaml:12:14: fix must be a string or a mapping with say/run/then"));
    CHECK(rejects(GLOBAL, FIX_RULE("{}"), "t.yaml:12:14: fix has none of say, run, then"));
    /* placeholders of a command are validated as a summary's are */
    CHECK(rejects(GLOBAL, FIX_RULE("{run: ['echo {rocm.seris}']}"),
                  "t.yaml:12:28: unknown fact 'rocm.seris' (did you mean 'rocm.series'?) in "
                  "placeholder {rocm.seris}"));
    /* the check-level fix takes the mapping too */
    CHECK(text_rejects("schema: rocm-vla-doctor-checks/1\nchecks:\n  - id: t.one\n"
                       "    title: one\n    level: quick\n    why: w\n"
                       "    pass: {summary: ok}\n    fix: {run: [a], then: b, say: c, x: d}\n",
                       "t.yaml:8:38: unknown key 'x' in fix (say, run, then)"));
}

static const char fix_yaml[] = "schema: rocm-vla-doctor-checks/1\n"
                               "checks:\n"
                               "  - id: t.fix\n"
                               "    title: fix\n"
                               "    level: quick\n"
                               "    why: w\n"
                               "    fail: {when: 'gpu.count == 3', summary: 'ROCm {rocm.series}'}\n"
                               "    pass: {summary: ok}\n"
                               "    fix:\n"
                               "      say: 'series {rocm.series}'\n"
                               "      run: ['{sudo}apt install rocm={rocm.series}', 'rocminfo']\n"
                               "      then: 'log in again'\n";

/* the fix of one run of fix_yaml with these facts */
static void fix_run(int root, int sudo, const char *series, const struct result **out,
                    struct results *r, struct checkset *cs, struct factset *fs)
{
    CHECK(checks_load_string(cs, "t.yaml", fix_yaml, strlen(fix_yaml)) == 0);
    *fs = (struct factset)FACTSET_INIT;
    fact_set_int(fs, "gpu.count", 3, NULL);
    fact_set_bool(fs, "user.is_root", root, NULL);
    fact_set_bool(fs, "host.sudo_present", sudo, NULL);
    fact_set_str(fs, "rocm.series", series, NULL);
    struct run_filter flt = {LEVEL_STANDARD, NULL};
    CHECK(checks_run(cs, fs, &flt, r) == 0);
    *out = find(r, "t.fix");
}

static void fix_done(struct results *r, struct checkset *cs, struct factset *fs)
{
    results_release(r);
    factset_release(fs);
    checks_release(cs);
}

/* a command's facts are shell words, {sudo} the privilege prefix; prose is
 * rendered as a summary is; the one-string form joins them */
static void test_fix_render(void)
{
    struct checkset cs;
    struct factset fs;
    struct results r;
    const struct result *v;
    fix_run(0, 1, "6.2; rm -rf ~", &v, &r, &cs, &fs);
    CHECK(v && v->st == ST_FAIL && v->fix_parts.run.n == 2);
    if (v && v->fix_parts.run.n == 2) {
        CHECK_STR(v->fix_parts.say, "series 6.2; rm -rf ~");
        CHECK_STR(v->fix_parts.run.v[0], "sudo apt install rocm='6.2; rm -rf ~'");
        CHECK_STR(v->fix_parts.run.v[1], "rocminfo");
        CHECK_STR(v->fix_parts.then, "log in again");
        CHECK_STR(v->fix, "series 6.2; rm -rf ~: `sudo apt install rocm='6.2; rm -rf ~'`; "
                          "`rocminfo`; log in again");
    }
    fix_done(&r, &cs, &fs);
    fix_run(1, 1, "6.2", &v, &r, &cs, &fs);
    CHECK(v && v->fix_parts.run.n == 2 &&
          strcmp(v->fix_parts.run.v[0], "apt install rocm=6.2") == 0);
    fix_done(&r, &cs, &fs);
    /* no sudo and not root: the command stays a command, the prose says how */
    fix_run(0, 0, "6.2", &v, &r, &cs, &fs);
    CHECK(v && v->fix_parts.run.n == 2 &&
          strcmp(v->fix_parts.run.v[0], "apt install rocm=6.2") == 0);
    CHECK(v && v->fix_parts.say &&
          strcmp(v->fix_parts.say, "series 6.2 (as root: sudo is not installed)") == 0);
    fix_done(&r, &cs, &fs);
    /* a command whose fact is unknown is left out, never printed with
     * "unknown" in it; the prose says which and why */
    fix_run(0, 1, "6.2", &v, &r, &cs, &fs);
    results_release(&r);
    fact_set_unknown(&fs, "rocm.series", "/opt/rocm/.info/version", "unreadable");
    struct run_filter flt = {LEVEL_STANDARD, NULL};
    CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
    v = find(&r, "t.fix");
    CHECK(v && v->fix_parts.run.n == 1);
    if (v && v->fix_parts.run.n == 1)
        CHECK_STR(v->fix_parts.run.v[0], "rocminfo");
    CHECK(v && v->fix_parts.say &&
          strstr(v->fix_parts.say, "(the commands are left out: rocm.series is unknown here)"));
    fix_done(&r, &cs, &fs);
    /* a fact holding a tab (bash's $'...' form is other syntax under dash,
     * busybox sh and zsh, issue 30): its command is left out and named */
    fix_run(0, 1, "6.2\t'; echo X #", &v, &r, &cs, &fs);
    CHECK(v && v->fix_parts.run.n == 1);
    if (v && v->fix_parts.run.n == 1)
        CHECK_STR(v->fix_parts.run.v[0], "rocminfo");
    CHECK(v && v->fix_parts.say &&
          strstr(v->fix_parts.say, "(left out: rocm.series holds a control or invisible "
                                   "character, which a shell command cannot carry safely)"));
    CHECK(v && v->fix && !strstr(v->fix, "`sudo apt"));
    fix_done(&r, &cs, &fs);
}

/* the words of a per-GPU result (checks_gpus.c): ranges, statuses by
 * verb, never "(0 of N GPUs pass)" for a check judged on no GPU */
static void test_gpu_words(void)
{
    char b[64];
    const int a[] = {0, 1, 2, 3}, c[] = {1, 4, 6}, d[] = {4, 5}, e[] = {0, 2, 3, 4, 7};
    gpu_list_compact(a, 4, b, sizeof(b));
    CHECK(strcmp(b, "0-3") == 0);
    gpu_list_compact(c, 3, b, sizeof(b));
    CHECK(strcmp(b, "1, 4, 6") == 0);
    gpu_list_compact(d, 2, b, sizeof(b));
    CHECK(strcmp(b, "4, 5") == 0);
    gpu_list_compact(e, 5, b, sizeof(b));
    CHECK(strcmp(b, "0, 2-4, 7") == 0);
    gpu_list_compact(e, 5, b, 6); /* cut, still terminated */
    CHECK(strlen(b) <= 5 && strncmp(b, "0, 2-", strlen(b)) == 0);
    gpu_list_compact(e, 0, b, sizeof(b));
    CHECK(b[0] == '\0');

    struct gpu_verdict v[8];
    memset(v, 0, sizeof(v));
    for (int i = 0; i < 8; i++) {
        v[i].gpu = i;
        v[i].st = ST_PASS;
        v[i].summary = (char *)"fine";
    }
    char *s = gpu_results_summary(v, 8, &v[0]);
    CHECK(strcmp(s, "all 8 GPUs: fine") == 0);
    free(s);
    for (int i = 4; i < 8; i++)
        v[i].st = ST_WARN;
    v[4].summary = (char *)"far";
    s = gpu_results_summary(v, 8, &v[4]);
    CHECK(strcmp(s, "GPUs 4-7 warn; GPU 4: far (4 of 8 GPUs pass)") == 0);
    free(s);
    v[3].st = ST_FAIL;
    v[3].summary = (char *)"broken";
    v[6].st = ST_FAIL;
    v[1].st = ST_TIMEOUT;
    v[2].st = ST_ERROR;
    s = gpu_results_summary(v, 8, &v[3]);
    CHECK(strcmp(s, "GPUs 3, 6 fail, GPU 2 errs, GPU 1 times out, GPUs 4, 5, 7 warn; GPU 3: "
                    "broken (1 of 8 GPUs pass)") == 0);
    free(s);
    for (int i = 0; i < 8; i++)
        v[i].st = i == 5 ? ST_WARN : ST_PASS;
    s = gpu_results_summary(v, 8, &v[5]); /* one GPU: as before */
    CHECK(strcmp(s, "GPU 5: fine (7 of 8 GPUs pass)") == 0);
    free(s);
    for (int i = 0; i < 8; i++)
        v[i].st = ST_SKIP;
    v[0].summary = (char *)"no table";
    s = gpu_results_summary(v, 8, &v[0]);
    CHECK(strcmp(s, "not judged on 8 GPUs: no table") == 0);
    free(s);
    v[2].st = ST_PASS;
    s = gpu_results_summary(v, 8, &v[0]);
    CHECK(strcmp(s, "GPUs 0, 1, 3-7 not judged; GPU 0: no table (1 of 8 GPUs pass)") == 0);
    free(s);
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    test_fix_load();
    test_fix_render();
    test_peaks_table();
    test_hostile_yaml();
    test_data_index();
    test_catalogue();
    test_validation();
    test_eval_type_error();
    test_capped_list();
    test_cause_loader();
    test_cause_run();
    test_gpu_words();

    struct checkset cs;
    CHECK(checks_load_string(&cs, "t.yaml", yaml, strlen(yaml)) == 0);
    CHECK(cs.n == 3);

    struct factset fs = FACTSET_INIT;
    fact_set_int(&fs, "gpu.count", 3, NULL);
    fact_set_int(&fs, "gpu.0.vram_bytes", 24LL << 30, NULL);
    fact_set_int(&fs, "gpu.1.vram_bytes", 14LL << 30, NULL);
    fact_set_unknown(&fs, "gpu.2.vram_bytes", "/sys/x", "permission denied");
    fact_set_str(&fs, "gpu.0.gfx", "gfx1100", NULL);
    fact_set_str(&fs, "gpu.1.gfx", "gfx942", NULL);
    fact_set_str(&fs, "gpu.2.gfx", "gfx1100", NULL);
    fact_set_str(&fs, "rocm.series", "6.2", NULL);
    fact_set_str(&fs, "probe.sync.status", "timeout", NULL);
    fact_set_str(&fs, "probe.sync.message", "killed after 20 s", NULL);

    struct results r;
    struct run_filter flt = {LEVEL_STANDARD, NULL};
    CHECK(checks_run(&cs, &fs, &flt, &r) == 0);
    const struct result *v = find(&r, "t.vram");
    CHECK(v && v->st == ST_WARN); /* the warn of GPU 1 beats GPU 2's skip */
    CHECK(v && strstr(v->summary, "GPU 1: tight") != NULL);
    CHECK(v && v->fix && strcmp(v->fix, "buy") == 0);
    CHECK(v && v->nev == 3); /* gpu.<i>.vram_bytes of the three GPUs */
    /* every GPU's own verdict is kept, the check's summary names each one
     * that did not pass (issue 34) */
    CHECK(v && strcmp(v->summary, "GPU 1 warns, GPU 2 not judged; GPU 1: tight (1 of 3 GPUs "
                                  "pass)") == 0);
    CHECK(v && v->ngpus == 3);
    if (v && v->ngpus == 3) {
        CHECK(v->gpus[0].gpu == 0 && v->gpus[0].st == ST_PASS && !v->gpus[0].fix);
        CHECK(strcmp(v->gpus[0].rule, "pass") == 0 && !v->gpus[0].pci);
        CHECK(v->gpus[1].st == ST_WARN && strcmp(v->gpus[1].rule, "warn[0]") == 0);
        CHECK(strcmp(v->gpus[1].summary, "tight") == 0 && v->gpus[1].fix &&
              strcmp(v->gpus[1].fix, "buy") == 0);
        CHECK(v->gpus[2].st == ST_SKIP && strcmp(v->gpus[2].rule, "fail[0]?") == 0);
        CHECK(strstr(v->gpus[2].summary, "permission denied") != NULL);
    }
    const struct result *g = find(&r, "t.gfx");
    CHECK(g && g->st == ST_PASS);
    CHECK(g && g->ngpus == 3 && g->gpus[2].st == ST_PASS);
    CHECK(g && strstr(g->summary, "all 3 GPUs") != NULL);
    const struct result *c = find(&r, "t.crash");
    CHECK(c && c->st == ST_TIMEOUT);
    CHECK(c && strstr(c->summary, "killed after 20 s") != NULL);
    CHECK(results_exit_code(&r, 0) == 1); /* a timeout is never a silent pass */
    results_release(&r);

    /* an unknown fact on the only GPU: skip naming it, never pass */
    fact_set_int(&fs, "gpu.count", 1, NULL);
    fact_set_unknown(&fs, "gpu.0.vram_bytes", "/sys/y", "unreadable");
    struct run_filter quick = {LEVEL_QUICK, NULL};
    CHECK(checks_run(&cs, &fs, &quick, &r) == 0);
    v = find(&r, "t.vram");
    CHECK(v && v->st == ST_SKIP);
    CHECK(v && strstr(v->summary, "gpu.0.vram_bytes is unknown (unreadable)") != NULL);
    CHECK(find(&r, "t.crash") == NULL); /* standard-level check not run */
    results_release(&r);

    /* a ROCm series missing from the table: undecidable, skip */
    fact_set_str(&fs, "rocm.series", "9.9", NULL);
    CHECK(checks_run(&cs, &fs, &quick, &r) == 0);
    g = find(&r, "t.gfx");
    CHECK(g && g->st == ST_SKIP);
    CHECK(g && strstr(g->summary, "sup[9.9]") != NULL);
    results_release(&r);

    /* no GPUs: per-GPU checks evaluate once and skip by rule */
    fact_set_int(&fs, "gpu.count", 0, NULL);
    CHECK(checks_run(&cs, &fs, &quick, &r) == 0);
    v = find(&r, "t.vram");
    CHECK(v && v->st == ST_SKIP && strcmp(v->summary, "no gpu") == 0);
    results_release(&r);

    /* --only: exact ids and prefixes; unknown ids are an error */
    struct strlist only = STRLIST_INIT;
    strlist_add(&only, "t.");
    struct run_filter of = {LEVEL_QUICK, &only};
    CHECK(checks_run(&cs, &fs, &of, &r) == 0);
    CHECK(r.n == 3); /* --only overrides the level */
    results_release(&r);
    strlist_add(&only, "nope");
    CHECK(checks_run(&cs, &fs, &of, &r) == -1);
    strlist_release(&only);

    factset_release(&fs);
    checks_release(&cs);

    /* the shipped checks.yaml loads */
    CHECK(checks_load(&cs, "checks.yaml") == 0);
    CHECK(checks_find(&cs, "pcie.atomics") != NULL);
    checks_release(&cs);
    return test_report();
}
