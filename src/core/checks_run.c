/* checks_run.c - evaluate checks against facts: skip rules, then fail, then
 * warn, else pass; an undecidable rule becomes `skip` naming the unknown
 * fact, never `pass`. Per-GPU checks run once per GPU and the worst wins. */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

static const char *const status_names[ST__COUNT] = {"pass", "warn",  "fail",
                                                    "skip", "error", "timeout"};

const char *status_name(enum status st)
{
    return (unsigned)st < ST__COUNT ? status_names[st] : "?";
}

static const char *const level_names[] = {"quick", "standard", "full", "soak"};

const char *level_name(enum level l)
{
    return (unsigned)l < ARRAY_SIZE(level_names) ? level_names[l] : "?";
}

int level_parse(const char *s, enum level *out)
{
    for (size_t i = 0; i < ARRAY_SIZE(level_names); i++)
        if (strcmp(s, level_names[i]) == 0) {
            *out = (enum level)i;
            return 0;
        }
    return -1;
}

const struct check *checks_find(const struct checkset *cs, const char *id)
{
    for (size_t i = 0; i < cs->n; i++)
        if (strcmp(cs->v[i].id, id) == 0)
            return &cs->v[i];
    return NULL;
}

int checks_table(const struct checkset *cs, const char *table, const char *key, struct val *out)
{
    const struct data_table *t = checks_data_find(cs, table, key);
    if (!t || (t->key && !key))
        return -1;
    memset(out, 0, sizeof(*out));
    out->t = VAL_LIST;
    for (size_t j = 0; j < t->values.n; j++)
        strlist_add(&out->l, t->values.v[j]);
    return 0;
}

/* ---- fact resolution -------------------------------------------------- */

struct env_ctx {
    const struct checkset *cs;
    const struct factset *fs;
    int gpu; /* -1 outside per-GPU checks */
};

/* "gpu.vram_bytes" inside a per-GPU check means "gpu.<i>.vram_bytes" when
 * such a fact exists; anything else is looked up as written. */
static const struct fact *resolve_fact(const struct env_ctx *c, const char *name, char *buf)
{
    if (c->gpu >= 0 && str_starts(name, "gpu.")) {
        fact_gpu_name(buf, c->gpu, name + 4);
        const struct fact *f = fact_get(c->fs, buf);
        if (f)
            return f;
    }
    snprintf(buf, FACT_NAME_MAX, "%s", name);
    return fact_get(c->fs, name);
}

static int env_fact(void *ctx, const char *name, struct val *out)
{
    char buf[FACT_NAME_MAX];
    const struct fact *f = resolve_fact(ctx, name, buf);
    memset(out, 0, sizeof(*out));
    if (!f)
        return -1;
    switch (f->type) {
    case FACT_UNKNOWN:
        out->t = VAL_UNKNOWN;
        out->s = xstrdup(buf);
        break;
    case FACT_BOOL:
        out->t = VAL_BOOL;
        out->b = f->b;
        break;
    case FACT_INT:
        out->t = VAL_NUM;
        out->n = (double)f->i;
        break;
    case FACT_FLOAT:
        out->t = VAL_NUM;
        out->n = f->f;
        break;
    case FACT_STR:
        out->t = VAL_STR;
        out->s = xstrdup(f->s);
        break;
    case FACT_LIST:
        out->t = VAL_LIST;
        for (size_t i = 0; i < fact_list_kept(f); i++)
            strlist_add(&out->l, f->list.v[i]);
        out->more = fact_list_count(f) - fact_list_kept(f);
        break;
    }
    return 0;
}

static int env_table(void *ctx, const char *table, const char *key, struct val *out)
{
    return checks_table(((struct env_ctx *)ctx)->cs, table, key, out);
}

/* {name:gib} / {name:mib}: a byte count in binary units, one decimal */
static int render_unit(struct strbuf *sb, const struct fact *f, const char *unit)
{
    double div = strcmp(unit, "gib") == 0 ? 1073741824.0 : strcmp(unit, "mib") == 0 ? 1048576.0 : 0;
    if (!div || !f || (f->type != FACT_INT && f->type != FACT_FLOAT))
        return -1;
    strbuf_addf(sb, "%.1f", (f->type == FACT_INT ? (double)f->i : f->f) / div);
    return 0;
}

