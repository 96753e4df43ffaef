/* fuzz_redact.c - what collect keeps of /etc/passwd, /etc/group and dpkg's
 * status (src/snapshot/snapshot_redact.c): their colon-field and stanza parsers,
 * and the free-text redaction of the markdown summary (redact_text).
 * (The group database that reads them back is fuzz_groupdb.)
 * Input: passwd NUL group NUL dpkg-status NUL user-name. */
#include <stdio.h>

#include "../../probes/probe_groupdb.h"
#include "../../src/snapshot/snapshot_redact.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t pos = 0;
    char *passwd = fuzz_part(data, size, &pos);
    char *group = fuzz_part(data, size, &pos);
    char *status = fuzz_part(data, size, &pos);
    char *user = fuzz_part(data, size, &pos);
    const char *u = user ? user : "grace";
    unsigned long gids[] = {44, 109, 1000};

    char *r = redact_passwd(passwd, u);
    free(r);
    if (group) {
        r = redact_group(group, u, gids, sizeof(gids) / sizeof(gids[0]));
        free(r);
    }
    if (status) {
        r = redact_dpkg_status(status);
        free(r);
    }
    /* every parser also on the first part */
    r = redact_group(passwd, u, gids, 0);
    free(r);
    r = redact_dpkg_status(passwd);
    free(r);
    redact_dpkg_keep(u);
    struct redact_word w[] = {{u, "<user>", 0}, {group ? group : "host", "<host>", 1}};
    r = redact_text(passwd, w, 2);
    free(r);
    free(passwd);
    free(group);
    free(status);
    free(user);
    return 0;
}
