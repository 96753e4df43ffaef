/* rootfs.h - the one root-prefixed reader.
 *
 * Every read of /sys, /proc, /dev, /etc, /boot, /opt/rocm, /usr goes through
 * these functions. They apply --sysroot (a directory; tarballs are unpacked
 * into a private directory by snapshot.c first), resolve symbolic links
 * *inside* the root so that a fixture or a colleague's snapshot can never make
 * the tool read the host, and, when collect is running, record everything
 * they read into a staging tree so that `check --sysroot` on the snapshot
 * reproduces the verdicts.
 *
 * Facts that no file holds (the process's groups, the open test of /dev/kfd,
 * the kernel log, the Python answers, environment variables) are "queries":
 * on a live host a producer function computes their text; under --sysroot the
 * text is read from /.snapshot/<name>. Probes parse the text either way, so a
 * replay goes through exactly the same parsing code.
 *
 * All functions return 0 or -errno. */
#ifndef RVD_ROOTFS_H
#define RVD_ROOTFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util.h"

#define ROOTFS_MAX_FILE (8u << 20)
#define ROOTFS_SNAPSHOT_DIR "/.snapshot"

/* root == NULL or "/" means the live system */
int rootfs_init(const char *root);
void rootfs_release(void);
int rootfs_is_live(void);
const char *rootfs_root(void); /* "" for live */

/* start/stop recording into stage_dir (collect). Stop returns 0, or -EIO
 * after printing the first staging write that failed (disk full, file-size
 * limit): a snapshot with a truncated file must not be packed. */
int rootfs_record_start(const char *stage_dir);
int rootfs_record_stop(void);

int rootfs_read(const char *path, char **buf, size_t *len);
/* whole file, trailing whitespace and NUL padding trimmed; -EILSEQ for
 * binary content */
int rootfs_read_str(const char *path, char **out);
int rootfs_readf_str(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rootfs_readf_u64(uint64_t *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rootfs_readf_i64(int64_t *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rootfs_stat(const char *path, struct stat *st);
int rootfs_exists(const char *path);
/* sorted entry names, without . and .. */
int rootfs_list(const char *dir, struct strlist *names);
/* canonical root-relative path with every symlink resolved inside the root */
int rootfs_realpath(const char *path, char **out);
/* host path for code that needs one (the ELF scanner); every component resolved
 * inside the root, so the kernel follows no link on the way */
int rootfs_host_path(const char *path, char **out);
/* while collect records: stage text as what path holds, for a file read
 * outside rootfs_read (libpci opens pci.ids itself) whose snapshot keeps
 * only an excerpt; a no-op otherwise */
void rootfs_record_text(const char *path, const char *text, size_t len);

/* a "query": text that no file holds */
typedef int (*rootfs_producer)(struct strbuf *out);
int rootfs_query(const char *name, rootfs_producer live, char **out);

/* one line of a snapshot's /.snapshot/read-errors, "ERRNO /path" as collect
 * writes it: ERRNO decimal in 1..ROOTFS_MAX_ERRNO (no sign, no leading
 * zero), one space, an absolute path. 0 with *err (and *path, when given,
 * pointing into line), or -EINVAL for anything else. */
#define ROOTFS_MAX_ERRNO 4095
int rootfs_parse_read_error(const char *line, int *err, const char **path);

#endif
