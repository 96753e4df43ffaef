/* util.h - small helpers shared by every module: error reporting, growable
 * strings, checked allocation. Functions that can fail return 0 or -errno;
 * error() prints one lowercase line to stderr and returns -1 so that
 * `return error("...")` reads well (the git convention). */
#ifndef RVD_UTIL_H
#define RVD_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* stderr text with no prefix (file:line:col messages), sanitised like
 * error()'s */
void eprint_safe(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A file the user named (checks.yaml, a preset, a requirements file, a
 * report): not a machine fact, so not read through rootfs. 0, or -errno
 * (-EFBIG beyond max bytes); *buf is NUL-terminated and owned. */
int read_user_file(const char *path, size_t max, char **buf, size_t *len);
/* A FIFO, device or socket is refused at once (it is opened
 * non-blocking, so a FIFO without a writer cannot hang the run) with this
 * code, outside errno's range; user_file_strerror() says which. */
#define USER_FILE_NOT_REGULAR 10000
const char *user_file_strerror(int rc); /* rc: -errno or -USER_FILE_NOT_REGULAR */

/* str_sanitize() and the other escapers: one per output format */
#include "escape.h"

/* a + b for counters (both >= 0) read from the machine: held at INT64_MAX
 * instead of wrapping (two "ue: 9223372036854775807" blocks gave -2), *sat
 * set when it was (issue 30); a negative operand counts as 0 */
static inline int64_t i64_add_sat(int64_t a, int64_t b, int *sat)
{
    a = a < 0 ? 0 : a;
    b = b < 0 ? 0 : b;
    if (a > INT64_MAX - b) {
        *sat = 1;
        return INT64_MAX;
    }
    return a + b;
}
/* a kernel's unsigned 64-bit counter as a signed one, held at INT64_MAX */
static inline int64_t i64_from_u64_sat(uint64_t v, int *sat)
{
    if (v > (uint64_t)INT64_MAX) {
        *sat = 1;
        return INT64_MAX;
    }
    return (int64_t)v;
}

/* seconds on the monotonic clock, for durations */
double util_mono_s(void);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* growable NUL-terminated string */
struct strbuf {
    char *buf;
    size_t len, cap;
};
#define STRBUF_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }
void strbuf_add(struct strbuf *sb, const char *s, size_t n);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
void strbuf_addc(struct strbuf *sb, char c);
char *strbuf_detach(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);

/* string helpers */
char *str_trim(char *s); /* in place; returns s advanced past spaces */
int str_starts(const char *s, const char *prefix);
int str_ends(const char *s, const char *suffix);
/* field idx (0-based) of a colon-separated line (/etc/passwd, /etc/group)
 * as a new string; NULL when the line has fewer fields */
char *str_colon_field(const char *line, int idx);
/* split line in place at each tab into at most max fields (what follows
 * the max-th field is dropped): the rows of the probes' tab-separated queries. The
 * number of fields, at least 1. */
size_t str_split_fields(char *line, char **f, size_t max);
int str_parse_u64(const char *s, uint64_t *out); /* decimal or 0x; 0 or -EINVAL */
int str_parse_i64(const char *s, int64_t *out);
int str_parse_double(const char *s, double *out);

/* a list of owned strings */
struct strlist {
    char **v;
    size_t n, cap;
};
#define STRLIST_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }
void strlist_add(struct strlist *l, const char *s);
void strlist_add_owned(struct strlist *l, char *s);
int strlist_has(const struct strlist *l, const char *s);
void strlist_sort(struct strlist *l);
void strlist_release(struct strlist *l);
/* split s on any of seps, skipping empty pieces */
void strlist_split(struct strlist *l, const char *s, const char *seps);

#endif
