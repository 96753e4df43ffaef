/* test_read_errors.c - a snapshot's /.snapshot/read-errors is parsed
 * strictly: only "ERRNO /path" with ERRNO in 1..4095 is replayed; a sign, a
 * huge or zero value, hex or trailing junk makes the line invalid (ignored
 * with a warning), never a guessed or negated errno. */
/* layers: core */
#include <errno.h>
#include <limits.h>

#include "../../src/core/rootfs.h"
#include "sysroot_tree.h"
#include "test.h"

static int parse(const char *line)
{
    int e = -12345;
    const char *p = NULL;
    if (rootfs_parse_read_error(line, &e, &p))
        return -1;
    return p && *p == '/' ? e : -2;
}

static int replay(const char *path)
{
    char *buf = NULL;
    int rc = rootfs_read_str(path, &buf);
    free(buf);
    return rc;
}

int main(void)
{
    CHECK(parse("13 /sys/x") == 13);
    CHECK(parse("5 /a b") == 5); /* the path may hold spaces */
    CHECK(parse("4095 /x") == 4095);
    CHECK(parse("4096 /x") == -1);
    CHECK(parse("-5 /x") == -1);
    CHECK(parse("-2147483648 /x") == -1);
    CHECK(parse("2147483648 /x") == -1);
    CHECK(parse("99999999999999999999 /x") == -1);
    CHECK(parse("0 /x") == -1);
    CHECK(parse("05 /x") == -1);
    CHECK(parse("+5 /x") == -1);
    CHECK(parse("0x5 /x") == -1);
    CHECK(parse(" 5 /x") == -1);
    CHECK(parse("5  /x") == -1);
    CHECK(parse("5x /x") == -1);
    CHECK(parse("5 x") == -1); /* not an absolute path */
    CHECK(parse("5") == -1);
    CHECK(parse("5 ") == -1);
    CHECK(parse("") == -1);
    CHECK(parse("EACCES /x") == -1);

    /* replay: the valid lines give their errno, the others are ignored (the
     * file is then read as it is: here absent, ENOENT) */
    tree_fresh("readerr");
    put("/proc/version", "Linux\n");
    put("/sys/ok", "1\n");
    put("/.snapshot/read-errors", "13 /sys/a\n"
                                  "-5 /sys/b\n"
                                  "-2147483648 /sys/c\n"
                                  "0 /sys/d\n"
                                  "5 /sys/e\n"
                                  "4096 /sys/f\n"
                                  "1 /sys/ok\n");
    CHECK(rootfs_init(root) == 0);
    CHECK(replay("/sys/a") == -EACCES);
    CHECK(replay("/sys/b") == -ENOENT);
    CHECK(replay("/sys/c") == -ENOENT);
    CHECK(replay("/sys/d") == -ENOENT);
    CHECK(replay("/sys/e") == -EIO);
    CHECK(replay("/sys/f") == -ENOENT);
    CHECK(replay("/sys/ok") == -EPERM);
    rootfs_release();
    tree_remove();
    return test_report();
}
