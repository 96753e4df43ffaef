/* opts.c - the one option-parser pattern (see opts.h). getopt_long reports
 * its errors through optopt, which for a long option holds the option's
 * `val` (an enum past 255 here): printing it as a character gave
 * "unknown option '-^G'". The word as typed is argv[optind - 1] in every
 * error case, with or without argument permutation. */
#include "opts.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"
#include "util.h"

/* the long option whose val is v and whose name begins with the typed
 * prefix (so "--out" finds "output" even when two share a val) */
static const struct option *by_val(const struct option *lo, int v, const char *typed, size_t n)
{
    const struct option *any = NULL;
    for (; lo && lo->name; lo++) {
        if (lo->val != v)
            continue;
        if (!any)
            any = lo;
        if (typed && strncmp(lo->name, typed, n) == 0)
            return lo;
    }
    return any;
}

static int is_number(const char *s)
{
    char *end;
    strtod(s, &end);
    return end != s && *end == '\0';
}

/* "--name" of a typed long option word "--na=x", without the value */
static char *long_word(const char *word)
{
    return xstrndup(word, strcspn(word, "="));
}

static int say(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(const char *cmd, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    error("%s%s%s", cmd ? cmd : "", cmd ? ": " : "", sb.buf);
    strbuf_release(&sb);
    return OPT_ERROR;
}

/* getopt_long returned '?' for word: an unknown name, an ambiguous prefix,
 * or a value given with '=' to an option that takes none */
static int refused(const char *cmd, const char *word, int short_opt, const struct option *lo)
{
    if (!str_starts(word, "--")) {
        char name[3] = {'-', short_opt > ' ' && short_opt < 127 ? (char)short_opt : '?', '\0'};
        return say(cmd, "unknown option '%s'", name);
    }
    char *typed = long_word(word);
    size_t n = strlen(typed + 2);
    struct strbuf cands = STRBUF_INIT;
    const struct option *exact = NULL, *first = NULL;
    int ncand = 0;
    for (const struct option *o = lo; o && o->name; o++) {
        if (strncmp(o->name, typed + 2, n) != 0)
            continue;
        if (strlen(o->name) == n)
            exact = o;
        first = first ? first : o;
        strbuf_addf(&cands, "%s--%s", ncand++ ? ", " : "", o->name);
    }
    const struct option *hit = exact ? exact : ncand == 1 ? first : NULL;
    int rc;
    if (hit && hit->has_arg == no_argument && strchr(word, '=')) {
        char *name = xasprintf("--%s", hit->name);
        rc = say(cmd, "option '%s' takes no value", name);
        free(name);
    } else if (ncand > 1 && !exact) {
        rc = say(cmd, "option '%s' is ambiguous (%s)", typed, cands.buf);
    } else {
        char hint[64];
        struct suggest sg;
        suggest_init(&sg, typed + 2, hint, sizeof(hint));
        for (const struct option *o = lo; o && o->name; o++)
            suggest_consider(&sg, o->name);
        if (suggest_best(&sg))
            rc = say(cmd, "unknown option '%s' (did you mean '--%s'?)", typed, hint);
        else
            rc = say(cmd, "unknown option '%s'", typed);
    }
    strbuf_release(&cands);
    free(typed);
    return rc;
}

/* the name of the option whose value is missing: the long name the typed
 * word stands for (`--js` is `--json`), or the short option */
static char *option_name(const char *word, int v, const struct option *lo)
{
    if (str_starts(word, "--")) {
        char *typed = long_word(word);
        const struct option *o = by_val(lo, v, typed + 2, strlen(typed + 2));
        if (o) {
            free(typed);
            return xasprintf("--%s", o->name);
        }
        return typed;
    }
    return xasprintf("-%c", v > ' ' && v < 127 ? v : '?');
}

int opt_next(int argc, char **argv, const char *shortopts, const struct option *lo, const char *cmd)
{
    /* getopt's string with ':' after any '+' so that a missing value is
     * told apart (':') from an unknown option ('?') */
    char os[64];
    int plus = shortopts[0] == '+';
    snprintf(os, sizeof(os), "%s:%s", plus ? "+" : "", shortopts + plus);
    opterr = 0;
    optopt = 0;
    int li = -1;
    int c = getopt_long(argc, argv, os, lo, &li);
    if (c == -1)
        return c;
    const char *word = optind - 1 < argc ? argv[optind - 1] : "";
    if (c == ':') {
        char *name = option_name(word, optopt, lo);
        int rc = say(cmd, "option '%s' requires a value", name);
        free(name);
        return rc;
    }
    if (c == '?')
        return refused(cmd, word, optopt, lo);
    /* a value taken from the next word must not be an option */
    if (optarg && optarg == argv[optind - 1] && optarg[0] == '-' && optarg[1] &&
        !is_number(optarg)) {
        const struct option *o = li >= 0 ? &lo[li] : by_val(lo, c, NULL, 0);
        char *name = li >= 0 ? xasprintf("--%s", o->name) : xasprintf("-%c", c);
        char *hint = o ? xasprintf("--%s=%s", o->name, optarg) : xasprintf("-%c%s", c, optarg);
        say(cmd,
            "option '%s' requires a value, not the option '%s' (write %s if that is the value)",
            name, optarg, hint);
        free(hint);
        free(name);
        return OPT_ERROR;
    }
    return c;
}
