/* fuzz_sweep_report.c - the `bench --sweep` report reader and renderers
 * (src/report/report_sweep.c): any JSON document is checked as a sweep
 * report; a valid one is rendered as the HTML page and the markdown table
 * (to /dev/null). Input: the JSON text. */
#include <stdio.h>

#include "../../src/report/report_sweep.h"
#include "fuzz.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    char err[160];
    struct json *root = json_parse((const char *)data, size, err, sizeof(err));
    if (!root)
        return 0;
    if (report_sweep_validate(root, "fuzz.json") == 0) {
        report_sweep_html(devnull, root);
        report_sweep_markdown(devnull, root);
    }
    json_free(root);
    return 0;
}
