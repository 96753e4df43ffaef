/* explain_fix.h - `explain ID`: a check's rule summaries and fixes with
 * their placeholders named in words (explain runs no probe, so there is no
 * machine's value to fill in) and what each placeholder stands for. */
#ifndef RVD_EXPLAIN_FIX_H
#define RVD_EXPLAIN_FIX_H

#include "core/checks.h"

/* append the rules (each with its summary) and the fixes of c to sb */
void explain_rules_fixes(struct strbuf *sb, const struct check *c);

#endif
