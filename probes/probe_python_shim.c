/* probe_python_shim.c - a pyenv shim resolved without running it.
 *
 * A pyenv shim (~/.pyenv/shims/python3) is a bash script that starts pyenv,
 * which picks a version and execs it: 0.5-1 s per call against 0.04 s for
 * the interpreter itself, enough to push the quick level past its 0.3 s
 * (issue 31). pyenv's own order (pyenv-version-name, pyenv-version-file):
 * PYENV_VERSION, else the first .python-version from PYENV_DIR (default the
 * working directory) up to /, else $PYENV_ROOT/version, else "system" (the
 * next python3 on PATH after the shims). Only the first of several versions
 * ("3.11.9:3.10.4") is taken: the first one that has the program is what
 * pyenv runs, and the probe asks only for python3. A version that is not
 * installed leaves the shim to pyenv, which says why it fails. Live only
 * (the producer of the "python" query): the variables are this process's. */
#include "probe_python_shim.h"

#include "../src/core/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int shim_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* the first line of path that is not blank or a comment, trimmed (pyenv
 * reads version files the same way); NULL when there is none */
static char *shim_first_word(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char line[256], *out = NULL;
    while (!out && fgets(line, sizeof(line), f)) {
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        size_t n = strcspn(s, " \t\r\n");
        if (n && *s != '#')
            out = xasprintf("%.*s", (int)n, s);
    }
    fclose(f);
    return out;
}

/* the shim's PYENV_ROOT: its `export PYENV_ROOT="..."` line (pyenv writes the
 * root into every shim); NULL when exe is not a pyenv shim */
static char *shim_root(const char *exe)
{
    FILE *f = fopen(exe, "r");
    if (!f)
        return NULL;
    char buf[2048];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (strncmp(buf, "#!", 2) != 0 || !strstr(buf, "pyenv"))
        return NULL;
    const char *r = strstr(buf, "export PYENV_ROOT=\"");
    if (!r)
        return NULL;
    r += strlen("export PYENV_ROOT=\"");
    size_t len = strcspn(r, "\"\n");
    return r[len] == '"' ? xasprintf("%.*s", (int)len, r) : NULL;
}

/* the version pyenv picks, and what picked it */
static char *shim_version(const char *root, const char *cwd, char **why)
{
    const char *env = getenv("PYENV_VERSION");
    if (env && *env) {
        *why = xasprintf("PYENV_VERSION=%s", env);
        return xasprintf("%.*s", (int)strcspn(env, ":"), env);
    }
    const char *dir = getenv("PYENV_DIR");
    char *d = xstrdup(dir && *dir ? dir : cwd);
    for (;;) {
        char *file = xasprintf("%s/.python-version", strcmp(d, "/") ? d : "");
        char *v = shim_first_word(file);
        if (v) {
            *why = xasprintf("%s: %s", file, v);
            v[strcspn(v, ":")] = '\0';
            free(file), free(d);
            return v;
        }
        free(file);
        char *slash = strrchr(d, '/');
        if (!slash || !strcmp(d, "/"))
            break;
        if (slash == d)
            d[1] = '\0'; /* "/a" -> "/" */
        else
            *slash = '\0';
    }
    free(d);
    char *global = xasprintf("%s/version", root);
    char *v = shim_first_word(global);
    if (v) {
        *why = xasprintf("%s (pyenv global): %s", global, v);
        v[strcspn(v, ":")] = '\0';
    } else {
        *why = xasprintf("no PYENV_VERSION, .python-version or %s: system", global);
        v = xstrdup("system");
    }
    free(global);
    return v;
}

/* "system": the program on PATH after every pyenv shims directory */
static char *shim_system(const char *shims, const char *prog)
{
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        if (n && !(strlen(shims) == n && !strncmp(p, shims, n))) {
            char *cand = xasprintf("%.*s/%s", (int)n, p, prog);
            if (shim_executable(cand))
                return cand;
            free(cand);
        }
        p += n + (p[n] == ':');
    }
    return NULL;
}

char *python_shim_resolve(const char *exe, const char *cwd, char **why)
{
    *why = NULL;
    const char *slash = strrchr(exe, '/');
    if (!slash || slash - exe < 6 || strncmp(slash - 6, "/shims", 6) != 0)
        return NULL;
    char *root = shim_root(exe);
    if (!root)
        return NULL;
    char *shims = xasprintf("%.*s", (int)(slash - exe), exe);
    char *chose = NULL, *ver = shim_version(root, cwd, &chose);
    char *real = NULL;
    if (!strcmp(ver, "system")) {
        real = shim_system(shims, slash + 1);
        if (!real)
            *why = xasprintf("%s; no %s on PATH outside %s", chose, slash + 1, shims);
    } else {
        real = xasprintf("%s/versions/%s/bin/%s", root, ver, slash + 1);
        if (!shim_executable(real)) {
            *why = xasprintf("%s; %s is not installed", chose, real);
            free(real);
            real = NULL;
        }
    }
    if (real)
        *why = xasprintf("pyenv shim %s: %s", exe, chose);
    free(chose), free(ver), free(shims), free(root);
    return real;
}
