/* fuzz_checks.c - the checks.yaml loader (src/checks_yaml.c through
 * checks_load_string): YAML, the schema, every rule parsed and type-checked
 * against the fact catalogue, placeholders, data tables. */
#include "../../src/checks.h"
#include "fuzz.h"

#ifdef RVD_FUZZING
/* Issue 8 lists bugs of the loader being fixed on another branch: a second
 * top-level `checks:` key overflows the check array, aliases multiply memory
 * and very deep flow nesting is quadratic inside libyaml. Fuzzing skips
 * inputs of those shapes so that it reaches the rest of the loader; the
 * replay (make test) never skips, and tests/fuzz/pending/checks/ holds their
 * reproducers until the fix is merged. Remove this filter with that merge. */
static int known_unfixed(const uint8_t *d, size_t n)
{
    size_t checks_keys = 0, open = 0, aliases = 0, anchors = 0;
    for (size_t i = 0; i < n; i++) {
        if ((i == 0 || d[i - 1] == '\n') && n - i >= 6 && memcmp(d + i, "checks", 6) == 0)
            checks_keys++;
        open += d[i] == '[' || d[i] == '{';
        aliases += d[i] == '*';
        anchors += d[i] == '&';
    }
    return checks_keys > 1 || open > 512 || (anchors && aliases > 32);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef RVD_FUZZING
    if (known_unfixed(data, size))
        return 0;
#endif
    struct checkset cs;
    /* the loader releases what it built when it fails */
    if (checks_load_string(&cs, "fuzz.yaml", (const char *)data, size) == 0)
        checks_release(&cs);
    return 0;
}