/* {name:one/many}: the number and the word for it, "1 library", "3 libraries";
 * a number that is not known keeps the plural ("unknown libraries") */
static void render_plural(struct strbuf *sb, const struct fact *f, const char *forms)
{
    const char *slash = strchr(forms, '/');
    int one = f && ((f->type == FACT_INT && f->i == 1) || (f->type == FACT_FLOAT && f->f == 1.0));
    char *t = f ? fact_to_text(f) : xstrdup("unknown");
    strbuf_addf(sb, "%s ", t);
    free(t);
    if (one)
        strbuf_addf(sb, "%.*s", (int)(slash - forms), forms);
    else
        strbuf_adds(sb, slash + 1);
}

/* is the user root, or without sudo? Unknown facts answer no: "sudo " is
 * the common case and what the fix texts said before */
static int fact_true(const struct env_ctx *c, const char *name, int want)
{
    const struct fact *f = fact_get(c->fs, name);
    return f && f->type == FACT_BOOL && f->b == want;
}

/* {sudo}: "sudo " for a user who needs it, "" for root. Where sudo is not
 * installed, prose says "(as root) "; a command gets nothing (a prefix
 * that is not a command would not parse) and *as_root is set so that the
 * fix's prose says to run it as root */
static void render_sudo(struct strbuf *sb, const struct env_ctx *c, int *as_root)
{
    if (fact_true(c, "user.is_root", 1))
        return;
    if (fact_true(c, "user.is_root", 0) && fact_true(c, "host.sudo_present", 0)) {
        if (as_root)
            *as_root = 1;
        else
            strbuf_adds(sb, "(as root) ");
    } else {
        strbuf_adds(sb, "sudo ");
    }
}

/* {name} -> fact text; {name:unit} -> converted; {name:one/many} -> counted
 * noun; {gpu} -> index; {sudo} -> the privilege prefix for a fix command.
 * as_root non-NULL renders a command: each value one shell word
 * (shell_word()), so that no fact's text is ever run */
struct render_refusal {
    char fact[FACT_NAME_MAX]; /* the placeholder whose value cannot be a word */
    const char *why;          /* shell_word_refusal() */
};

static char *render_template(const struct env_ctx *c, const char *tmpl, int *as_root,
                             struct render_refusal *refused)
{
    struct strbuf sb = STRBUF_INIT;
    for (const char *p = tmpl; *p;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        if (!close) {
            strbuf_addc(&sb, *p++);
            continue;
        }
        char *name = xstrndup(p + 1, (size_t)(close - p - 1));
        char buf[FACT_NAME_MAX] = "";
        struct strbuf v = STRBUF_INIT;
        if (strcmp(name, "gpu") == 0) {
            strbuf_addf(&v, "%d", c->gpu < 0 ? 0 : c->gpu);
        } else if (strcmp(name, "sudo") == 0) {
            render_sudo(&sb, c, as_root);
        } else {
            char *unit = strchr(name, ':');
            if (unit)
                *unit++ = '\0';
            const struct fact *f = resolve_fact(c, name, buf);
            if (unit && strchr(unit, '/')) {
                render_plural(&v, f, unit);
            } else if (!unit || render_unit(&v, f, unit)) {
                char *t = f ? fact_to_text(f) : xstrdup("unknown");
                strbuf_adds(&v, t);
                free(t);
            }
        }
        if (v.buf && as_root && shell_word(&sb, v.buf) < 0 && refused && !refused->why) {
            snprintf(refused->fact, sizeof(refused->fact), "%s", *buf ? buf : name);
            refused->why = shell_word_refusal(v.buf);
        } else if (v.buf && !as_root)
            strbuf_adds(&sb, v.buf);
        strbuf_release(&v);
        free(name);
        p = close + 1;
    }
    if (!sb.buf)
        strbuf_adds(&sb, "");
    return strbuf_detach(&sb);
}

