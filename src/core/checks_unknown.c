/* checks_unknown.c - the one message for a check id the set lacks
 * (`explain kfd`, `--only kfd.acess`): the ids that start with the typed
 * word, else the closest id by edit distance, so that a typo or a prefix
 * finds the check without a trip to `list`. */
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "escape.h"
#include "suggest.h"
#include "util.h"

/* at most this many ids are listed after "ids starting with": a prefix
 * such as "gpu" matches dozens, and the line should stay a hint */
#define UNKNOWN_PREFIX_LIST_MAX 8

int checks_say_unknown(const struct checkset *cs, const char *id)
{
    struct strbuf sb = STRBUF_INIT;
    size_t np = 0, len = strlen(id);
    const char *first = NULL;
    for (size_t i = 0; len && i < cs->n; i++) {
        if (strncmp(cs->v[i].id, id, len) != 0)
            continue;
        first = first ? first : cs->v[i].id;
        if (np < UNKNOWN_PREFIX_LIST_MAX)
            strbuf_addf(&sb, "%s%s", np ? ", " : "", cs->v[i].id);
        np++;
    }
    if (np > UNKNOWN_PREFIX_LIST_MAX)
        strbuf_addf(&sb, " and %zu more", np - UNKNOWN_PREFIX_LIST_MAX);
    char hint[RULE_ID_MAX * 2];
    struct suggest sg;
    suggest_init(&sg, id, hint, sizeof(hint));
    for (size_t i = 0; !first && i < cs->n; i++)
        suggest_consider(&sg, cs->v[i].id);
    char *safe = str_sanitize(id, 0);
    if (first)
        error("no check named '%s' (did you mean '%s'? ids starting with '%s': %s)", safe, first,
              safe, sb.buf);
    else if (suggest_best(&sg))
        error("no check named '%s' (did you mean '%s'? see 'rocm-vla-doctor list')", safe, hint);
    else
        error("no check named '%s' (see 'rocm-vla-doctor list')", safe);
    free(safe);
    strbuf_release(&sb);
    return -1;
}
