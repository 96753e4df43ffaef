/* snapshot.h - collect's tarballs: writing them, and unpacking one (possibly
 * hostile) into a private temporary directory for --sysroot.
 *
 * The format is POSIX ustar, gzip-compressed, with pax extended headers ('x')
 * only for a path or link target that the ustar fields cannot hold (deep
 * sysfs link targets pass 100 bytes). Members are written in sorted order
 * with mtime/uid/gid 0 and modes 0644/0755, so two packs of the same tree are
 * byte-identical.
 *
 * Unpacking rejects, with a one-line message naming the member and no file
 * written outside the private directory: absolute names, `..` components,
 * empty names, names with newlines, symlinks whose target is absolute or
 * leaves the snapshot (lexically from the link's directory as each member
 * is read, then physically through the tree's other links once all are
 * written: snapshot_links.c), hard
 * links, device nodes, FIFOs and every other type except file, directory and
 * symlink, GNU long-name and pax global headers, absurd sizes or counts
 * (checked while streaming, so a gzip bomb stops at the cap), members written
 * through a symlink, duplicates, and truncated or corrupt archives. An
 * archive must end with the end-of-archive zero block: a tar cut exactly at a
 * member boundary would otherwise silently lose files. */
#ifndef RVD_SNAPSHOT_H
#define RVD_SNAPSHOT_H

#include <stddef.h>

#define SNAPSHOT_MAX_FILE (16u << 20)   /* one member */
#define SNAPSHOT_MAX_TOTAL (256u << 20) /* all members */
#define SNAPSHOT_MAX_ENTRIES 200000

/* 0 and *dir_out (owned), or -1 after printing why */
int snapshot_unpack(const char *tarball, char **dir_out);
/* remove a directory made by snapshot_unpack or collect */
void snapshot_remove_tree(const char *dir);
/* tar+gzip the tree at dir into out_path; 0 or -1 after printing why */
int snapshot_pack(const char *dir, const char *out_path);
/* --sysroot: a directory, a snapshot tarball (unpacked into a private
 * directory, returned in *unpacked) or NULL for the live host; initialises
 * the root-prefixed reader. 0, or -1 after printing why. */
int sysroot_open(const char *arg, char **unpacked);
/* undo sysroot_open: release the reader, remove the unpacked directory */
void sysroot_close(char *unpacked);
/* collect's manifest, /.snapshot/meta, in the staging tree; 0 or -1 after
 * printing why */
int snapshot_write_meta(const char *stage, const char *version, const char *when);
/* is the unpacked tarball at dir a snapshot (it has the manifest)? is dir a
 * machine's root (proc/ and sys/, or the manifest)? 0, or -1 after printing
 * why */
int snapshot_check_tarball_root(const char *tarball, const char *dir);
int snapshot_check_dir_root(const char *dir);
/* does path look like a tarball (by name or gzip/ustar magic)? */
int snapshot_is_tarball(const char *path);

/* the caps above, lowered by unit tests so they can test them cheaply;
 * 0 restores a default */
void snapshot_set_limits(size_t max_file, size_t max_total, size_t max_entries);

#endif