static char *render_summary(const struct env_ctx *c, const char *tmpl)
{
    return render_template(c, tmpl, NULL, NULL);
}

/* the result's fix: prose as a summary is, commands as shell lines */
/* the first placeholder of a command whose fact is absent or unknown, or
 * NULL: such a command is never printed (a pasted "unknown -m pip ..."
 * would run something else); *buf receives the resolved name */
static const char *command_unknown(const struct env_ctx *c, const char *tmpl, char *buf)
{
    for (const char *p = strchr(tmpl, '{'); p; p = strchr(p + 1, '{')) {
        const char *close = strchr(p, '}');
        if (!close)
            break;
        char *name = xstrndup(p + 1, (size_t)(close - p - 1));
        char *unit = strchr(name, ':');
        if (unit)
            *unit = '\0';
        const struct fact *f = NULL;
        int special = !strcmp(name, "gpu") || !strcmp(name, "sudo");
        if (!special)
            f = resolve_fact(c, name, buf);
        if (!special && (!f || f->type == FACT_UNKNOWN)) {
            if (!f)
                snprintf(buf, FACT_NAME_MAX, "%s", name);
            free(name);
            return buf;
        }
        free(name);
    }
    return NULL;
}

/* the host's distribution family (host.os_family), or -1 */
static int host_family(const struct env_ctx *c)
{
    const struct fact *f = fact_get(c->fs, "host.os_family");
    return f && f->type == FACT_STR ? family_index(f->s) : -1;
}

/* run item i of tmpl for this host: the command itself, its family's
 * command, or NULL with *prose set to the text naming every family's (a
 * host of another family, or one its family has none for) */
static const char *family_command(const struct fix *tmpl, size_t i, int fam, const char **prose)
{
    *prose = NULL;
    if (!tmpl->by_family || !tmpl->by_family[i].n)
        return tmpl->run.v[i];
    if (fam >= 0 && tmpl->by_family[i].v[fam][0])
        return tmpl->by_family[i].v[fam];
    *prose = tmpl->run.v[i];
    return NULL;
}

static void render_fix(const struct env_ctx *c, const struct fix *tmpl, struct fix *out)
{
    int as_root = 0, fam = host_family(c);
    struct strlist missing = STRLIST_INIT, refused = STRLIST_INIT;
    struct strbuf other = STRBUF_INIT; /* commands of other distributions, as prose */
    for (size_t i = 0; i < tmpl->run.n; i++) {
        char buf[FACT_NAME_MAX];
        const char *prose, *cmd = family_command(tmpl, i, fam, &prose);
        if (!cmd) {
            char *p = render_summary(c, prose);
            strbuf_addf(&other, "%s%s", other.len ? "; then " : "", p);
            free(p);
            continue;
        }
        const char *unknown = command_unknown(c, cmd, buf);
        if (unknown && !strlist_has(&missing, unknown))
            strlist_add(&missing, unknown);
        if (unknown)
            continue;
        /* a fact whose text cannot be pasted as a word (a tab, a newline,
         * bytes that are not UTF-8) leaves its command out, as an unknown
         * one does, and the prose names it */
        struct render_refusal r = {{0}, NULL};
        char *line = render_template(c, cmd, &as_root, &r);
        if (r.why) {
            free(line);
            char *n = xasprintf("%s holds %s", r.fact, r.why);
            if (!strlist_has(&refused, n))
                strlist_add(&refused, n);
            free(n);
            continue;
        }
        strlist_add_owned(&out->run, line);
    }
    char *say = tmpl->say ? render_summary(c, tmpl->say) : NULL;
    if (other.len) { /* no command of this host's own: each family's, as prose */
        char *note = xasprintf("%s%s(the command for this distribution is not known here; %s)",
                               say ? say : "", say ? " " : "", other.buf);
        free(say);
        say = note;
    }
    strbuf_release(&other);
    if (missing.n) { /* say which command is left out, and why */
        struct strbuf nb = STRBUF_INIT;
        for (size_t i = 0; i < missing.n; i++)
            strbuf_addf(&nb, "%s%s", i ? ", " : "", missing.v[i]);
        char *names = strbuf_detach(&nb);
        char *note = xasprintf("%s%s(the command%s left out: %s %s unknown here)", say ? say : "",
                               say ? " " : "", tmpl->run.n == 1 ? " is" : "s are", names,
                               missing.n == 1 ? "is" : "are");
        free(names);
        free(say);
        say = note;
    }
    strlist_release(&missing);
    if (refused.n) {
        struct strbuf nb = STRBUF_INIT;
        for (size_t i = 0; i < refused.n; i++)
            strbuf_addf(&nb, "%s%s", i ? "; " : "", refused.v[i]);
        char *note = xasprintf("%s%s(left out: %s, which a shell command cannot carry safely)",
                               say ? say : "", say ? " " : "", nb.buf);
        strbuf_release(&nb);
        free(say);
        say = note;
    }
    strlist_release(&refused);
    if (as_root) { /* sudo is not installed: the commands need a root shell */
        out->say = say ? xasprintf("%s (as root: sudo is not installed)", say)
                       : xstrdup("as root (sudo is not installed):");
        free(say);
    } else {
        out->say = say;
    }
    out->then = tmpl->then ? render_summary(c, tmpl->then) : NULL;
}

