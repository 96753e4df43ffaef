/* datadir.c - the running binary's directory and an installed copy's
 * share/rocm-vla-doctor/ (see datadir.h). */
#include "datadir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

char *datadir_exe_dir(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
        return NULL;
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    return xstrdup(buf);
}

char *datadir_file(const char *rel)
{
    char *dir = datadir_exe_dir();
    if (!dir)
        return NULL;
    /* only the installed layout: a binary elsewhere (build/, a copy in
     * /tmp) must not pick up an unrelated ../share */
    char *slash = strrchr(dir, '/');
    if (!slash || strcmp(slash + 1, "bin")) {
        free(dir);
        return NULL;
    }
    *slash = 0;
    char *path = xasprintf("%s/share/rocm-vla-doctor/%s", dir, rel);
    free(dir);
    if (access(path, R_OK) == 0)
        return path;
    free(path);
    return NULL;
}
