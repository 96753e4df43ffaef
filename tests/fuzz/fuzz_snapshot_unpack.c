/* fuzz_snapshot_unpack.c - the snapshot tarball reader (src/snapshot/snapshot_unpack.c),
 * structure-aware. Random bytes almost never pass a tar header checksum,
 * so the input is a member list that this harness serialises into a valid
 * ustar/pax archive (checksums, sizes, padding, pax record lengths all
 * right), gzip-compressed unless told otherwise; the mutations then land on
 * names, link targets, types, modes and contents, where the reader's
 * decisions are. The input:
 *
 *   OPTIONS \0 { SPEC \0 NAME \0 LINK \0 CONTENT \0 PAX \0 }...
 *
 * OPTIONS: 'r' plain tar (no gzip), '1' or '0' end-of-archive zero blocks
 * (default 2), 'j' junk after them, 't' cut the last 100 bytes. SPEC: the
 * type flag byte ('0' file, '5' dir, '2' symlink, anything else as is),
 * then flags: 'p' the path and 'l' the link target in a pax header even
 * when short, 'u' a long name split into ustar's prefix instead, 'c' a
 * wrong checksum, 'z' a declared size 2 MiB over the content (the caps),
 * 's' one byte short (the stream misaligned), 'x' the mode 0755. PAX: raw
 * records appended to the member's pax header (emitted when non-empty).
 * Contents are text (a part ends at a NUL), which is what a snapshot's
 * files are. Names over 100 bytes go to pax as the writer does. An input starting with
 * the gzip magic or holding a ustar header is fed as it is (the raw
 * tarballs of the corpus, reproducers).
 *
 * The archive is written to a file and unpacked into a private temporary
 * directory ($TMPDIR is pointed at it), which must be empty again
 * afterwards: a tree left behind by a failed unpack is a finding like a
 * crash. */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>
#include <zlib.h>

#include "../../src/core/util.h"
#include "../../src/snapshot/snapshot.h"
#include "../../src/snapshot/snapshot_tar.h"
#include "fuzz.h"

#define MEMBERS_MAX 128 /* past the lowered entry cap below, so it is reached */

static char tmpdir[64];
static char input[128];

static void cleanup(void)
{
    unlink(input);
    rmdir(tmpdir);
}

static void setup(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/rvd-fuzz-tar-XXXXXX");
    if (!mkdtemp(tmpdir))
        abort();
    snprintf(input, sizeof(input), "%s.tar.gz", tmpdir);
    setenv("TMPDIR", tmpdir, 1);
    atexit(cleanup);
    /* smaller caps than the defaults keep each input cheap and put every
     * cap within reach of a 64 KiB input; the cap logic is the same */
    snapshot_set_limits(1u << 20, 4u << 20, 100);
}

static int dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int empty = 1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = 0;
    closedir(d);
    return empty;
}

static void pad(struct strbuf *tar)
{
    static const char zeros[BLOCK];
    strbuf_add(tar, zeros, (BLOCK - tar->len % BLOCK) % BLOCK);
}

/* a fixed-width field: cut at its width, NUL-padded (not terminated when full) */
static void put_field(char *f, size_t width, const char *s)
{
    size_t n = strlen(s);
    memcpy(f, s, n < width ? n : width);
}

/* one header block; name and link as they go in the ustar fields */
static void header(struct strbuf *tar, const char *prefix, const char *name, const char *link,
                   char type, unsigned mode, unsigned long long size, int bad_sum)
{
    struct ustar h;
    memset(&h, 0, sizeof(h));
    put_field(h.name, sizeof(h.name), name);
    put_field(h.prefix, sizeof(h.prefix), prefix);
    put_field(h.linkname, sizeof(h.linkname), link);
    snprintf(h.mode, sizeof(h.mode), "%07o", mode);
    snprintf(h.uid, sizeof(h.uid), "%07o", 0);
    snprintf(h.gid, sizeof(h.gid), "%07o", 0);
    char size12[24];
    snprintf(size12, sizeof(size12), "%011llo", size & 077777777777ull);
    memcpy(h.size, size12, sizeof(h.size));
    snprintf(h.mtime, sizeof(h.mtime), "%011o", 0);
    h.typeflag = type;
    memcpy(h.magic, "ustar", 6);
    memcpy(h.version, "00", 2);
    char sum[16];
    snprintf(sum, sizeof(sum), "%06o", snapshot_header_sum(&h, 0) + (bad_sum ? 1u : 0u));
    memcpy(h.chksum, sum, 7);
    h.chksum[7] = ' ';
    strbuf_add(tar, (const char *)&h, sizeof(h));
}

/* a pax record "LEN key=value\n", LEN counting itself */
static void pax_record(struct strbuf *pax, const char *key, const char *value)
{
    size_t body = strlen(key) + strlen(value) + 3, len = body + 1;
    while (len != body + (size_t)snprintf(NULL, 0, "%zu", len))
        len = body + (size_t)snprintf(NULL, 0, "%zu", len);
    strbuf_addf(pax, "%zu %s=%s\n", len, key, value);
}

