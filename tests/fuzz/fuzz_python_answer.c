/* fuzz_python_answer.c - the Python interpreter's answer (the "python"
 * query: torch version and build, HIP version, installed distributions) as
 * probe_python.c parses it, on a copy of the rx7900xtx-desktop fixture whose
 * /.snapshot/python is the input (first byte: the file, see sysroot_fuzz.h),
 * and the torch version parser on the raw input. */
#include "../../probes/probe_python.h"
#include "sysroot_fuzz.h"

static const char *const targets[] = {"/.snapshot/python", NULL};

static const char *const probes[] = {"env", "python", NULL};

static const struct sysroot_fuzz sf = {"rx7900xtx-desktop", targets, probes};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct python_torch_version v;
    memset(&v, 0, sizeof(v));
    if (python_parse_torch_version(text, &v) == 0) {
        python_torch_build(&v);
        free(python_torch_hip_series(&v));
    }
    python_torch_version_release(&v);
    free(text);
    return sysroot_fuzz_one(&sf, data, size);
}
