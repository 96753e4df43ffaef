/* report_json.c - placeholder */
#include "report.h"

int report_json_write(FILE *out, const struct report_meta *m, const struct factset *fs,
                      const struct results *r)
{
    (void)out; (void)m; (void)fs; (void)r;
    return 0;
}

int report_junit_write(FILE *out, const struct report_meta *m, const struct results *r)
{
    (void)out; (void)m; (void)r;
    return 0;
}
