/* snapshot.h - collect's tarballs: writing them, and unpacking one (possibly
 * hostile) into a private temporary directory for --sysroot.
 *
 * Unpacking rejects, with a message and no file written outside the private
 * directory: absolute names, `..` components, symlinks whose target leaves
 * the snapshot, hard links, device nodes and FIFOs, absurd sizes or counts,
 * and truncated or corrupt archives. */
#ifndef RVD_SNAPSHOT_H
#define RVD_SNAPSHOT_H

#define SNAPSHOT_MAX_FILE (16u << 20)   /* one member */
#define SNAPSHOT_MAX_TOTAL (256u << 20) /* all members */
#define SNAPSHOT_MAX_ENTRIES 200000

/* 0 and *dir_out (owned), or -1 after printing why */
int snapshot_unpack(const char *tarball, char **dir_out);
/* remove a directory made by snapshot_unpack or collect */
void snapshot_remove_tree(const char *dir);
/* tar+gzip the tree at dir into out_path; 0 or -1 after printing why */
int snapshot_pack(const char *dir, const char *out_path);
/* does path look like a tarball (by name or gzip/ustar magic)? */
int snapshot_is_tarball(const char *path);

#endif