void checks_fix_render(const struct checkset *cs, const struct factset *fs, int gpu,
                       const struct fix *tmpl, struct fix *out)
{
    const struct env_ctx c = {cs, fs, gpu};
    render_fix(&c, tmpl, out);
}

static char *unknown_reason(const struct env_ctx *c, const char *name)
{
    char buf[FACT_NAME_MAX];
    const struct fact *f = resolve_fact(c, name, buf);
    if (f && f->type == FACT_UNKNOWN)
        return xasprintf("cannot tell: %s is unknown (%s)", buf, f->reason ? f->reason : "?");
    if (!f && fact_get(c->fs, name) == NULL && strchr(name, '['))
        return xasprintf("cannot tell: no entry %s in checks.yaml data", name);
    if (!f)
        return xasprintf("cannot tell: no probe produced %s", name);
    return xasprintf("cannot tell: %s", name);
}

struct verdict {
    enum status st;
    char *summary;
    const struct fix *fix;  /* template, rendered into the result */
    const struct rule *by;  /* the fail or warn rule that fired */
    int gpu;                /* the GPU the verdict is about, for rendering the fix */
    char rule[RULE_ID_MAX]; /* which rule decided (struct result) */
};

static void set_rule(struct verdict *v, const char *kind, size_t i, const char *mark)
{
    snprintf(v->rule, sizeof(v->rule), "%s[%zu]%s", kind, i, mark);
}

/* A rule with a type error is a broken configuration: the check reports
 * `error` naming the rule, never pass and never "cannot tell". Load-time
 * checking (checks_yaml.c) catches what the declared fact types allow; this
 * catches the rest. Releases *r and returns 1 when it decided. */
static int rule_error(const struct rule *rule, struct val *r, struct verdict *v, const char *kind,
                      size_t i)
{
    if (r->t == VAL_BOOL || r->t == VAL_UNKNOWN)
        return 0;
    set_rule(v, kind, i, "");
    v->st = ST_ERROR;
    v->fix = NULL;
    if (r->t == VAL_ERROR)
        v->summary = xasprintf("configuration error in rule \"%s\": %s", rule->when_src, r->s);
    else
        v->summary = xasprintf("configuration error in rule \"%s\": not a yes/no question (it "
                               "gives %s)",
                               rule->when_src, val_type_name(r->t));
    val_release(r);
    return 1;
}

