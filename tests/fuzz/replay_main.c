/* replay_main.c - a main() for the fuzz harnesses without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file named on the command line, and on
 * every regular file under each directory named (one level, as the corpora
 * and crash directories are flat). tests/fuzz_replay.sh runs it under gcc
 * (and ASan+UBSan in `make asan-test`) over tests/fuzz/corpus/<harness>/ and
 * tests/fuzz/crashes/<harness>/, so every corpus file and every reproducer is
 * a regression test. Prints "replayed N" and exits 0; a crash is the
 * sanitizer's (or the signal's) exit status. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            uint8_t *nb = realloc(buf, cap);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        fprintf(stderr, "replay: %s: read error\n", path);
        free(buf);
        return -1;
    }
    /* an exact-size copy, so that ASan sees a read one past the input */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact)
        abort();
    memcpy(exact, buf, n);
    free(buf);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int count = 0, errors = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            errors++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            errors += replay_file(argv[i]) < 0;
            count++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            errors++;
            continue;
        }
        char **names = NULL;
        size_t n = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char **nn = realloc(names, (n + 1) * sizeof(*names));
            if (!nn)
                abort();
            names = nn;
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[n] = malloc(len);
            if (!names[n])
                abort();
            snprintf(names[n], len, "%s/%s", argv[i], e->d_name);
            n++;
        }
        closedir(d);
        if (n) /* qsort wants a valid pointer even for no elements */
            qsort(names, n, sizeof(*names), name_cmp);
        for (size_t j = 0; j < n; j++) {
            if (stat(names[j], &st) == 0 && S_ISREG(st.st_mode)) {
                errors += replay_file(names[j]) < 0;
                count++;
            }
            free(names[j]);
        }
        free(names);
    }
    printf("replayed %d\n", count);
    return errors ? 2 : 0;
}
