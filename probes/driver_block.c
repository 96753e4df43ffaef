/* driver_block.c - parsers for what keeps amdgpu from loading (see
 * driver_block.h). Written from the documented syntax: the kernel's
 * admin-guide/kernel-parameters.rst (dashes and underscores are the same in
 * parameter names, "--" ends the kernel's part, double quotes allow spaces)
 * and modprobe.d(5) (one command per line, # comments, a backslash at the end
 * of a line continues it, module names with - and _ are the same). */
#include "driver_block.h"
#include "../src/core/strset.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MODULE "amdgpu"

/* "amd-gpu" and "amd_gpu" name the same module */
static int same_module(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char ca = *a == '-' ? '_' : *a, cb = *b == '-' ? '_' : *b;
        if (ca != cb)
            return 0;
    }
    return *a == *b;
}

/* is `name` one of the comma-separated items of `list` */
static int in_comma_list(const char *list, const char *name)
{
    struct strlist items = STRLIST_INIT;
    int found = 0;
    strlist_split(&items, list, ",");
    for (size_t i = 0; i < items.n && !found; i++)
        found = same_module(str_trim(items.v[i]), name);
    strlist_release(&items);
    return found;
}

/* ---- kernel command line --------------------------------------------------- */

/* split a command line into words; double quotes group and are dropped */
static void cmdline_words(const char *s, struct strlist *out)
{
    struct strbuf w = STRBUF_INIT;
    int quoted = 0, have = 0;
    for (;; s++) {
        if (*s == '\0' || (!quoted && isspace((unsigned char)*s))) {
            if (have)
                strlist_add(out, w.buf ? w.buf : "");
            strbuf_release(&w);
            have = 0;
            if (*s == '\0')
                break;
            continue;
        }
        if (*s == '"')
            quoted = !quoted;
        else
            strbuf_addc(&w, *s);
        have = 1;
    }
}

/* the parameter name with dashes as underscores, up to '=' */
static char *param_key(const char *word, const char **value)
{
    const char *eq = strchr(word, '=');
    size_t n = eq ? (size_t)(eq - word) : strlen(word);
    char *k = xstrndup(word, n);
    for (char *p = k; *p; p++)
        if (*p == '-')
            *p = '_';
    *value = eq ? eq + 1 : NULL;
    return k;
}

void db_cmdline_blocks(const char *cmdline, struct strlist *out)
{
    struct strlist words = STRLIST_INIT;
    cmdline_words(cmdline, &words);
    int modeset_forced = 0; /* amdgpu.modeset=1: older kernels load despite nomodeset */
    size_t end = words.n;
    for (size_t i = 0; i < words.n; i++) {
        if (strcmp(words.v[i], "--") == 0) {
            end = i;
            break;
        }
        const char *v;
        char *k = param_key(words.v[i], &v);
        if (strcmp(k, MODULE ".modeset") == 0 && v && strcmp(v, "1") == 0)
            modeset_forced = 1;
        free(k);
    }
    struct strset seen = STRSET_INIT; /* what out holds already */
    strset_add_list(&seen, out);
    for (size_t i = 0; i < end; i++) {
        const char *v;
        char *k = param_key(words.v[i], &v);
        int block = 0;
        if (strcmp(k, "nomodeset") == 0)
            block = !modeset_forced;
        else if (strcmp(k, MODULE ".modeset") == 0)
            block = v && strcmp(v, "0") == 0;
        else if (strcmp(k, "modprobe.blacklist") == 0 || strcmp(k, "module_blacklist") == 0 ||
                 strcmp(k, "rd.driver.blacklist") == 0)
            block = v && in_comma_list(v, MODULE);
        else if (strcmp(k, "initcall_blacklist") == 0)
            block = v && in_comma_list(v, MODULE "_init");
        if (block)
            strlist_add_unique(out, &seen, words.v[i]);
        free(k);
    }
    strset_release(&seen);
    strlist_release(&words);
}

/* ---- modprobe.d -------------------------------------------------------------- */

/* does an install command load the module after all (the usual
 * "install amdgpu /sbin/modprobe --ignore-install amdgpu ..." wrapper) */
static int install_loads(const struct strlist *w)
{
    int loader = 0, names = 0;
    for (size_t i = 2; i < w->n; i++) {
        if (strstr(w->v[i], "modprobe") || strstr(w->v[i], "insmod"))
            loader = 1;
        else if (loader && same_module(w->v[i], MODULE))
            names = 1;
    }
    return loader && names;
}

static int options_stop(const struct strlist *w)
{
    for (size_t i = 2; i < w->n; i++) {
        const char *v;
        char *k = param_key(w->v[i], &v);
        int stop = strcmp(k, "modeset") == 0 && v && strcmp(v, "0") == 0;
        free(k);
        if (stop)
            return 1;
    }
    return 0;
}

static void modprobe_line(const char *line, unsigned lineno, struct strlist *out)
{
    struct strlist w = STRLIST_INIT;
    strlist_split(&w, line, " \t");
    int block = 0;
    if (w.n >= 2 && w.v[0][0] != '#' && same_module(w.v[1], MODULE)) {
        if (strcmp(w.v[0], "blacklist") == 0)
            block = 1;
        else if (strcmp(w.v[0], "install") == 0)
            block = w.n >= 3 && !install_loads(&w);
        else if (strcmp(w.v[0], "options") == 0)
            block = options_stop(&w);
    }
    if (block) {
        struct strbuf sb = STRBUF_INIT;
        strbuf_addf(&sb, "%u:", lineno);
        for (size_t i = 0; i < w.n; i++)
            strbuf_addf(&sb, " %s", w.v[i]);
        strlist_add_owned(out, strbuf_detach(&sb));
    }
    strlist_release(&w);
}

void db_modprobe_blocks(const char *text, struct strlist *out)
{
    struct strbuf logical = STRBUF_INIT;
    unsigned lineno = 0, first = 0;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        lineno++;
        if (!logical.len)
            first = lineno;
        int cont = n > 0 && p[n - 1] == '\\';
        strbuf_add(&logical, p, cont ? n - 1 : n);
        if (!cont) {
            strbuf_add(&logical, "", 0);
            modprobe_line(logical.buf, first, out);
            strbuf_release(&logical);
        } else {
            strbuf_addc(&logical, ' ');
        }
        p = eol ? eol + 1 : p + n;
    }
    if (logical.len) /* a continuation on the last line */
        modprobe_line(logical.buf, first, out);
    strbuf_release(&logical);
}

/* ---- kernel log -------------------------------------------------------------- */

void db_firmware_failed(const char *log, struct strlist *out)
{
    static const char needle[] = "Direct firmware load for ";
    struct strset seen = STRSET_INIT; /* a log may name 100k files: hashed */
    strset_add_list(&seen, out);
    for (const char *p = strstr(log, needle); p; p = strstr(p, needle)) {
        p += sizeof(needle) - 1;
        const char *e = p;
        while (*e && !isspace((unsigned char)*e) && *e != '\n')
            e++;
        if (str_starts(p, MODULE "/") && e > p + sizeof(MODULE) && str_starts(e, " failed")) {
            strlist_add_unique_owned(out, &seen, xstrndup(p, (size_t)(e - p)));
        }
    }
    strset_release(&seen);
}
