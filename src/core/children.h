/* children.h - the doctor's child process groups (the torch probe, the
 * Python query, the GPU isolation children) are the doctor's to end
 * (issue 30): each is recorded while it runs, and on SIGINT, SIGTERM or
 * SIGHUP (tmpdirs.c's handler) every one is sent SIGTERM, then SIGKILL
 * after a grace period. The doctor is a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so a descendant that left its group with
 * setsid() becomes the doctor's child when its parent ends, and is found
 * in /proc by its parent pid and ended too. Only async-signal-safe calls
 * run in the handler. */
#ifndef RVD_CHILDREN_H
#define RVD_CHILDREN_H

#include <sys/types.h>

/* become a subreaper; the process that calls it owns the records */
void children_start(void);
/* record / forget a child that leads its own process group */
void children_add(pid_t pgid);
void children_forget(pid_t pgid);
/* from the signal handler: end every recorded group and every orphan
 * handed to us (TERM, a grace period, then KILL); nothing in a child */
void children_end_all(void);

#endif
