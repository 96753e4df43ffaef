/* test_snapshot.c - collect's tarballs: a pack/unpack round trip (files,
 * nested directories, relative symlinks, an empty file, names and link
 * targets past ustar's 100 bytes), byte-identical repeated packs, the caps,
 * the end-of-archive rule, a removal that does not follow symlinks, a
 * staging write error that fails the recording, and the redaction of the
 * user and package databases.
 * Hostile archives from a real tar writer are in tests/snapshot.sh. */
/* layers: core snapshot */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../../src/core/rootfs.h"
#include "../../src/snapshot/snapshot.h"
#include "../../src/snapshot/snapshot_redact.h"
#include "../../src/core/util.h"
#include "test.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        strbuf_add(&sb, buf, n);
    fclose(f);
    if (!sb.buf)
        strbuf_add(&sb, "", 0);
    if (len)
        *len = sb.len;
    return strbuf_detach(&sb);
}

static void spit(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fwrite(data, 1, len, f);
    fclose(f);
}

static void mkdir_p(const char *dir)
{
    char *p = xstrdup(dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
    free(p);
}

static void put(const char *root, const char *rel, const char *text)
{
    char *path = xasprintf("%s/%s", root, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    mkdir_p(path);
    *slash = '/';
    spit(path, text, strlen(text));
    free(path);
}

static void link_at(const char *root, const char *rel, const char *target)
{
    char *path = xasprintf("%s/%s", root, rel);
    if (symlink(target, path) < 0)
        fprintf(stderr, "symlink %s: %s\n", path, strerror(errno));
    free(path);
}

static void check_file(const char *root, const char *rel, const char *want)
{
    char *path = xasprintf("%s/%s", root, rel);
    char *got = slurp(path, NULL);
    CHECK_STR(got, want);
    free(got);
    free(path);
}

static void check_link(const char *root, const char *rel, const char *want)
{
    char *path = xasprintf("%s/%s", root, rel);
    char buf[PATH_MAX];
    ssize_t n = readlink(path, buf, sizeof(buf) - 1);
    buf[n < 0 ? 0 : n] = '\0';
    CHECK_STR(n < 0 ? "(not a link)" : buf, want);
    free(path);
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* gunzip src into dst, dropping the last `cut` bytes */
static void gunzip_cut(const char *src, const char *dst, size_t cut)
{
    gzFile gz = gzopen(src, "rb");
    struct strbuf sb = STRBUF_INIT;
    char buf[4096];
    int n;
    while ((n = gzread(gz, buf, sizeof(buf))) > 0)
        strbuf_add(&sb, buf, (size_t)n);
    gzclose(gz);
    spit(dst, sb.buf, sb.len > cut ? sb.len - cut : 0);
    strbuf_release(&sb);
}

static int unpack_ok(const char *tar)
{
    char *dir = NULL;
    int rc = snapshot_unpack(tar, &dir);
    if (rc == 0) {
        snapshot_remove_tree(dir);
        free(dir);
    }
    return rc == 0;
}

/* collect's path: rootfs.c records what is read from a sysfs-like root with
 * relative and absolute symlinks; the packed and unpacked snapshot must give
 * the same answers to the same reads */
static void test_record_replay(const char *base)
{
    char *root = xasprintf("%s/fake-root", base);
    const char *dev = "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0";
    char *vendor = xasprintf("%s/vendor", dev), *card = xasprintf("%s/drm/card0/dev", dev);
    put(root, vendor, "0x1002\n");
    put(root, card, "226:0\n");
    put(root, "opt/rocm-6.2.0/.info/version", "6.2.0-66\n");
    put(root, "sys/class/drm/.keep", "");
    link_at(root, "sys/class/drm/card0",
            "../../devices/pci0000:00/0000:00:01.1/0000:01:00.0/drm/card0");
    char *devlink = xasprintf("%s/%s/drm/card0/device", root, dev);
    symlink("../../../0000:01:00.0", devlink);
    free(devlink);
    link_at(root, "opt/rocm", "/opt/rocm-6.2.0"); /* absolute, as on a live host */

    const char *reads[] = {"/sys/class/drm/card0/device/vendor", "/sys/class/drm/card0/dev",
                           "/opt/rocm/.info/version"};
    char *stage = xasprintf("%s/stage", base);
    char *got[3] = {NULL, NULL, NULL};
    char *real_live = NULL;
    struct strlist names_live = STRLIST_INIT;
    CHECK(rootfs_init(root) == 0);
    CHECK(rootfs_record_start(stage) == 0);
    for (size_t i = 0; i < 3; i++)
        CHECK(rootfs_read_str(reads[i], &got[i]) == 0);
    CHECK(rootfs_list("/sys/class/drm", &names_live) == 0);
    CHECK(rootfs_realpath("/sys/class/drm/card0/device", &real_live) == 0);
    rootfs_record_stop();
    rootfs_release();

    char *tar = xasprintf("%s/recorded.tar.gz", base);
    CHECK(snapshot_pack(stage, tar) == 0);
    char *dir = NULL;
    CHECK(snapshot_unpack(tar, &dir) == 0);
    if (dir && rootfs_init(dir) == 0) {
        for (size_t i = 0; i < 3; i++) {
            char *again = NULL;
            CHECK(rootfs_read_str(reads[i], &again) == 0);
            CHECK_STR(again, got[i]);
            free(again);
        }
        struct strlist names = STRLIST_INIT;
        CHECK(rootfs_list("/sys/class/drm", &names) == 0);
        CHECK(names.n == names_live.n && names.n > 0 && strcmp(names.v[0], names_live.v[0]) == 0);
        strlist_release(&names);
        char *real = NULL;
        CHECK(rootfs_realpath("/sys/class/drm/card0/device", &real) == 0);
        CHECK_STR(real, real_live);
        CHECK_STR(real, "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0");
        free(real);
        rootfs_release();
    }
    if (dir) {
        snapshot_remove_tree(dir);
        free(dir);
    }
    for (size_t i = 0; i < 3; i++)
        free(got[i]);
    free(real_live);
    strlist_release(&names_live);
    free(tar);
    free(stage);
    free(vendor);
    free(card);
    free(root);
}

/* a staging write that fails (here: a file where a directory must go) is
 * reported by rootfs_record_stop, not lost */
static void test_record_error(const char *base)
{
    char *root = xasprintf("%s/err-root", base);
    put(root, "sys/class/x/value", "1\n");
    char *stage = xasprintf("%s/err-stage", base);
    put(stage, "sys", "a file where the staging tree needs a directory");
    char *got = NULL;
    CHECK(rootfs_init(root) == 0);
    CHECK(rootfs_record_start(stage) == 0);
    CHECK(rootfs_read_str("/sys/class/x/value", &got) == 0); /* the read itself works */
    CHECK(rootfs_record_stop() == -EIO);
    /* and a clean recording afterwards reports nothing */
    char *stage2 = xasprintf("%s/err-stage2", base);
    CHECK(rootfs_record_start(stage2) == 0);
    free(got);
    got = NULL;
    CHECK(rootfs_read_str("/sys/class/x/value", &got) == 0);
    CHECK(rootfs_record_stop() == 0);
    rootfs_release();
    free(got);
    free(stage2);
    free(stage);
    free(root);
}

static void test_redact(const char *base)
{
    /* passwd: the user's own line only */
    char *r = redact_passwd("root:x:0:0:root:/root:/bin/bash\n"
                            "alice:x:1000:1000:Alice A,,,:/home/alice:/bin/zsh\n"
                            "bob:x:1001:1001::/home/bob:/bin/sh\n",
                            "alice");
    CHECK_STR(r, "alice:x:1000:1000:Alice A,,,:/home/alice:/bin/zsh\n");
    free(r);
    r = redact_passwd("root:x:0:0:root:/root:/bin/bash\n", NULL);
    CHECK_STR(r, "");
    free(r);
    /* group: render and video, the gids asked for, the groups listing the
     * user; member lists keep only the user */
    unsigned long gids[] = {1000, 993};
    r = redact_group("root:x:0:\nvideo:x:44:bob,alice\nrender:x:110:bob\n"
                     "alice:x:1000:\nkfd:x:993:\ndocker:x:998:bob,alice\nsudo:x:27:bob\n",
                     "alice", gids, 2);
    CHECK_STR(r, "video:x:44:alice\nrender:x:110:\nalice:x:1000:\nkfd:x:993:\n"
                 "docker:x:998:alice\n");
    free(r);
    /* dpkg: the GPU stack's paragraphs, whole */
    r = redact_dpkg_status("Package: bash\nStatus: install ok installed\nVersion: 5.2\n\n"
                           "Package: libamdhip64-5\nStatus: install ok installed\n"
                           "Version: 5.2.3-8\nDescription: HIP\n Package: not-a-field\n\n"
                           "Package: openssh-server\nVersion: 1\n\n"
                           "Package: rocminfo\nVersion: 5.2.3-3\n");
    CHECK_STR(r, "Package: libamdhip64-5\nStatus: install ok installed\nVersion: 5.2.3-8\n"
                 "Description: HIP\n Package: not-a-field\n\n"
                 "Package: rocminfo\nVersion: 5.2.3-3\n\n");
    free(r);
    CHECK(redact_dpkg_keep("libamdhip64-6"));
    CHECK(!redact_dpkg_keep("libc6"));

    /* on a staging tree: the identity and devnodes queries name the user and
     * the gids; /etc/group reached through a symlink inside the stage */
    char *stage = xasprintf("%s/redact-stage", base);
    put(stage, ".snapshot/identity", "user alice\nuid 1000\ngid 1000\ngroups 1000 44\n");
    put(stage, ".snapshot/devnodes", "/dev/kfd 0660 0 993\n/dev/dri/renderD128 0660 0 110\n");
    put(stage, "etc/passwd",
        "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n"
        "bob:x:1001:1001::/home/bob:/bin/sh\n");
    put(stage, "usr/etc/group",
        "root:x:0:\nvideo:x:44:alice,bob\nrender:x:110:\nalice:x:1000:\nbob:x:1001:\n"
        "kfd:x:993:\nsudo:x:27:bob\n");
    link_at(stage, "etc/group", "/usr/etc/group");
    put(stage, "var/lib/dpkg/status", "Package: bash\nVersion: 1\n\nPackage: rocm-core\n");
    CHECK(snapshot_redact(stage) == 0);
    size_t len;
    char *f = xasprintf("%s/etc/passwd", stage), *t = slurp(f, &len);
    CHECK_STR(t, "alice:x:1000:1000::/home/alice:/bin/sh\n");
    free(t);
    free(f);
    f = xasprintf("%s/usr/etc/group", stage);
    t = slurp(f, &len);
    CHECK_STR(t, "video:x:44:alice\nrender:x:110:\nalice:x:1000:\nkfd:x:993:\n");
    free(t);
    free(f);
    f = xasprintf("%s/var/lib/dpkg/status", stage);
    t = slurp(f, &len);
    CHECK_STR(t, "Package: rocm-core\n\n");
    free(t);
    free(f);
    free(stage);
}

/* links through links, as a directory sysroot: the host would resolve
 * each one to base/escape-target (the root's parent) or /escape-target;
 * the in-root reader must read root/escape-target. */
static void test_link_shapes(const char *base)
{
    char *t = xasprintf("%s/shapes", base);
    put(base, "escape-target", "outside\n");
    put(t, "escape-target", "inside\n");
    put(t, "sys/class/hello", "hello\n");
    put(t, "a/b/.keep", "");
    link_at(t, "a/b/up", "../..");
    link_at(t, "x", "a/b/up/../escape-target");
    link_at(t, "sys/c1", "c2");
    link_at(t, "sys/c2", "c3");
    link_at(t, "sys/c3", "..");
    link_at(t, "sys/y", "c1/../escape-target");
    link_at(t, "abs", "/escape-target");
    link_at(t, "rootlink", ".");
    link_at(t, "sys/class/z", "../../rootlink/../escape-target");
    link_at(t, "sys/class/deep", "../../a/b/up/a/b/up/a/b/up/../../escape-target");
    CHECK(rootfs_init(t) == 0);
    const char *via[] = {"/x", "/sys/y", "/abs", "/sys/class/z", "/sys/class/deep"};
    for (size_t i = 0; i < sizeof(via) / sizeof(via[0]); i++) {
        char *got = NULL;
        int rc = rootfs_read_str(via[i], &got);
        CHECK(rc == 0);
        CHECK_STR(rc == 0 ? got : "(unread)", "inside");
        free(got);
        char *real = NULL;
        CHECK(rootfs_realpath(via[i], &real) == 0);
        CHECK_STR(real ? real : "(none)", "/escape-target");
        free(real);
    }
    rootfs_release();

    /* packed as collect does, each of those links is written as the path
     * to where the reader resolves it, so the snapshot is accepted and the
     * kernel, given a host path below it, stays inside too */
    char *tar = xasprintf("%s/shapes.tar.gz", base), *dir = NULL;
    put(t, ".snapshot/meta", "tool rocm-vla-doctor 0.1.0\n");
    CHECK(snapshot_pack(t, tar) == 0);
    CHECK(snapshot_unpack(tar, &dir) == 0);
    if (dir) {
        char *dreal = realpath(dir, NULL);
        for (size_t i = 0; i < sizeof(via) / sizeof(via[0]); i++) {
            char *host = xasprintf("%s%s", dir, via[i]);
            char *hreal = realpath(host, NULL);
            char *want = xasprintf("%s/escape-target", dreal);
            CHECK_STR(hreal ? hreal : "(unresolved)", want);
            free(want);
            free(hreal);
            free(host);
        }
        check_link(dir, "a/b/up", "../.."); /* stays inside: kept verbatim */
        check_link(dir, "x", "escape-target");
        check_link(dir, "sys/y", "../escape-target");
        free(dreal);
        snapshot_remove_tree(dir);
        free(dir);
    }
    free(tar);
    free(t);
}

int main(void)
{
    char base_tmpl[] = "/tmp/test_snapshot.XXXXXX";
    char *base = mkdtemp(base_tmpl);
    if (!base)
        return 1;
    /* unpacked directories go under base too, so nothing is left in /tmp */
    char *tmpdir = xasprintf("%s/tmp", base);
    mkdir(tmpdir, 0700);
    setenv("TMPDIR", tmpdir, 1);

    char *tree = xasprintf("%s/tree", base);
    mkdir(tree, 0755);
    const char *long_dir = "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/"
                           "0000:03:00.0/0000:04:00.0/0000:05:00.0/drm/card0/device";
    char *long_file = xasprintf("%s/mem_info_vram_total", long_dir); /* > 100 */
    char *very_long = xasprintf("%s/%0200d/x", long_dir, 7);         /* > 255: pax */
    put(tree, "a.txt", "hello\n");
    put(tree, "empty", "");
    put(tree, "d1/d2/nested.txt", "nested\nline two\n");
    put(tree, long_file, "68702699520\n");
    put(tree, very_long, "pax path\n");
    put(tree, ".snapshot/groups", "render video\n");
    put(tree, "bin/tool", "#!/bin/sh\n");
    char *tool = xasprintf("%s/bin/tool", tree);
    chmod(tool, 0755);
    free(tool);
    char *emptydir = xasprintf("%s/sys/class/empty", tree);
    mkdir_p(emptydir);
    free(emptydir);
    link_at(tree, "d1/link", "d2/nested.txt");
    link_at(tree, "d1/d2/up", "../../a.txt");
    char *long_target = xasprintf("../../%s", long_dir); /* > 100: pax linkpath */
    put(tree, "sys/class/drm/.keep", "");
    link_at(tree, "sys/class/drm/card0", long_target);
    /* a live host's absolute links and `..` past / are rewritten to what
     * rootfs.c resolves them to inside the root */
    put(tree, "opt/.keep", "");
    put(tree, "usr/lib/.keep", "");
    link_at(tree, "opt/rocm", "/etc/alternatives/rocm");
    link_at(tree, "usr/lib/past", "../../../../lib/y");
    link_at(tree, "usr/lib/root", "/");
    link_at(tree, "toroot", "/");
    link_at(tree, "lib", "usr/lib");

    /* pack twice: byte-identical */
    char *t1 = xasprintf("%s/one.tar.gz", base), *t2 = xasprintf("%s/two.tar.gz", base);
    CHECK(snapshot_pack(tree, t1) == 0);
    CHECK(snapshot_pack(tree, t2) == 0);
    size_t l1 = 0, l2 = 0;
    char *b1 = slurp(t1, &l1), *b2 = slurp(t2, &l2);
    CHECK(b1 && b2 && l1 > 0 && l1 == l2 && memcmp(b1, b2, l1) == 0);
    CHECK(b1 && (unsigned char)b1[0] == 0x1f && (unsigned char)b1[1] == 0x8b);
    free(b1);
    free(b2);
    CHECK(snapshot_is_tarball(t1));
    CHECK(!snapshot_is_tarball(tree));
    /* replacing an existing file works and leaves no temporary behind */
    CHECK(snapshot_pack(tree, t2) == 0);

    /* unpack and compare */
    char *dir = NULL;
    CHECK(snapshot_unpack(t1, &dir) == 0);
    if (dir) {
        CHECK(str_starts(dir, tmpdir));
        struct stat st;
        CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
        check_file(dir, "a.txt", "hello\n");
        check_file(dir, "empty", "");
        check_file(dir, "d1/d2/nested.txt", "nested\nline two\n");
        check_file(dir, long_file, "68702699520\n");
        check_file(dir, very_long, "pax path\n");
        check_file(dir, ".snapshot/groups", "render video\n");
        check_link(dir, "d1/link", "d2/nested.txt");
        check_link(dir, "d1/d2/up", "../../a.txt");
        check_link(dir, "sys/class/drm/card0", long_target);
        check_file(dir, "d1/link", "nested\nline two\n"); /* resolves in the tree */
        check_link(dir, "opt/rocm", "../etc/alternatives/rocm");
        check_link(dir, "usr/lib/past", "../../lib/y");
        check_link(dir, "usr/lib/root", "../..");
        check_link(dir, "toroot", ".");
        check_link(dir, "lib", "usr/lib");
        char *p = xasprintf("%s/bin/tool", dir);
        CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0755);
        free(p);
        p = xasprintf("%s/a.txt", dir);
        CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0644);
        free(p);
        p = xasprintf("%s/sys/class/empty", dir);
        CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode));
        free(p);
        snapshot_remove_tree(dir);
        CHECK(!exists(dir));
        free(dir);
    }

    /* an uncompressed tar is read too; the end-of-archive rule */
    char *raw = xasprintf("%s/raw.tar", base);
    gunzip_cut(t1, raw, 0);
    CHECK(unpack_ok(raw));
    gunzip_cut(t1, raw, 512); /* one zero block, then EOF: accepted, as tar does */
    CHECK(unpack_ok(raw));
    gunzip_cut(t1, raw, 1024); /* complete members, no end marker: refused */
    CHECK(!unpack_ok(raw));
    gunzip_cut(t1, raw, 1024 + 100); /* cut inside the last member */
    CHECK(!unpack_ok(raw));

    /* the caps, lowered so they are cheap to reach */
    snapshot_set_limits(0, 0, 5);
    CHECK(!unpack_ok(t1));
    snapshot_set_limits(8, 0, 0); /* a.txt is 6 bytes, others are longer */
    CHECK(!unpack_ok(t1));
    snapshot_set_limits(0, 30, 0);
    CHECK(!unpack_ok(t1));
    snapshot_set_limits(0, 0, 5);
    char *t3 = xasprintf("%s/three.tar.gz", base);
    CHECK(snapshot_pack(tree, t3) != 0);
    CHECK(!exists(t3));
    snapshot_set_limits(0, 0, 0);
    CHECK(unpack_ok(t1));

    /* not over a directory; not into a missing directory; no temp left */
    CHECK(snapshot_pack(tree, tree) != 0);
    char *missing = xasprintf("%s/no/such/dir/x.tar.gz", base);
    CHECK(snapshot_pack(tree, missing) != 0);
    free(missing);

    /* garbage and empty files are refused */
    char *junk = xasprintf("%s/junk", base);
    spit(junk, "this is not a tarball at all\n", 29);
    CHECK(!unpack_ok(junk));
    spit(junk, "", 0);
    CHECK(!unpack_ok(junk));
    CHECK(!unpack_ok(tree)); /* a directory is not a tarball */
    free(junk);

    /* every failed unpack removed its directory */
    struct strlist left = STRLIST_INIT;
    DIR *d = opendir(tmpdir);
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.')
            strlist_add(&left, de->d_name);
    if (d)
        closedir(d);
    CHECK(left.n == 0);
    strlist_release(&left);
    /* and pack left no temporaries next to its outputs */
    d = opendir(base);
    int tmps = 0;
    while (d && (de = readdir(d)))
        if (strstr(de->d_name, ".tmp."))
            tmps++;
    if (d)
        closedir(d);
    CHECK(tmps == 0);

    /* removal does not follow symlinks out of the tree */
    char *victim = xasprintf("%s/victim", base);
    put(victim, "keep.txt", "keep\n");
    char *doomed = xasprintf("%s/doomed", base);
    put(doomed, "sub/f", "x");
    link_at(doomed, "out", victim);
    link_at(doomed, "sub/out", "../../victim");
    snapshot_remove_tree(doomed);
    CHECK(!exists(doomed));
    check_file(victim, "keep.txt", "keep\n");
    /* nor a tree whose root is itself a symlink */
    char *rootlink = xasprintf("%s/rootlink", base);
    symlink(victim, rootlink);
    snapshot_remove_tree(rootlink);
    check_file(victim, "keep.txt", "keep\n");

    test_record_replay(base);
    test_record_error(base);
    test_redact(base);
    test_link_shapes(base);

    snapshot_remove_tree(base);
    CHECK(!exists(base));
    free(rootlink);
    free(victim);
    free(doomed);
    free(raw);
    free(t1);
    free(t2);
    free(t3);
    free(long_target);
    free(long_file);
    free(very_long);
    free(tree);
    free(tmpdir);
    return test_report();
}
