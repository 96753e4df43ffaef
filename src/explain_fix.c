/* explain_fix.c - see explain_fix.h. A template printed raw ({sudo},
 * {python.torch_wheel_index}) reads as if it were part of the command, so
 * {sudo} is written as "sudo " (what a user who is not root gets) and a
 * fact as <the.fact.name>, and a legend below says what each stands for:
 * the fact's type and the probe that reads it (the fact catalogue). */
#include "explain_fix.h"

#include <stdlib.h>
#include <string.h>

#include "../probes/fact_catalog.h"

/* the template with placeholders in words; names collects the facts */
static void words(struct strbuf *sb, const char *tmpl, struct strlist *names)
{
    for (const char *p = tmpl; *p;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        if (!close) {
            strbuf_addc(sb, *p++);
            continue;
        }
        char *name = xstrndup(p + 1, (size_t)(close - p - 1));
        char *unit = strchr(name, ':');
        if (unit)
            *unit++ = '\0';
        if (strcmp(name, "sudo") == 0) {
            strbuf_adds(sb, "sudo ");
        } else if (strcmp(name, "gpu") == 0) {
            strbuf_adds(sb, "<GPU index>");
        } else {
            strbuf_addf(sb, "<%s%s%s>", name, unit ? " in " : "", unit ? unit : "");
            if (!strlist_has(names, name))
                strlist_add(names, name);
        }
        if (strcmp(name, "sudo") == 0 && !strlist_has(names, "{sudo}"))
            strlist_add(names, "{sudo}");
        free(name);
        p = close + 1;
    }
}

static void fix_words(struct strbuf *sb, const char *head, const struct fix *f,
                      struct strlist *names)
{
    if (!fix_present(f))
        return;
    strbuf_addf(sb, "%s", head);
    if (f->say) {
        strbuf_adds(sb, "  ");
        words(sb, f->say, names);
        strbuf_addc(sb, '\n');
    }
    for (size_t i = 0; i < f->run.n; i++) {
        strbuf_adds(sb, "      ");
        words(sb, f->run.v[i], names);
        strbuf_addc(sb, '\n');
    }
    if (f->then) {
        strbuf_adds(sb, "  ");
        words(sb, f->then, names);
        strbuf_addc(sb, '\n');
    }
}

static void rules(struct strbuf *sb, const char *kind, const struct rule *r, size_t n,
                  struct strlist *names)
{
    for (size_t i = 0; i < n; i++) {
        strbuf_addf(sb, "  %s when %s\n      -> ", kind, r[i].when_src);
        words(sb, r[i].summary, names);
        strbuf_addc(sb, '\n');
    }
}

static void legend(struct strbuf *sb, const struct strlist *names)
{
    if (!names->n)
        return;
    strbuf_adds(sb, "\nIn the summaries and fixes (filled in from the machine's facts when it is "
                    "checked):\n");
    for (size_t i = 0; i < names->n; i++) {
        const char *n = names->v[i];
        const struct fact_decl *d;
        const char *probe;
        char buf[FACT_NAME_MAX];
        /* gpu.x of a per-GPU check is the declared gpu.<i>.x of each GPU */
        int found = fact_catalog_find(n, &d, &probe) == 0 ||
                    (str_starts(n, "gpu.") &&
                     fact_catalog_find(fact_gpu_name(buf, 0, n + 4), &d, &probe) == 0);
        if (strcmp(n, "{sudo}") == 0)
            strbuf_adds(sb, "  sudo  'sudo ' for a user who is not root, nothing for root\n");
        else if (found)
            strbuf_addf(sb, "  <%s>  the fact %s (%s, read by the %s probe)\n", n, n,
                        fact_type_name(d->type), probe);
        else
            strbuf_addf(sb, "  <%s>  the fact %s\n", n, n);
    }
}

void explain_rules_fixes(struct strbuf *sb, const struct check *c)
{
    struct strlist names = STRLIST_INIT;
    strbuf_addf(sb, "\nRules (first match wins):\n");
    rules(sb, "skip", c->skip, c->nskip, &names);
    rules(sb, "fail", c->fail, c->nfail, &names);
    rules(sb, "warn", c->warn, c->nwarn, &names);
    strbuf_adds(sb, "  otherwise pass\n      -> ");
    words(sb, c->pass.summary, &names);
    strbuf_addc(sb, '\n');
    fix_words(sb, "\nFix:\n", &c->fix, &names);
    const struct rule *groups[2] = {c->fail, c->warn};
    size_t ns[2] = {c->nfail, c->nwarn};
    const char *kinds[2] = {"fail", "warn"};
    for (int g = 0; g < 2; g++)
        for (size_t i = 0; i < ns[g]; i++) {
            char *head = xasprintf("\nFix when %s (%s):\n", groups[g][i].when_src, kinds[g]);
            fix_words(sb, head, &groups[g][i].fix, &names);
            free(head);
        }
    legend(sb, &names);
    strlist_release(&names);
}
