/* fact_catalog.h - every fact a probe can produce, declared by the probes.
 *
 * Each probe of the table (probe_table.c) has the list of facts it may set,
 * with their types (fact_catalog.c, by probe name); a fact may always be
 * unknown instead.
 * Names with a part in angle brackets are patterns:
 *   <i>      a decimal index (gpu.<i>.vram_bytes, runtime.dev.<i>.name)
 *   <probe>  the name of a probe in the table (probe.<probe>.status)
 *   <VAR>    an environment variable name (env.var.<VAR>)
 * checks.yaml is validated against this catalogue before any probe runs, so
 * a misspelt fact is a load error, never a check that silently skips. */
#ifndef RVD_FACT_CATALOG_H
#define RVD_FACT_CATALOG_H

#include <stddef.h>
#include <stdio.h>

#include "../src/core/checks.h"
#include "../src/core/fact.h"

struct fact_decl {
    const char *name; /* NULL ends a list */
    enum fact_type type;
};

/* a probe of the table that declares no facts (a bug), or NULL */
const char *fact_catalog_missing(void);

/* does a declared name (possibly a pattern) match a concrete fact name? */
int fact_pattern_match(const char *pattern, const char *name);
/* the declaration a fact name matches: 0 and *out, or -1 when no probe
 * declares it */
int fact_catalog_find(const char *name, const struct fact_decl **out, const char **probe);
/* the declared name closest to a misspelt one (edit distance), or NULL;
 * per_gpu also offers "gpu.<name>" for each "gpu.<i>.<name>" */
const char *fact_catalog_suggest(const char *name, int per_gpu, char *buf, size_t n);
/* the catalogue as the checks loader's schema (src/core/checks.h): main()
 * and the tests that load checks pass it to checks_set_schema() */
extern const struct checks_schema fact_catalog_schema;
/* `list --facts`: name, type and probe of every declaration, in run order */
void fact_catalog_print(FILE *out);

#endif
