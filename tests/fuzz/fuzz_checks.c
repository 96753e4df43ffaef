/* fuzz_checks.c - the checks.yaml loader (src/core/checks_yaml.c through
 * checks_load_string): YAML, the schema, every rule parsed and type-checked
 * against the fact catalogue, placeholders, data tables. */
#include "../../probes/fact_catalog.h"
#include "../../src/core/checks.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct checkset cs;
    checks_set_schema(&fact_catalog_schema); /* what main() passes in */
    /* the loader releases what it built when it fails */
    if (checks_load_string(&cs, "fuzz.yaml", (const char *)data, size) == 0)
        checks_release(&cs);
    return 0;
}
