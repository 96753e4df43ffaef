/* test_util_hostile.c - util's defences against hostile input:
 * str_sanitize, the one filter between machine text and a terminal (every
 * control, C1, bidi and invalid byte becomes a visible escape; printable
 * text, ASCII and other UTF-8, is kept as it is), and read_user_file, which
 * refuses a FIFO, a device or a directory without blocking. */
/* layers: core */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/core/util.h"
#include "test.h"

static int same(const char *in, int keep_nl, const char *want)
{
    char *got = str_sanitize(in, keep_nl);
    int ok = strcmp(got, want) == 0;
    if (!ok)
        fprintf(stderr, "str_sanitize: got '%s', want '%s'\n", got, want);
    free(got);
    return ok;
}

int main(void)
{
    CHECK(same("plain text, 1.0 [x] {y}", 0, "plain text, 1.0 [x] {y}"));
    CHECK(same("", 0, ""));
    CHECK(same("gfx942 \xc3\xa9t\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80", 0,
               "gfx942 \xc3\xa9t\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"));
    /* C0 and DEL */
    CHECK(same("a\033[2Jb", 0, "a\\x1b[2Jb"));
    CHECK(same("\a\b\x7f\r", 0, "\\x07\\x08\\x7f\\x0d"));
    CHECK(same("l1\nl2\tx", 0, "l1\\x0al2\\x09x"));
    CHECK(same("l1\nl2\tx\r", 1, "l1\nl2\tx\\x0d")); /* newlines kept, CR is not */
    /* C1: U+0080, U+009B (CSI), U+009F; U+00A0 is printable */
    CHECK(same("\xc2\x80\xc2\x9b"
               "31m\xc2\x9f\xc2\xa0",
               0, "\\u0080\\u009b31m\\u009f\xc2\xa0"));
    /* bidi: embeddings/overrides U+202A-U+202E, isolates U+2066-U+2069, marks */
    CHECK(same("\xe2\x80\xaa\xe2\x80\xae\xe2\x81\xa6\xe2\x81\xa9", 0,
               "\\u202a\\u202e\\u2066\\u2069"));
    CHECK(same("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 0, "\\u200e\\u200f\\u061c"));
    CHECK(same("\xe2\x80\xa9\xe2\x81\xaa", 0, "\xe2\x80\xa9\xe2\x81\xaa")); /* neighbours kept */
    /* invalid UTF-8: lone bytes, overlongs, surrogates, beyond U+10FFFF, cut */
    CHECK(same("\xff\xfe", 0, "\\xff\\xfe"));
    CHECK(same("\xc0\xaf", 0, "\\xc0\\xaf"));
    CHECK(same("\xed\xa0\x80", 0, "\\xed\\xa0\\x80"));
    CHECK(same("\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80"));
    CHECK(same("ab\xe2\x82", 0, "ab\\xe2\\x82"));
    CHECK(same("\x80x", 0, "\\x80x"));
    /* str_safe_next classifies without copying */
    int unsafe;
    unsigned cp;
    CHECK(str_safe_next("\xc2\x9b", &unsafe, &cp) == 2 && unsafe == 1 && cp == 0x9b);
    CHECK(str_safe_next("\xff", &unsafe, &cp) == 1 && unsafe == 2 && cp == 0xff);
    CHECK(str_safe_next("\xe2\x9c\x93", &unsafe, &cp) == 3 && unsafe == 0 && cp == 0x2713);
    CHECK(str_safe_next("", &unsafe, &cp) == 0);
    /* str_split_fields: empty fields kept, what follows the last is dropped */
    char row[] = "elf\t\tgfx90a\tx\ty", one[] = "";
    char *fl[3] = {0};
    CHECK(str_split_fields(row, fl, 3) == 3 && !strcmp(fl[0], "elf") && !*fl[1] &&
          !strcmp(fl[2], "gfx90a"));
    CHECK(str_split_fields(one, fl, 3) == 1 && fl[0] == one);
    /* user_file_strerror names the refusal of non-regular files */
    CHECK(strstr(user_file_strerror(-USER_FILE_NOT_REGULAR), "not a regular file") != NULL);

    /* read_user_file: a FIFO without a writer is refused at once (a
     * blocking open would hang this test), so are a device and a directory */
    char dir[] = "/tmp/test_util_hostile.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *fifo = xasprintf("%s/fifo", dir), *reg = xasprintf("%s/reg", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    FILE *f = fopen(reg, "w");
    CHECK(f && fputs("abc", f) >= 0 && fclose(f) == 0);
    char *buf = NULL;
    size_t len = 0;
    CHECK(read_user_file(fifo, 100, &buf, &len) == -USER_FILE_NOT_REGULAR);
    CHECK(read_user_file("/dev/null", 100, &buf, &len) == -USER_FILE_NOT_REGULAR);
    CHECK(read_user_file(dir, 100, &buf, &len) == -EISDIR);
    CHECK(read_user_file(reg, 2, &buf, &len) == -EFBIG);
    CHECK(read_user_file(reg, 100, &buf, &len) == 0 && len == 3 && strcmp(buf, "abc") == 0);
    free(buf);
    unlink(fifo);
    unlink(reg);
    rmdir(dir);
    free(fifo);
    free(reg);
    return test_report();
}