static void eval_one(const struct check *ck, const struct env_ctx *c, struct verdict *v)
{
    struct expr_env env = {env_fact, env_table, (void *)c};
    v->fix = NULL;
    for (size_t i = 0; i < ck->nskip; i++) {
        struct val r = expr_eval(ck->skip[i].when, &env);
        int hit = r.t == VAL_BOOL && r.b;
        if (rule_error(&ck->skip[i], &r, v, "skip", i))
            return;
        val_release(&r);
        if (hit) {
            set_rule(v, "skip", i, "");
            v->st = ST_SKIP;
            v->summary = render_summary(c, ck->skip[i].summary);
            return;
        }
    }
    const struct rule *groups[2] = {ck->fail, ck->warn};
    size_t ns[2] = {ck->nfail, ck->nwarn};
    enum status sts[2] = {ST_FAIL, ST_WARN};
    const char *kinds[2] = {"fail", "warn"};
    for (int g = 0; g < 2; g++) {
        char *unknown = NULL;
        size_t first_unknown = 0;
        for (size_t i = 0; i < ns[g]; i++) {
            struct val r = expr_eval(groups[g][i].when, &env);
            if (rule_error(&groups[g][i], &r, v, kinds[g], i)) {
                free(unknown);
                return;
            }
            if (r.t == VAL_BOOL && r.b) {
                val_release(&r);
                free(unknown);
                set_rule(v, kinds[g], i, "");
                v->st = sts[g];
                v->summary = render_summary(c, groups[g][i].summary);
                v->fix = fix_present(&groups[g][i].fix) ? &groups[g][i].fix : &ck->fix;
                v->by = &groups[g][i];
                return;
            }
            if (r.t == VAL_UNKNOWN && !unknown) {
                unknown = unknown_reason(c, r.s);
                first_unknown = i;
            }
            val_release(&r);
        }
        if (unknown) {
            /* a possible failure we cannot rule out is not a pass */
            set_rule(v, kinds[g], first_unknown, "?");
            v->st = ST_SKIP;
            v->summary = unknown;
            return;
        }
    }
    snprintf(v->rule, sizeof(v->rule), "pass");
    v->st = ST_PASS;
    v->summary = render_summary(c, ck->pass.summary);
}

/* severity order for "worst wins" across GPUs */
static int severity(enum status st)
{
    static const int sev[ST__COUNT] = {[ST_PASS] = 0, [ST_SKIP] = 1,  [ST_WARN] = 2,
                                       [ST_FAIL] = 5, [ST_ERROR] = 4, [ST_TIMEOUT] = 3};
    return sev[st];
}

static void add_evidence(struct result *r, const struct env_ctx *c, const char *name)
{
    char buf[FACT_NAME_MAX];
    const struct fact *f = resolve_fact(c, name, buf);
    for (size_t i = 0; i < r->nev; i++)
        if (strcmp(r->ev[i].name, buf) == 0)
            return;
    r->ev = xrealloc(r->ev, (r->nev + 1) * sizeof(*r->ev));
    r->ev[r->nev].name = xstrdup(buf);
    r->ev[r->nev].fact = f;
    r->nev++;
}

static void collect_evidence(struct result *r, const struct check *ck, const struct env_ctx *c)
{
    struct strlist names = STRLIST_INIT;
    for (size_t i = 0; i < ck->reads.n; i++)
        strlist_add(&names, ck->reads.v[i]);
    for (size_t i = 0; i < ck->nfail; i++)
        expr_idents(ck->fail[i].when, &names);
    for (size_t i = 0; i < ck->nwarn; i++)
        expr_idents(ck->warn[i].when, &names);
    for (size_t i = 0; i < names.n; i++)
        add_evidence(r, c, names.v[i]);
    strlist_release(&names);
}

int check_selected(const struct check *ck, const struct strlist *only)
{
    for (size_t i = 0; i < only->n; i++) {
        const char *o = only->v[i];
        if (strcmp(o, ck->id) == 0 || (str_ends(o, ".") && str_starts(ck->id, o)))
            return 1;
    }
    return 0;
}

static int selected(const struct check *ck, const struct run_filter *flt)
{
    if (flt->only)
        return check_selected(ck, flt->only);
    return ck->level <= flt->level;
}

/* a probe that crashed or hung hands its status to the checks that name it */
/* the outcome of the check's probe: probe.<p>.*, or with gpu >= 0 the outcome
 * of its child for that GPU, gpu.<gpu>.probe.<p>.* (probes/probe_each_gpu.c) */
