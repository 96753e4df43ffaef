/* probe_python_env.c - which environment the interpreter runs in (venv,
 * conda, the system's) and whether the installed torch wheel was built for
 * this interpreter: the Tag: lines of torch-<version>.dist-info/WHEEL
 * (PEP 427), read through rootfs next to the torch package. A cp311 wheel
 * under Python 3.12 fails to import (its extension modules are named for
 * cpython-311), usually after a conda or venv upgrade of Python. */
#include "probe.h"
#include "probe_python.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int python_wheel_tags(const char *text, struct strlist *tags)
{
    struct strlist lines = STRLIST_INIT;
    strlist_split(&lines, text, "\n");
    for (size_t i = 0; i < lines.n; i++) {
        if (!str_starts(lines.v[i], "Tag:"))
            continue;
        char *t = str_trim(lines.v[i] + 4);
        /* python-abi-platform, each part non-empty */
        const char *d1 = strchr(t, '-');
        const char *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
        if (!d1 || !d2 || d1 == t || d2 == d1 + 1 || !d2[1] || strchr(d2 + 1, '-') ||
            strchr(t, ' '))
            continue;
        if (!strlist_has(tags, t))
            strlist_add(tags, t);
    }
    strlist_release(&lines);
    return tags->n ? 0 : -EINVAL;
}

/* "3.11.4" -> 3, 11 */
static int py_version(const char *v, unsigned *maj, unsigned *min)
{
    return sscanf(v, "%u.%u", maj, min) == 2 ? 0 : -EINVAL;
}

/* one python tag ("cp311", "py3", "py311") against the interpreter; abi3:
 * the wheel's cpXY is the oldest CPython it supports */
static int py_tag_ok(const char *pt, size_t n, const char *abi, unsigned maj, unsigned min)
{
    unsigned tmaj, tmin;
    char buf[16];
    if (n >= sizeof(buf))
        return 0;
    snprintf(buf, sizeof(buf), "%.*s", (int)n, pt);
    if (strcmp(buf, "py3") == 0)
        return maj == 3;
    if (strcmp(buf, "py2") == 0)
        return maj == 2;
    int cp = str_starts(buf, "cp");
    if (!cp && !str_starts(buf, "py"))
        return 0;
    const char *num = buf + 2;
    if (strlen(num) < 2 || strspn(num, "0123456789") != strlen(num))
        return 0;
    tmaj = (unsigned)(num[0] - '0');
    tmin = (unsigned)strtoul(num + 1, NULL, 10);
    if (cp && strcmp(abi, "abi3") == 0)
        return tmaj == maj && tmin <= min;
    return tmaj == maj && tmin == min;
}

