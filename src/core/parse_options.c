/* parse_options.c - the one parser of the commands' option tables (see
 * parse_options.h). getopt_long through opt_next (src/core/opts.c) does the
 * syntax: this file builds getopt's tables from a command's rows, applies
 * each value to its field and words the value errors, and prints the usage
 * and the completion's data from the same rows. */
#include "parse_options.h"

#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "util.h"
#include "version.h"

const char *const opt_dtype_values[] = {"bf16", "fp16", "fp32", NULL};
const char *const opt_backend_values[] = {"auto", "cpu", "cuda", "hip", NULL};

static size_t spec_count(const struct optspec *o)
{
    size_t n = 0;
    while (o[n].name)
        n++;
    return n;
}

/* "a, b or c" */
static void words_or(struct strbuf *sb, const char *const *v)
{
    for (size_t i = 0; v[i]; i++)
        strbuf_addf(sb, "%s%s", i == 0 ? "" : v[i + 1] ? ", " : " or ", v[i]);
}

static int enum_has(const char *const *v, const char *s)
{
    for (; *v; v++)
        if (strcmp(*v, s) == 0)
            return 1;
    return 0;
}

int opt_enum_check(const struct optspec *o, const char *value)
{
    if (enum_has(o->values, value))
        return 0;
    struct strbuf sb = STRBUF_INIT;
    words_or(&sb, o->values);
    error("--%s must be %s, not '%s'", o->name, sb.buf, value);
    strbuf_release(&sb);
    return -1;
}

static int set_int(void *field, size_t size, int64_t v)
{
    if (size == sizeof(int))
        *(int *)field = (int)v;
    else if (size == sizeof(long))
        *(long *)field = (long)v;
    else
        return error("option table: an integer field of %zu bytes", size);
    return 0;
}

static int apply(const struct optspec *o, void *base, const char *value)
{
    void *field = (char *)base + o->off;
    switch (o->kind) {
    case OPTK_FLAG:
        *(int *)field = 1;
        return 0;
    case OPTK_STRING:
        *(const char **)field = value;
        return 0;
    case OPTK_INT: {
        int64_t v;
        if (str_parse_i64(value, &v) || v < o->min || v > o->max)
            return error("--%s must be an integer in [%ld, %ld]%s%s, not '%s'", o->name, o->min,
                         o->max, o->unit ? " " : "", o->unit ? o->unit : "", value);
        return set_int(field, o->size, v);
    }
    case OPTK_ENUM:
        if (value && opt_enum_check(o, value))
            return -1;
        if (o->cb)
            return o->cb(base, o, value);
        *(const char **)field = value;
        return 0;
    case OPTK_CALLBACK:
        return o->cb(base, o, value);
    }
    return error("option table: --%s has no kind", o->name);
}

int parse_options(int argc, char **argv, const struct cmd_spec *cs, void *base)
{
    size_t n = spec_count(cs->opts);
    struct option *lo = xcalloc(n + 1, sizeof(*lo));
    char *shorts = xcalloc(3 * n + 1, 1);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        const struct optspec *o = &cs->opts[i];
        int has = o->arg == OPTA_REQUIRED   ? required_argument
                  : o->arg == OPTA_OPTIONAL ? optional_argument
                                            : no_argument;
        /* a short option's letter as the long one's val: opt_next names
         * -o's missing value by the long option of the same val */
        lo[i] = (struct option){o->name, has, NULL, o->short_name ? o->short_name : 256 + (int)i};
        if (o->short_name) {
            shorts[ns++] = o->short_name;
            for (int k = 0; k < has; k++)
                shorts[ns++] = ':';
        }
    }
    int rc = PARSE_ERROR, c;
    optind = 0; /* a fresh scan (glibc): another argv than the last one's */
    while ((c = opt_next(argc, argv, shorts, lo, cs->prefix)) != -1) {
        const struct optspec *o = NULL;
        if (c >= 256 && (size_t)(c - 256) < n)
            o = &cs->opts[c - 256];
        for (size_t i = 0; !o && c != OPT_ERROR && i < n; i++)
            if (cs->opts[i].short_name == c)
                o = &cs->opts[i];
        if (!o)
            goto out;
        if (o->kind == OPTK_HELP || o->kind == OPTK_VERSION) {
            if (o->kind == OPTK_HELP)
                parse_options_usage(stdout, cs);
            else
                version_print(stdout);
            rc = PARSE_DONE;
            goto out;
        }
        if (apply(o, base, optarg))
            goto out;
    }
    rc = optind;