static int probe_status(const struct check *ck, const struct factset *fs, struct verdict *v,
                        int gpu)
{
    if (!ck->probe)
        return 0;
    char name[FACT_NAME_MAX], pre[32] = "";
    if (gpu >= 0)
        snprintf(pre, sizeof(pre), "gpu.%d.", gpu);
    snprintf(name, sizeof(name), "%sprobe.%s.status", pre, ck->probe);
    const struct fact *st = fact_get(fs, name);
    if (!st || st->type != FACT_STR || strcmp(st->s, "ok") == 0)
        return 0;
    snprintf(name, sizeof(name), "%sprobe.%s.message", pre, ck->probe);
    const struct fact *msg = fact_get(fs, name);
    snprintf(v->rule, sizeof(v->rule), "probe");
    v->st = strcmp(st->s, "timeout") == 0 ? ST_TIMEOUT : ST_ERROR;
    v->summary =
        xasprintf("probe %s %s: %s", ck->probe, v->st == ST_TIMEOUT ? "timed out" : "failed",
                  msg && msg->type == FACT_STR ? msg->s : "no message");
    v->fix = NULL;
    return 1;
}

/* a per-GPU check of a probe that the runner ran per GPU (probe.<p>.per_gpu)
 * is judged on the GPUs it measured, gpu.measured, not on every sysfs GPU:
 * the others were not measured. *out (malloc'd) is then non-NULL, with the
 * slots; returns how many (0: the probe found no device, judge once). */
static int measured_gpus(const struct check *ck, const struct factset *fs, int **out)
{
    *out = NULL;
    if (!ck->per_gpu || !ck->probe)
        return 0;
    char name[FACT_NAME_MAX];
    snprintf(name, sizeof(name), "probe.%s.per_gpu", ck->probe);
    const struct fact *each = fact_get(fs, name);
    if (!each || each->type != FACT_BOOL || !each->b)
        return 0;
    const struct fact *m = fact_get(fs, "gpu.measured");
    size_t len = m && m->type == FACT_LIST ? m->list.n : 0;
    int *v = xcalloc(len + 1, sizeof(int)), n = 0;
    for (size_t i = 0; i < len; i++) {
        int64_t g;
        if (str_parse_i64(m->list.v[i], &g) || g < 0 || g > 100000)
            continue;
        snprintf(name, sizeof(name), "gpu.%d.probe.%s.status", (int)g, ck->probe);
        if (fact_get(fs, name))
            v[n++] = (int)g;
    }
    *out = v; /* n == 0: the probe ran once without a device: judged once */
    return n;
}

/* keep one GPU's verdict in the result: its own summary (copied: the
 * worst one becomes the check's), rule, fix and PCI address */
static void gpu_verdict_set(struct gpu_verdict *gv, const struct verdict *vg,
                            const struct env_ctx *cg)
{
    char name[FACT_NAME_MAX];
    gv->gpu = vg->gpu;
    gv->st = vg->st;
    memcpy(gv->rule, vg->rule, sizeof(gv->rule));
    gv->summary = xstrdup(vg->summary ? vg->summary : "");
    if ((vg->st == ST_FAIL || vg->st == ST_WARN) && vg->fix) {
        struct fix parts;
        memset(&parts, 0, sizeof(parts));
        render_fix(cg, vg->fix, &parts);
        gv->fix = fix_joined(&parts);
        fix_release(&parts);
    }
    fact_gpu_name(name, vg->gpu, "pci");
    const struct fact *pci = fact_get(cg->fs, name);
    gv->pci = pci && pci->type == FACT_STR ? pci->s : NULL;
}

