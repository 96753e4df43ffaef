/* fuzz_fact_wire.c - the isolation pipe's fact records (src/core/fact_wire.c):
 * parse, then encode every accepted fact and parse the encoding again, which
 * must give the same number of facts (the round trip the pipe relies on). */
#include <stdio.h>

#include "../../src/core/fact_wire.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct factset fs = FACTSET_INIT;
    fact_wire_parse(&fs, (const char *)data, size);
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < fs.n; i++)
        fact_wire_encode(&sb, fs.v[i]);
    struct factset again = FACTSET_INIT;
    int n = fact_wire_parse(&again, sb.buf ? sb.buf : "", sb.len);
    if ((size_t)n != fs.n || again.n != fs.n) {
        fprintf(stderr, "fuzz_fact_wire: %zu facts encoded, %d parsed back\n", fs.n, n);
        abort();
    }
    for (size_t i = 0; i < fs.n; i++) {
        char *a = fact_to_text(fs.v[i]);
        const struct fact *g = fact_get(&again, fs.v[i]->name);
        char *b = g ? fact_to_text(g) : NULL;
        if (!b || strcmp(a, b) != 0 || g->type != fs.v[i]->type) {
            fprintf(stderr, "fuzz_fact_wire: %s changed in the round trip\n", fs.v[i]->name);
            abort();
        }
        free(a);
        free(b);
    }
    strbuf_release(&sb);
    factset_release(&again);
    factset_release(&fs);
    return 0;
}
