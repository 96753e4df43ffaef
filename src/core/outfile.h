/* outfile.h - a file the tool writes (a report, a snapshot): opened before
 * the work starts, so that a bad path fails at once, and written through a
 * temporary file in the same directory that is renamed into place only
 * when every write, the flush and the close succeeded. A failed run never
 * leaves half a file under the target's name and never clobbers a good one.
 *
 * A target that exists and is not a regular file (a terminal, a pipe,
 * /dev/null, /dev/full) is written in place: renaming over it would replace
 * a device node. "-" is stdout where the caller allows it. */
#ifndef RVD_OUTFILE_H
#define RVD_OUTFILE_H

#include <stdio.h>

struct outfile {
    char *path;    /* the target as given */
    char *final;   /* where the rename goes (a symlink's target), or NULL */
    char *tmp;     /* the temporary file, or NULL when writing in place */
    FILE *f;       /* open for writing */
    int is_stdout; /* "-" */
};

/* 0, or -1 after printing why (missing directory, a directory, no
 * permission) */
int outfile_open(struct outfile *o, const char *path, int allow_stdout);
/* a stream (a recording that is read while it grows, `monitor -o`): the
 * same checks as outfile_open, but written in place, so `tail -f` sees each
 * record as the caller flushes it; what was flushed before a crash stays.
 * outfile_close never removes it. */
int outfile_open_stream(struct outfile *o, const char *path, int allow_stdout);
/* flush and close; unless `failed`, rename into place. 0, or -1 after
 * printing why (a write, flush or close error: disk full, file-size limit).
 * With `failed`, or on any error, the temporary file is removed and the
 * target is left as it was. Releases o. */
int outfile_close(struct outfile *o, int failed);
/* 1 when two output paths name one file: the same string, or the same
 * device and inode (a link, ./name; "-" is stdout, so is /dev/stdout); a
 * file not yet made by its directory's device and inode and its name. Two
 * other names of one character device that is not stdout (/dev/null by a
 * link) are not one output: nothing written there is read back. */
int outfile_same(const char *a, const char *b);

#endif
