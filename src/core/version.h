/* version.h - the tool's version. VERSION (the file at the top of the tree)
 * is its one source: the Makefile writes it, and `git describe` when built
 * from a git checkout, into $(BUILD)/version_gen.c; debian/changelog must
 * name the same version (tests/install.sh). */
#ifndef RVD_VERSION_H
#define RVD_VERSION_H

#include <stdio.h>

extern const char rvd_version[];     /* "0.1.0": what reports carry */
extern const char rvd_version_git[]; /* `git describe --always --dirty`, or "" */

/* the version reports and snapshots carry (a const char array, not a literal) */
#define RVD_VERSION rvd_version

/* --version: "rocm-vla-doctor 0.1.0" and " (git DESCRIBE)" when built from git */
void version_print(FILE *out);

#endif
