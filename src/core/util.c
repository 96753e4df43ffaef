/* util.c - error reporting, checked allocation, strbuf, strlist. */
#include "util.h"
#include "strset.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* one diagnostic line; its text may quote file names and file content, so
 * it is sanitised like every other string that reaches a terminal */
static void diag(const char *prefix, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static void diag(const char *prefix, const char *fmt, va_list ap)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_vaddf(&sb, fmt, ap);
    char *safe = str_sanitize(sb.buf ? sb.buf : "", 1);
    fputs(prefix, stderr);
    fputs(safe, stderr);
    fputc('\n', stderr);
    free(safe);
    strbuf_release(&sb);
}

int error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag("rocm-vla-doctor: error: ", fmt, ap);
    va_end(ap);
    return -1;
}

void warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag("rocm-vla-doctor: warning: ", fmt, ap);
    va_end(ap);
}

void eprint_safe(const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    char *safe = str_sanitize(sb.buf ? sb.buf : "", 1);
    fputs(safe, stderr);
    free(safe);
    strbuf_release(&sb);
}

int read_user_file(const char *path, size_t max, char **bufp, size_t *lenp)
{
    /* O_NONBLOCK: opening a FIFO without a writer must not wait; the fstat
     * below refuses it (and devices, directories, sockets) before any read */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return S_ISDIR(st.st_mode) ? -EISDIR : -USER_FILE_NOT_REGULAR;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    struct strbuf sb = STRBUF_INIT;
    char chunk[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            break;
        }
        if (n == 0)
            break;
        if (sb.len + (size_t)n > max) {
            rc = -EFBIG;
            break;
        }
        strbuf_add(&sb, chunk, (size_t)n);
    }
    close(fd);
    if (rc) {
        strbuf_release(&sb);
        return rc;
    }
    if (!sb.buf)
        strbuf_add(&sb, "", 0);
    if (lenp)
        *lenp = sb.len;
    *bufp = strbuf_detach(&sb);
    return 0;
}

const char *user_file_strerror(int rc)
{
    if (rc == -USER_FILE_NOT_REGULAR)
        return "not a regular file (a FIFO, device, socket or directory is refused)";
    return strerror(rc < 0 ? -rc : rc);
}

double util_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void oom(void)
{
    fputs("rocm-vla-doctor: out of memory\n", stderr);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *xcalloc(size_t n, size_t m)
{
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (!p)
        oom();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        oom();
    return p;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    return strbuf_detach(&sb);
}

static void strbuf_grow(struct strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    sb->buf = xrealloc(sb->buf, cap);
    sb->cap = cap;
}

void strbuf_add(struct strbuf *sb, const char *s, size_t n)
{
    strbuf_grow(sb, n);
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
    strbuf_add(sb, s, strlen(s));
}

void strbuf_addc(struct strbuf *sb, char c)
{
    strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    /* measure into a real buffer, not vsnprintf(NULL, 0): gcc's
     * -Wformat-truncation (raised under -fsanitize) calls that a null
     * destination; most texts fit the first try anyway */
    char small[256];
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(small, sizeof(small), fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(small)) {
        strbuf_add(sb, small, (size_t)n);
        return;
    }
    strbuf_grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
}

char *strbuf_detach(struct strbuf *sb)
{
    char *p = sb->buf ? sb->buf : xstrdup("");
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return p;
}

void strbuf_release(struct strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

char *str_trim(char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

int str_starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_ends(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int str_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s || *s == '-')
        return -EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return -EINVAL;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -EINVAL;
    *out = v;
    return 0;
}

int str_parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || end == s)
        return -EINVAL;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -EINVAL;
    *out = v;
    return 0;
}

int str_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s)
        return -EINVAL;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -EINVAL;
    *out = v;
    return 0;
}

void strlist_add_owned(struct strlist *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
    }
    l->v[l->n++] = s;
}

void strlist_add(struct strlist *l, const char *s)
{
    strlist_add_owned(l, xstrdup(s));
}

int strlist_has(const struct strlist *l, const char *s)
{
    /* counted for the growth tests (strset.h) */
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0) {
            strset_work += i + 1;
            return 1;
        }
    strset_work += l->n;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    strset_work++;
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void strlist_sort(struct strlist *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof(*l->v), cmp_str);
}

void strlist_release(struct strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

void strlist_split(struct strlist *l, const char *s, const char *seps)
{
    while (*s) {
        size_t skip = strspn(s, seps);
        s += skip;
        size_t n = strcspn(s, seps);
        if (n)
            strlist_add_owned(l, xstrndup(s, n));
        s += n;
    }
}

size_t str_split_fields(char *line, char **f, size_t max)
{
    size_t n = 0;
    while (n < max) {
        f[n++] = line;
        char *t = strchr(line, '\t');
        if (!t)
            break;
        *t = '\0';
        line = t + 1;
    }
    return n;
}

char *str_colon_field(const char *line, int idx)
{
    for (int i = 0; i < idx; i++) {
        line = strchr(line, ':');
        if (!line)
            return NULL;
        line++;
    }
    return xstrndup(line, strcspn(line, ":"));
}
