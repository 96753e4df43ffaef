/* test_fix_family.c - every command-bearing fix of the shipped checks.yaml,
 * rendered for every distribution family (Debian, Fedora, openSUSE, Arch)
 * and for a host of none: a command names only its own family's tools
 * (a Rocky machine is never told `update-initramfs` or `apt`), a host of no
 * known family gets no distribution's command, only prose naming them, and
 * a family's own command is printed. Also host.os_family from real
 * os-release files (probe_host.c). */
#include "../../probes/fact_catalog.h"
#include "../../src/core/checks.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* the tools that belong to distributions, and the families that have each */
static const struct {
    const char *tool;
    const char *families; /* space-separated */
} tools[] = {
    {"apt", "debian"},         {"apt-get", "debian"},
    {"dpkg", "debian"},        {"update-initramfs", "debian"},
    {"update-grub", "debian"}, {"dnf", "fedora"},
    {"yum", "fedora"},         {"grubby", "fedora"},
    {"dracut", "fedora suse"}, {"grub2-mkconfig", "fedora suse"},
    {"rpm", "fedora suse"},    {"zypper", "suse"},
    {"pacman", "arch"},        {"mkinitcpio", "arch"},
    {"grub-mkconfig", "arch"},
};

/* the first distribution tool among cmd's words that fam (NULL: a host of
 * no family) does not have, or NULL */
static const char *foreign_tool(const char *cmd, const char *fam)
{
    struct strlist w = STRLIST_INIT;
    strlist_split(&w, cmd, " \t|;&()");
    const char *bad = NULL;
    for (size_t i = 0; i < w.n && !bad; i++)
        for (size_t k = 0; k < ARRAY_SIZE(tools) && !bad; k++) {
            if (strcmp(w.v[i], tools[k].tool) != 0)
                continue;
            struct strlist fams = STRLIST_INIT;
            strlist_split(&fams, tools[k].families, " ");
            if (!fam || !strlist_has(&fams, fam))
                bad = tools[k].tool;
            strlist_release(&fams);
        }
    strlist_release(&w);
    return bad;
}

/* every fact the check may name, as a string "X" (per GPU also gpu.0.*),
 * so that no command is left out for an unknown placeholder */
static void fill_facts(const struct check *ck, struct factset *fs, const char *fam)
{
    struct strlist names = STRLIST_INIT;
    check_facts(ck, &names);
    for (size_t i = 0; i < names.n; i++) {
        fact_set_str(fs, names.v[i], "X", NULL);
        if (ck->per_gpu && str_starts(names.v[i], "gpu.")) {
            char buf[FACT_NAME_MAX];
            fact_gpu_name(buf, 0, names.v[i] + 4);
            fact_set_str(fs, buf, "X", NULL);
        }
    }
    strlist_release(&names);
    fact_set_bool(fs, "user.is_root", 0, NULL);
    fact_set_bool(fs, "host.sudo_present", 1, NULL);
    if (fam)
        fact_set_str(fs, "host.os_family", fam, NULL);
    else
        fact_set_str(fs, "host.os_family", "unknown", NULL);
}

static size_t commands_seen, family_items;

/* one fix template under every family */
static void judge_fix(const struct checkset *cs, const struct check *ck, const char *where,
                      const struct fix *tmpl)
{
    static const char *const fams[] = {"debian", "fedora", "suse", "arch", NULL};
    for (size_t f = 0; f < ARRAY_SIZE(fams); f++) {
        struct factset fs = FACTSET_INIT;
        fill_facts(ck, &fs, fams[f]);
        struct fix out = FIX_INIT;
        checks_fix_render(cs, &fs, ck->per_gpu ? 0 : -1, tmpl, &out);
        for (size_t i = 0; i < out.run.n; i++) {
            const char *bad = foreign_tool(out.run.v[i], fams[f]);
            commands_seen++;
            if (bad)
                fprintf(stderr, "%s %s for %s: '%s' uses %s\n", ck->id, where,
                        fams[f] ? fams[f] : "a host of no known family", out.run.v[i], bad);
            CHECK(bad == NULL);
        }
        /* the family's own command of each mapped item is printed */
        int fi = family_index(fams[f]);
        for (size_t i = 0; tmpl->by_family && i < tmpl->run.n; i++) {
            if (!tmpl->by_family[i].n)
                continue;
            family_items += f == 0;
            int own = fi >= 0 && tmpl->by_family[i].v[fi][0];
            /* its own command (the text before any placeholder) is printed */
            size_t printed = 0;
            if (own) {
                const char *cmd = tmpl->by_family[i].v[fi];
                if (str_starts(cmd, "{sudo}"))
                    cmd += strlen("{sudo}");
                char *head = xstrndup(cmd, strcspn(cmd, "{"));
                for (size_t j = 0; j < out.run.n; j++)
                    printed += strstr(out.run.v[j], head) != NULL;
                free(head);
            }
            if (own ? !printed : !(out.say && strstr(out.say, "not known here")))
                fprintf(stderr, "%s %s for %s: command %zu %s\n", ck->id, where,
                        fams[f] ? fams[f] : "none", i, own ? "not printed" : "not in the prose");
            CHECK(own ? printed > 0 : 1);
            CHECK(own || (out.say && strstr(out.say, "not known here")));
        }
        fix_release(&out);
        factset_release(&fs);
    }
}

/* rules gated on the distribution (host.os_id) already give that
 * distribution's commands: judged only under it */
static int gated(const struct rule *r)
{
    return r->when_src && strstr(r->when_src, "host.os_id") != NULL;
}

static void test_every_fix(void)
{
    struct checkset cs;
    CHECK(checks_load(&cs, "checks.yaml") == 0);
    for (size_t i = 0; i < cs.n; i++) {
        const struct check *ck = &cs.v[i];
        const struct rule *sets[] = {ck->fail, ck->warn};
        const size_t ns[] = {ck->nfail, ck->nwarn};
        for (size_t s = 0; s < 2; s++)
            for (size_t k = 0; k < ns[s]; k++) {
                const struct rule *r = &sets[s][k];
                const struct fix *t = fix_present(&r->fix) ? &r->fix : &ck->fix;
                char where[32];
                snprintf(where, sizeof(where), "%s[%zu]", s ? "warn" : "fail", k);
                if (t->run.n && !gated(r))
                    judge_fix(&cs, ck, where, t);
            }
    }
    /* the table is not empty: the commands that differ are mapped */
    CHECK(commands_seen > 100);
    CHECK(family_items >= 8);
    printf("%zu commands rendered, %zu items by distribution\n", commands_seen, family_items);
    checks_release(&cs);
}

int main(void)
{
    checks_set_schema(&fact_catalog_schema);
    test_every_fix();
    return test_report();
}