int checks_run(const struct checkset *cs, const struct factset *fs, const struct run_filter *flt,
               struct results *out)
{
    memset(out, 0, sizeof(*out));
    if (flt->only) {
        for (size_t i = 0; i < flt->only->n; i++) {
            const char *o = flt->only->v[i];
            int found = 0;
            for (size_t j = 0; j < cs->n && !found; j++)
                found =
                    strcmp(o, cs->v[j].id) == 0 || (str_ends(o, ".") && str_starts(cs->v[j].id, o));
            if (!found)
                return checks_say_unknown(cs, o);
        }
    }
    out->v = xcalloc(cs->n, sizeof(*out->v));
    for (size_t i = 0; i < cs->n; i++) {
        const struct check *ck = &cs->v[i];
        if (!selected(ck, flt))
            continue;
        struct result *r = &out->v[out->n++];
        r->check = ck;
        r->gpu = -1;
        struct verdict v = {ST_PASS, NULL, NULL, NULL, -1, "pass"};
        struct env_ctx c = {cs, fs, -1};
        const struct fact *count = fact_get(fs, "gpu.count");
        int *slots = NULL, nslots = measured_gpus(ck, fs, &slots);
        int ngpu = slots                                             ? nslots
                   : ck->per_gpu && count && count->type == FACT_INT ? (int)count->i
                                                                     : 0;
        if (!nslots && probe_status(ck, fs, &v, -1)) {
            collect_evidence(r, ck, &c);
        } else if (ngpu <= 0) {
            eval_one(ck, &c, &v);
            collect_evidence(r, ck, &c);
        } else {
            int worst_gpu = 0;
            size_t worst_k = 0;
            /* slots are GPU indexes (at most 100000, measured_gpus) */
            r->ngst = (size_t)ngpu;
            for (int k = 0; slots && k < ngpu; k++)
                if ((size_t)slots[k] + 1 > r->ngst)
                    r->ngst = (size_t)slots[k] + 1;
            r->gst = xcalloc(r->ngst, sizeof(*r->gst));
            for (size_t k = 0; k < r->ngst; k++)
                r->gst[k] = ST__COUNT;
            r->gpus = xcalloc((size_t)ngpu, sizeof(*r->gpus));
            r->ngpus = (size_t)ngpu;
            for (int k = 0; k < ngpu; k++) {
                int g = slots ? slots[k] : k;
                struct env_ctx cg = {cs, fs, g};
                struct verdict vg = {ST_PASS, NULL, NULL, NULL, -1, "pass"};
                /* one GPU's probe child hung or died: that GPU's verdict */
                if (!slots || !probe_status(ck, fs, &vg, g))
                    eval_one(ck, &cg, &vg);
                vg.gpu = g;
                r->gst[g] = vg.st;
                collect_evidence(r, ck, &cg);
                gpu_verdict_set(&r->gpus[k], &vg, &cg);
                if (k == 0 || severity(vg.st) > severity(v.st)) {
                    free(v.summary);
                    v = vg;
                    worst_gpu = g;
                    worst_k = (size_t)k;
                } else {
                    free(vg.summary);
                }
            }
            if (ngpu > 1) {
                char *s = gpu_results_summary(r->gpus, r->ngpus, &r->gpus[worst_k]);
                free(v.summary);
                v.summary = s;
            }
            r->gpu = worst_gpu;
        }
        free(slots);
        r->st = v.st;
        r->summary = v.summary;
        memcpy(r->rule, v.rule, sizeof(r->rule));
        r->by = v.by;
        if ((v.st == ST_FAIL || v.st == ST_WARN) && v.fix) {
            struct env_ctx cf = {cs, fs, v.gpu};
            render_fix(&cf, v.fix, &r->fix_parts);
            r->fix = fix_joined(&r->fix_parts);
        }
        out->counts[r->st]++;
    }
    results_link_causes(out);
    return 0;
}

void results_release(struct results *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].summary);
        free(r->v[i].fix);
        fix_release(&r->v[i].fix_parts);
        for (size_t j = 0; j < r->v[i].nev; j++)
            free(r->v[i].ev[j].name);
        free(r->v[i].ev);
        free(r->v[i].gst);
        for (size_t j = 0; j < r->v[i].ngpus; j++) {
            free(r->v[i].gpus[j].summary);
            free(r->v[i].gpus[j].fix);
        }
        free(r->v[i].gpus);
    }
    free(r->v);
    memset(r, 0, sizeof(*r));
}

int results_exit_code(const struct results *r, int strict)
{
    /* a probe that crashed or hung is never a silent pass */
    if (r->counts[ST_FAIL] || r->counts[ST_ERROR] || r->counts[ST_TIMEOUT])
        return 1;
    if (strict && r->counts[ST_WARN])
        return 1;
    return 0;
}