int python_tag_matches(const char *tag, const char *version)
{
    unsigned maj, min;
    if (py_version(version, &maj, &min))
        return -EINVAL;
    const char *d1 = strchr(tag, '-');
    const char *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
    if (!d1 || !d2)
        return -EINVAL;
    char abi[32];
    snprintf(abi, sizeof(abi), "%.*s", (int)(d2 - d1 - 1), d1 + 1);
    /* compressed tag sets: "cp311.cp312" */
    for (const char *p = tag; p < d1;) {
        const char *dot = memchr(p, '.', (size_t)(d1 - p));
        const char *e = dot ? dot : d1;
        if (py_tag_ok(p, (size_t)(e - p), abi, maj, min))
            return 1;
        p = e + 1;
    }
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

static void env_facts(struct factset *fs, const char *src, const char *prefix,
                      const char *base_prefix)
{
    const char *conda = probe_getenv("CONDA_PREFIX");
    const char *conda_name = probe_getenv("CONDA_DEFAULT_ENV");
    const char *venv = probe_getenv("VIRTUAL_ENV");
    char *meta = xasprintf("%s/conda-meta", prefix);
    int is_conda = rootfs_exists(meta);
    free(meta);
    if ((base_prefix && strcmp(prefix, base_prefix) != 0) || (venv && strcmp(venv, prefix) == 0)) {
        fact_set_str(fs, "python.env_kind", "venv", src);
        fact_set_str(fs, "python.env_name", base_name(prefix), src);
        fact_set_bool(fs, "python.in_venv", 1, src);
        return;
    }
    /* PEP 668: only a venv (sys.prefix != sys.base_prefix) escapes the
     * EXTERNALLY-MANAGED marker; a conda prefix has none of its own */
    if (base_prefix)
        fact_set_bool(fs, "python.in_venv", 0, src);
    else
        fact_set_unknown(fs, "python.in_venv", src,
                         "the answer has no base_prefix (recorded by an older doctor)");
    if (is_conda) {
        fact_set_str(fs, "python.env_kind", "conda", src);
        char *envs = xasprintf("%s/envs", prefix);
        const char *name = conda && conda_name && strcmp(conda, prefix) == 0 ? conda_name
                           : rootfs_exists(envs)                             ? "base"
                                                                             : base_name(prefix);
        free(envs);
        fact_set_str(fs, "python.env_name", name, src);
    } else if (base_prefix) {
        fact_set_str(fs, "python.env_kind", "system", src);
        fact_set_str(fs, "python.env_name", prefix, src);
    } else {
        const char *why = "the answer has no base_prefix (recorded by an older doctor) and no "
                          "VIRTUAL_ENV or conda-meta says otherwise";
        fact_set_unknown(fs, "python.env_kind", src, "%s", why);
        fact_set_unknown(fs, "python.env_name", src, "%s", why);
    }
}

static const char *const wheel_facts[] = {"python.torch_wheel_tags", "python.abi_tag",
                                          "python.wheel_tags_match"};

static void unknown_wheel(struct factset *fs, const char *src, const char *reason)
{
    for (size_t i = 0; i < ARRAY_SIZE(wheel_facts); i++)
        fact_set_unknown(fs, wheel_facts[i], src, "%s", reason);
}

/* torch-<version>.dist-info/WHEEL beside the torch package directory */
static int find_wheel(const char *torch_dir, char **path)
{
    char *site = xstrdup(torch_dir);
    char *slash = strrchr(site, '/');
    if (!slash || slash == site) {
        free(site);
        return -ENOENT;
    }
    *slash = '\0';
    struct strlist names = STRLIST_INIT;
    int rc = rootfs_list(site, &names);
    *path = NULL;
    for (size_t i = 0; rc == 0 && i < names.n && !*path; i++) {
        const char *n = names.v[i];
        if (str_starts(n, "torch-") && n[6] >= '0' && n[6] <= '9' && str_ends(n, ".dist-info"))
            *path = xasprintf("%s/%s/WHEEL", site, n);
    }
    strlist_release(&names);
    free(site);
    return rc ? rc : *path ? 0 : -ENOENT;
}

static void wheel_facts_set(struct factset *fs, const char *version, const char *torch_dir)
{
    char *path = NULL, *text;
    int rc = find_wheel(torch_dir, &path);
    if (rc) {
        char *why = xasprintf("no torch-<version>.dist-info beside %s (torch not installed from "
                              "a wheel, e.g. a distribution package or a source build)",
                              torch_dir);
        unknown_wheel(fs, torch_dir, why);
        free(why);
        return;
    }
    rc = rootfs_read_str(path, &text);
    if (rc) {
        for (size_t i = 0; i < ARRAY_SIZE(wheel_facts); i++)
            fact_set_errno(fs, wheel_facts[i], path, rc);
        free(path);
        return;
    }
    struct strlist tags = STRLIST_INIT;
    unsigned maj, min;
    if (python_wheel_tags(text, &tags)) {
        unknown_wheel(fs, path, "no Tag: line in the WHEEL file");
    } else if (py_version(version, &maj, &min)) {
        fact_set_list(fs, "python.torch_wheel_tags", &tags, path);
        fact_set_unknown(fs, "python.abi_tag", path, "python.version '%s' is not M.m", version);
        fact_set_unknown(fs, "python.wheel_tags_match", path, "python.version '%s' is not M.m",
                         version);
    } else {
        char abi[16];
        snprintf(abi, sizeof(abi), "cp%u%u", maj, min);
        int ok = 0;
        for (size_t i = 0; i < tags.n; i++)
            ok |= python_tag_matches(tags.v[i], version) == 1;
        fact_set_list(fs, "python.torch_wheel_tags", &tags, path);
        fact_set_str(fs, "python.abi_tag", abi, path);
        fact_set_bool(fs, "python.wheel_tags_match", ok, path);
    }
    strlist_release(&tags);
    free(text);
    free(path);
}

void python_env_facts(struct factset *fs, const char *src, const char *prefix,
                      const char *base_prefix, const char *version, const char *torch_dir,
                      const char *reason)
{
    if (reason) {
        fact_set_unknown(fs, "python.base_prefix", src, "%s", reason);
        fact_set_unknown(fs, "python.env_kind", src, "%s", reason);
        fact_set_unknown(fs, "python.env_name", src, "%s", reason);
        fact_set_unknown(fs, "python.in_venv", src, "%s", reason);
        unknown_wheel(fs, src, reason);
        return;
    }
    if (base_prefix)
        fact_set_str(fs, "python.base_prefix", base_prefix, src);
    else
        fact_set_unknown(fs, "python.base_prefix", src, "no base_prefix in the answer");
    if (prefix)
        env_facts(fs, src, prefix, base_prefix);
    else {
        fact_set_unknown(fs, "python.env_kind", src, "no prefix in the answer");
        fact_set_unknown(fs, "python.env_name", src, "no prefix in the answer");
        fact_set_unknown(fs, "python.in_venv", src, "no prefix in the answer");
    }
    if (!torch_dir)
        unknown_wheel(fs, src, "torch is not installed, or where it is cannot be told");
    else if (!version)
        unknown_wheel(fs, src, "no version in the answer");
    else
        wheel_facts_set(fs, version, torch_dir);
}
