/* snapshot.c - placeholder until the tarball code is written */
#include "snapshot.h"

#include "util.h"

int snapshot_unpack(const char *tarball, char **dir_out)
{
    (void)tarball;
    (void)dir_out;
    return error("snapshot tarballs are not supported yet");
}

void snapshot_remove_tree(const char *dir)
{
    (void)dir;
}

int snapshot_pack(const char *dir, const char *out_path)
{
    (void)dir;
    (void)out_path;
    return error("snapshot tarballs are not supported yet");
}

int snapshot_is_tarball(const char *path)
{
    (void)path;
    return 0;
}