out:
    if (rc == PARSE_ERROR)
        parse_options_usage_short(stderr, cs);
    free(lo);
    free(shorts);
    return rc;
}

/* "--name ARG" as the usage shows it */
static void opt_word(struct strbuf *sb, const struct optspec *o)
{
    if (o->short_name)
        strbuf_addf(sb, "-%c, ", o->short_name);
    strbuf_addf(sb, "--%s", o->name);
    if (o->arg == OPTA_NONE)
        return;
    strbuf_addf(sb, "%s", o->arg == OPTA_OPTIONAL ? "[=" : " ");
    if (o->argname) {
        strbuf_addf(sb, "%s", o->argname);
    } else if (o->values) {
        for (size_t i = 0; o->values[i]; i++)
            strbuf_addf(sb, "%s%s", i ? "|" : "", o->values[i]);
    } else {
        strbuf_addf(sb, "N");
    }
    if (o->arg == OPTA_OPTIONAL)
        strbuf_addf(sb, "]");
}

/* "usage: rocm-vla-doctor [check] [options]", "usage: ... diff BASELINE.json ..." */
static void usage_line(FILE *out, const struct cmd_spec *cs)
{
    fprintf(out, "usage: rocm-vla-doctor %s%s%s%s%s [options]\n", cs->prefix ? "" : "[", cs->name,
            cs->prefix ? "" : "]", cs->args ? " " : "", cs->args ? cs->args : "");
}

void parse_options_usage_short(FILE *out, const struct cmd_spec *cs)
{
    usage_line(out, cs);
    fprintf(out, "'rocm-vla-doctor %s --help' lists the options.\n", cs->name);
}

void parse_options_usage(FILE *out, const struct cmd_spec *cs)
{
    usage_line(out, cs);
    if (cs->summary)
        fprintf(out, "%s\n", cs->summary);
    fputs("options:\n", out);
    for (const struct optspec *o = cs->opts; o->name; o++) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "%s", o->short_name ? "" : "    "); /* the long names in one column */
        opt_word(&sb, o);
        int pad = 32 - (int)strlen(sb.buf);
        fprintf(out, "  %s%*s%s\n", sb.buf, pad > 1 ? pad : 1, "", o->help ? o->help : "");
        strbuf_release(&sb);
    }
    if (cs->more_help)
        cs->more_help(out);
}

static const char *compl_word(const struct optspec *o)
{
    static const char *const w[] = {"any", "file", "dir", "sysroot", "preset", "command", "ids"};
    return o->compl < ARRAY_SIZE(w) ? w[o->compl ] : "any";
}

void parse_options_complete_table(FILE *out, const struct cmd_spec *const *cmds, size_t n)
{
    fputs("_rocm_vla_doctor_commands=\"", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? " " : "", cmds[i]->name);
    fputs("\"\n\n# the options each command takes (check is also the command when none is "
          "given)\n_rocm_vla_doctor_opts() {\n    case $1 in\n",
          out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "    %s) echo \"", cmds[i]->name);
        for (const struct optspec *o = cmds[i]->opts; o->name; o++) {
            fprintf(out, "%s--%s", o == cmds[i]->opts ? "" : " ", o->name);
            if (o->short_name)
                fprintf(out, " -%c", o->short_name);
        }
        fputs("\" ;;\n", out);
    }
    fputs("    esac\n}\n\n# what the value of option $2 of command $1 is: enum WORDS..., file, "
          "dir,\n# sysroot, preset, command, ids, any (nothing to offer); none: no value\n"
          "_rocm_vla_doctor_arg() {\n    case \"$1 $2\" in\n",
          out);
    for (size_t i = 0; i < n; i++)
        for (const struct optspec *o = cmds[i]->opts; o->name; o++) {
            if (o->arg != OPTA_REQUIRED)
                continue;
            struct strbuf kind = STRBUF_INIT;
            if (o->values) {
                strbuf_addf(&kind, "enum");
                for (size_t k = 0; o->values[k]; k++)
                    strbuf_addf(&kind, " %s", o->values[k]);
            } else {
                strbuf_addf(&kind, "%s", compl_word(o));
            }
            fprintf(out, "    \"%s --%s\"", cmds[i]->name, o->name);
            if (o->short_name)
                fprintf(out, " | \"%s -%c\"", cmds[i]->name, o->short_name);
            fprintf(out, ") echo %s ;;\n", kind.buf);
            strbuf_release(&kind);
        }
    fputs("    *) echo none ;;\n    esac\n}\n", out);
}
