/* fuzz_requirements.c - pip requirements files (probes/probe_requirements.c):
 * comments, continuations, CRLF, markers, options, name normalisation and
 * the CUDA-only package rules. */
#include "../../probes/probe_python.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct requirements_scan scan = REQUIREMENTS_SCAN_INIT;
    requirements_scan_text((const char *)data, size, &scan);
    requirements_scan_release(&scan);
    /* the name helpers on the raw bytes as one name */
    char *name = requirements_normalize_name((const char *)data, strnlen((const char *)data, size));
    if (name) {
        requirements_cuda_name(name);
        free(name);
    }
    return 0;
}
