/* checks_family.c - fix commands that differ by distribution: a run item of
 * checks.yaml may be a mapping of family -> command (debian, fedora, suse,
 * arch). The command of the host's family (fact host.os_family, from
 * os-release ID/ID_LIKE) is printed; a host of another family gets prose
 * naming each family's command, never a command that is not its own (a
 * Rocky machine told `update-initramfs` runs nothing useful). */
#include "checks.h"

#include <string.h>

const char *const family_names[FAMILY_N] = {"debian", "fedora", "suse", "arch"};

/* how the prose names each family */
static const char *const family_titles[FAMILY_N] = {
    "Debian/Ubuntu",
    "Fedora/RHEL/Rocky/Alma",
    "openSUSE/SLES",
    "Arch",
};

int family_index(const char *name)
{
    for (int i = 0; name && i < FAMILY_N; i++)
        if (strcmp(name, family_names[i]) == 0)
            return i;
    return -1;
}

char *family_prose(const struct strlist *cmds)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < cmds->n && i < FAMILY_N; i++)
        if (cmds->v[i][0])
            strbuf_addf(&sb, "%s%s: `%s`", sb.len ? "; " : "", family_titles[i], cmds->v[i]);
    if (!sb.buf)
        strbuf_adds(&sb, "");
    return strbuf_detach(&sb);
}
