/* checks_load_msg.h - load a checks text in a unit test and keep what the
 * loader printed: the tests compare its messages. */
#ifndef RVD_CHECKS_LOAD_MSG_H
#define RVD_CHECKS_LOAD_MSG_H

#include "../../src/core/checks.h"

#include <stdio.h>
#include <unistd.h>

/* 0 when it loads, else -1 with the loader's message (stderr) in msg */
static inline int checks_load_msg(const char *text, size_t len, char *msg, size_t n)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), 2);
    struct checkset cs;
    int rc = checks_load_string(&cs, "t.yaml", text, len);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t got = fread(msg, 1, n - 1, tmp);
    msg[got] = '\0';
    fclose(tmp);
    if (rc == 0)
        checks_release(&cs);
    return rc;
}

#endif
