/* fuzz_snapshot_unpack.c - the snapshot tarball reader (src/snapshot/snapshot_unpack.c):
 * gzip, ustar/GNU/pax headers, names, links, caps. The input is written to a
 * file and unpacked into a private temporary directory ($TMPDIR is pointed
 * at it), which must be empty again afterwards: a tree left behind by a
 * failed unpack is a finding like a crash. */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include "../../src/snapshot/snapshot.h"
#include "fuzz.h"

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
    /* smaller caps than the defaults keep each input cheap; the cap logic
     * is the same */
    snapshot_set_limits(1u << 20, 4u << 20, 2000);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!tmpdir[0])
        setup();
    FILE *f = fopen(input, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
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
