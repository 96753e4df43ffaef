/* version.c - `--version`, the one line every command prints for it. */
#include "version.h"

void version_print(FILE *out)
{
    if (rvd_version_git[0])
        fprintf(out, "rocm-vla-doctor %s (git %s)\n", rvd_version, rvd_version_git);
    else
        fprintf(out, "rocm-vla-doctor %s\n", rvd_version);
}
