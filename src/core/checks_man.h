/* checks_man.h - the CHECKS list of rocm-vla-doctor(1), written from a
 * loaded checks.yaml so that the manual cannot drift from the rules. */
#ifndef RVD_CHECKS_MAN_H
#define RVD_CHECKS_MAN_H

#include <stdio.h>

#include "checks.h"

/* the first and last lines of the generated block in the page */
#define CHECKS_MAN_BEGIN ".\\\" BEGIN CHECKS: generated from checks.yaml by 'make man'; do not edit"
#define CHECKS_MAN_END ".\\\" END CHECKS"

/* the block: the two marker lines around one mdoc tag list with an entry
 * per check (id, level, title, why, how, every rule, fix) */
void checks_man_print(const struct checkset *cs, FILE *out);

#endif
