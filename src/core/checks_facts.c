/* checks_facts.c - every fact a check may read when it is judged: its
 * `reads:`, the names in its rules' `when:`, the {placeholders} of its
 * summaries and fixes, and what the engine itself consults (checks_run.c:
 * gpu.count for a per-GPU check, the outcome of its `probe:`). `check
 * --only` runs the probes that produce these and no others (src/main.c). */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_once(struct strlist *out, const char *name)
{
    if (!strlist_has(out, name))
        strlist_add(out, name);
}

/* {name}, {name:unit} of a summary or fix template; {gpu} is the index and
 * {sudo} reads user.is_root and host.sudo_present (render_sudo) */
static void template_facts(const char *tmpl, struct strlist *out)
{
    for (const char *p = tmpl ? strchr(tmpl, '{') : NULL; p; p = strchr(p + 1, '{')) {
        const char *close = strchr(p, '}');
        if (!close)
            return;
        size_t n = strcspn(p + 1, ":}");
        char *name = xstrndup(p + 1, n);
        if (strcmp(name, "sudo") == 0) {
            add_once(out, "user.is_root");
            add_once(out, "host.sudo_present");
        } else if (strcmp(name, "gpu") != 0) {
            add_once(out, name);
        }
        free(name);
        p = close;
    }
}

static void fix_facts(const struct fix *f, struct strlist *out)
{
    template_facts(f->say, out);
    for (size_t i = 0; i < f->run.n; i++)
        template_facts(f->run.v[i], out);
    template_facts(f->then, out);
}

static void rules_facts(const struct rule *r, size_t n, struct strlist *out)
{
    for (size_t i = 0; i < n; i++) {
        expr_idents(r[i].when, out);
        template_facts(r[i].summary, out);
        fix_facts(&r[i].fix, out);
    }
}

void check_facts(const struct check *ck, struct strlist *out)
{
    for (size_t i = 0; i < ck->reads.n; i++)
        add_once(out, ck->reads.v[i]);
    rules_facts(ck->skip, ck->nskip, out);
    rules_facts(ck->fail, ck->nfail, out);
    rules_facts(ck->warn, ck->nwarn, out);
    rules_facts(&ck->pass, 1, out);
    fix_facts(&ck->fix, out);
    if (ck->per_gpu)
        add_once(out, "gpu.count");
    if (ck->probe) {
        char name[FACT_NAME_MAX];
        snprintf(name, sizeof(name), "probe.%s.status", ck->probe);
        add_once(out, name);
    }
}
