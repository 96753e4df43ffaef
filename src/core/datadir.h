/* datadir.h - where the running binary's own files are: the directory that
 * holds it, and an installed copy's data directory. Found from the binary's
 * path, never compiled in, so that an install under any PREFIX (and a
 * DESTDIR staging tree) finds its files. These are the tool's own files,
 * not facts about the machine: they are not read through rootfs. */
#ifndef RVD_DATADIR_H
#define RVD_DATADIR_H

/* the directory holding the running binary (/proc/self/exe, symlinks
 * resolved), or NULL; the caller frees it */
char *datadir_exe_dir(void);

/* <prefix>/share/rocm-vla-doctor/REL when the binary is <prefix>/bin/NAME
 * (the layout `make install` and the .deb write) and that file is readable;
 * else NULL (a binary in a build tree uses its built-in copies). The caller
 * frees it. */
char *datadir_file(const char *rel);

#endif
