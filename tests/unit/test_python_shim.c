/* test_python_shim.c - a pyenv shim resolved without running it, on a fake
 * pyenv tree (shims/python3 as pyenv writes it, versions/<v>/bin/python3):
 * PYENV_VERSION, a .python-version up the tree (PYENV_DIR too), the global
 * version file, "system" (the next python3 on PATH after the shims), a
 * version that is not installed, and a python3 that is no shim. */
#include "../../probes/probe_python_shim.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char T[64];

static void put(const char *rel, const char *text, int exe)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", T, rel);
    for (char *s = strchr(path + strlen(T) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    chmod(path, exe ? 0755 : 0644);
}

/* the resolution of shims/python3 from cwd T/rel; *why into why */
static char *resolve(const char *shim, const char *rel, char *why, size_t n)
{
    char exe[512], cwd[512];
    snprintf(exe, sizeof(exe), "%s/%s", T, shim);
    snprintf(cwd, sizeof(cwd), "%s/%s", T, rel);
    char *w = NULL, *r = python_shim_resolve(exe, cwd, &w);
    snprintf(why, n, "%s", w ? w : "");
    free(w);
    return r;
}

/* path relative to T, or the path itself when outside */
static const char *rel(const char *path)
{
    size_t n = strlen(T);
    return path && strncmp(path, T, n) == 0 ? path + n + 1 : path ? path : "(null)";
}

int main(void)
{
    snprintf(T, sizeof(T), "/tmp/rvd-shim-%d", (int)getpid());
    mkdir(T, 0755);
    char shim[1024];
    snprintf(
        shim, sizeof(shim),
        "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\n\nprogram=\"${0##*/}\"\n\n"
        "export PYENV_ROOT=\"%s/pyenv\"\nexec \"%s/pyenv/libexec/pyenv\" exec \"$program\" "
        "\"$@\"\n",
        T, T);
    put("pyenv/shims/python3", shim, 1);
    put("pyenv/versions/3.11.9/bin/python3", "", 1);
    put("pyenv/versions/3.10.4/bin/python3", "", 1);
    put("pyenv/versions/3.12.1/bin/python3", "", 1);
    put("pyenv/version", "# global\n3.12.1\n", 0);
    put("proj/.python-version", "3.10.4\n", 0);
    put("proj/sub/keep", "", 0);
    put("sysbin/python3", "", 1);
    put("plain/python3", "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n", 1);
    char why[1024], *r;
    unsetenv("PYENV_VERSION");
    unsetenv("PYENV_DIR");

    /* PYENV_VERSION wins over every file; only its first version is taken */
    setenv("PYENV_VERSION", "3.11.9:3.10.4", 1);
    r = resolve("pyenv/shims/python3", "proj/sub", why, sizeof(why));
    CHECK_STR(rel(r), "pyenv/versions/3.11.9/bin/python3");
    CHECK(strstr(why, "PYENV_VERSION=3.11.9:3.10.4") != NULL);
    free(r);
    unsetenv("PYENV_VERSION");

    /* .python-version two levels up from the working directory */
    r = resolve("pyenv/shims/python3", "proj/sub", why, sizeof(why));
    CHECK_STR(rel(r), "pyenv/versions/3.10.4/bin/python3");
    CHECK(strstr(why, "proj/.python-version: 3.10.4") != NULL);
    free(r);

    /* PYENV_DIR moves the search: from plain/ there is none, so the global */
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/plain", T);
    setenv("PYENV_DIR", dir, 1);
    r = resolve("pyenv/shims/python3", "proj/sub", why, sizeof(why));
    CHECK_STR(rel(r), "pyenv/versions/3.12.1/bin/python3");
    CHECK(strstr(why, "(pyenv global): 3.12.1") != NULL);
    free(r);
    unsetenv("PYENV_DIR");

    /* a version that is not installed: the shim is left to pyenv, saying why */
    put("proj/.python-version", "3.9.0\n", 0);
    r = resolve("pyenv/shims/python3", "proj", why, sizeof(why));
    CHECK(r == NULL);
    CHECK(strstr(why, "versions/3.9.0/bin/python3 is not installed") != NULL);
    free(r);

    /* "system": the next python3 on PATH after the shims directory */
    put("proj/.python-version", "system\n", 0);
    char path[1024];
    snprintf(path, sizeof(path), "%s/pyenv/shims:%s/sysbin", T, T);
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", path, 1);
    r = resolve("pyenv/shims/python3", "proj", why, sizeof(why));
    CHECK_STR(rel(r), "sysbin/python3");
    free(r);
    /* ... and none there: said, not guessed */
    snprintf(path, sizeof(path), "%s/pyenv/shims", T);
    setenv("PATH", path, 1);
    r = resolve("pyenv/shims/python3", "proj", why, sizeof(why));
    CHECK(r == NULL);
    CHECK(strstr(why, "no python3 on PATH outside") != NULL);
    free(r);
    if (old)
        setenv("PATH", old, 1);
    free(old);

    /* no global file and nothing else: system */
    unlink(strcat(strcpy(path, T), "/pyenv/version"));
    unlink(strcat(strcpy(path, T), "/proj/.python-version"));
    setenv("PYENV_DIR", dir, 1);
    r = resolve("pyenv/shims/python3", "plain", why, sizeof(why));
    CHECK(strstr(why, "system") != NULL);
    free(r);
    unsetenv("PYENV_DIR");

    /* not a shim: a script elsewhere, and a "shims" file without pyenv */
    r = resolve("plain/python3", "proj", why, sizeof(why));
    CHECK(r == NULL && why[0] == '\0');
    put("other/shims/python3", "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n", 1);
    r = resolve("other/shims/python3", "proj", why, sizeof(why));
    CHECK(r == NULL && why[0] == '\0');
    r = resolve("nothing/shims/python3", "proj", why, sizeof(why));
    CHECK(r == NULL && why[0] == '\0');

    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", T);
    return test_report();
}