static void member(struct strbuf *tar, const char *spec, const char *name, const char *link,
                   const char *content, const char *extra)
{
    char type = spec[0];
    const char *flags = spec + 1;
    size_t clen = strlen(content); /* a part ends at a NUL: text contents only */
    int f_pax_path = strchr(flags, 'p') != NULL, f_pax_link = strchr(flags, 'l') != NULL;
    size_t nlen = strlen(name);
    char prefix[156] = "";
    const char *uname = name;
    if (strchr(flags, 'u') && nlen > 100) {
        /* ustar's split: a '/' with at most 155 bytes before, 100 after */
        const char *cut = strrchr(name, '/');
        while (cut && (size_t)(cut - name) > 155)
            cut = memrchr(name, '/', (size_t)(cut - name));
        if (cut && (size_t)(cut - name) <= 155 && strlen(cut + 1) <= 100) {
            memcpy(prefix, name, (size_t)(cut - name));
            prefix[cut - name] = '\0';
            uname = cut + 1;
        }
    }
    if (!prefix[0] && nlen > 100)
        f_pax_path = 1;
    if (strlen(link) > 100)
        f_pax_link = 1;
    struct strbuf pax = STRBUF_INIT;
    if (f_pax_path)
        pax_record(&pax, "path", name);
    if (f_pax_link)
        pax_record(&pax, "linkpath", link);
    strbuf_adds(&pax, extra);
    if (pax.len) {
        header(tar, "", PAX_HEADER_NAME, "", 'x', 0644, pax.len, 0);
        strbuf_add(tar, pax.buf, pax.len);
        pad(tar);
    }
    strbuf_release(&pax);
    unsigned long long size = clen;
    if (strchr(flags, 'z'))
        size += 2u << 20;
    else if (strchr(flags, 's') && size)
        size--;
    header(tar, prefix, uname, link, type, strchr(flags, 'x') ? 0755 : 0644, size,
           strchr(flags, 'c') != NULL);
    strbuf_add(tar, content, clen);
    pad(tar);
}

static void gzip_into(const struct strbuf *tar, struct strbuf *out)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    uLong bound = deflateBound(&z, tar->len) + 64;
    char *buf = xmalloc(bound);
    z.next_in = (Bytef *)tar->buf;
    z.avail_in = (uInt)tar->len;
    z.next_out = (Bytef *)buf;
    z.avail_out = (uInt)bound;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    strbuf_add(out, buf, z.total_out);
    deflateEnd(&z);
    free(buf);
}

/* the member list of the input, serialised into out */
static void serialise(const uint8_t *data, size_t size, struct strbuf *out)
{
    size_t pos = 0;
    char *opts = fuzz_part(data, size, &pos);
    struct strbuf tar = STRBUF_INIT;
    strbuf_add(&tar, "", 0);
    for (int m = 0; m < MEMBERS_MAX && pos <= size; m++) {
        char *part[5];
        for (int i = 0; i < 5; i++)
            part[i] = fuzz_part(data, size, &pos);
        /* an empty SPEC is no member: the input's last (empty) part */
        if (part[0] && part[0][0])
            member(&tar, part[0], part[1] ? part[1] : "", part[2] ? part[2] : "",
                   part[3] ? part[3] : "", part[4] ? part[4] : "");
        for (int i = 0; i < 5; i++)
            free(part[i]);
    }
    static const char zeros[2 * BLOCK];
    strbuf_add(&tar, zeros, strchr(opts, '0') ? 0 : strchr(opts, '1') ? BLOCK : 2 * BLOCK);
    if (strchr(opts, 'j'))
        strbuf_adds(&tar, "junk after the end");
    if (strchr(opts, 't'))
        tar.len = tar.len > 100 ? tar.len - 100 : 0;
    if (strchr(opts, 'r'))
        strbuf_add(out, tar.buf, tar.len);
    else
        gzip_into(&tar, out);
    strbuf_release(&tar);
    free(opts);
}

static int is_raw_archive(const uint8_t *data, size_t size)
{
    return (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) ||
           (size >= 262 && memcmp(data + 257, "ustar", 5) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!tmpdir[0])
        setup();
    struct strbuf archive = STRBUF_INIT;
    if (is_raw_archive(data, size))
        strbuf_add(&archive, (const char *)data, size);
    else
        serialise(data, size, &archive);
    FILE *f = fopen(input, "wb");
    if (!f || fwrite(archive.buf ? archive.buf : "", 1, archive.len, f) != archive.len || fclose(f))
        abort();
    strbuf_release(&archive);
    char *dir = NULL;
    if (snapshot_unpack(input, &dir) == 0) {
        snapshot_check_tarball_root(input, dir);
        snapshot_remove_tree(dir);
        free(dir);
    }
    if (!dir_is_empty(tmpdir)) {
        fprintf(stderr, "fuzz_snapshot_unpack: %s is not empty after the unpack\n", tmpdir);
        abort();
    }
    return 0;
}
