/* fuzz_torch_answer.c - the user's interpreter's answer to the torch probe
 * (probes/probe_torch.c probe_torch_answer): an input is stdout (one JSON
 * object: versions, device, kernels, latencies, numerics, "nonfinite"),
 * then a NUL, then stderr (its last line goes into torch.error), then a
 * NUL and one byte that says whether the child failed (a reason is given,
 * so stderr is read) and whether the doctor's shared actions are there.
 * Every fact it sets must be of a catalogue type and every float finite. */
#include <math.h>

#include "../../probes/probe_torch.h"
#include "../../src/core/fact.h"
#include "../../src/core/util.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t pos = 0;
    char *out = fuzz_part(data, size, &pos), *err = fuzz_part(data, size, &pos);
    char *mode = fuzz_part(data, size, &pos);
    struct strbuf ob = STRBUF_INIT, eb = STRBUF_INIT;
    if (out && *out)
        strbuf_adds(&ob, out);
    if (err && *err)
        strbuf_adds(&eb, err);
    int failed = mode && (mode[0] & 1), shared = mode && (mode[0] & 2);
    float doc[32];
    for (int i = 0; i < 32; i++)
        doc[i] = (float)i / 8.0f;
    struct factset fs = FACTSET_INIT;
    probe_torch_answer(&fs, "/usr/bin/python3", failed ? "exit status 1" : NULL, &ob, &eb,
                       shared ? doc : NULL, shared ? 32 : 0);
    for (size_t i = 0; i < fs.n; i++)
        if (fs.v[i]->type == FACT_FLOAT && !isfinite(fs.v[i]->f))
            abort(); /* a non-finite figure must be unknown, never a value */
    factset_release(&fs);
    strbuf_release(&ob);
    strbuf_release(&eb);
    free(out);
    free(err);
    free(mode);
    return 0;
}
