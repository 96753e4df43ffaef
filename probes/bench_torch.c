/* bench_torch.c - `bench --torch` (probe_torch.h). The torch columns are the probe's
 * facts (p50 ms); a column whose facts are unknown prints its reason once
 * under the table, never a number that was not measured. */
#include "probe_torch.h"

#include <string.h>
#include <unistd.h>

#include "../src/core/fact.h"
#include "probe_torch.h"

static const char *const modes[] = {"eager", "graph", "compiled"};
static const char *const stage_keys[] = {"vision_ms", "prefix_ms", "step_ms", "post_ms",
                                         "total_ms"};

static void cell(FILE *f, const struct factset *fs, const char *mode, const char *key)
{
    char name[FACT_NAME_MAX];
    snprintf(name, sizeof(name), "torch.latency.%s.%s", mode, key);
    const struct fact *x = fact_get(fs, name);
    if (x && x->type == FACT_FLOAT)
        fprintf(f, " %14.3f", x->f);
    else
        fprintf(f, " %14s", "-");
}

static const char *str_fact(const struct factset *fs, const char *name)
{
    const struct fact *x = fact_get(fs, name);
    return x && x->type == FACT_STR ? x->s : x && x->reason ? x->reason : "unknown";
}

void probe_bench_torch(FILE *f, const char *python, const struct vla_preset *p,
                       const struct vla_gpu_out *g)
{
    struct factset fs = FACTSET_INIT;
    fflush(f);
    /* a preset file by its path, a built-in one by its name */
    probe_torch_collect(&fs, python ? python : "python3",
                        p->source && access(p->source, R_OK) == 0 ? p->source : p->name, 0);
    const struct fact *av = fact_get(&fs, "torch.available");
    if (!av || av->type != FACT_BOOL || !av->b) {
        fprintf(f, "\nPyTorch: not measured: %s\n", str_fact(&fs, "torch.why"));
        factset_release(&fs);
        return;
    }
    fprintf(f, "\nPyTorch %s (%s%s) on %s, %s: attention %s, BLAS %s, TunableOp %s\n",
            str_fact(&fs, "torch.version"), *str_fact(&fs, "torch.hip") ? "HIP " : "CUDA ",
            *str_fact(&fs, "torch.hip") ? str_fact(&fs, "torch.hip") : str_fact(&fs, "torch.cuda"),
            str_fact(&fs, "torch.device.name"), str_fact(&fs, "torch.device.pci"),
            str_fact(&fs, "torch.sdpa_backend"), str_fact(&fs, "torch.blas"),
            fact_get(&fs, "torch.tunableop") && fact_get(&fs, "torch.tunableop")->type == FACT_BOOL
                ? (fact_get(&fs, "torch.tunableop")->b ? "on" : "off")
                : "unknown");
    int ns = g->nstages - 1;
    double step = 0;
    for (int s = 2; s < ns - 1; s++)
        step = g->stage[s].p50 > step ? g->stage[s].p50 : step;
    double doc[5] = {g->stage[0].p50, g->stage[1].p50, step, g->stage[ns - 1].p50,
                     g->stage[ns].p50};
    fprintf(f, "  %-10s %14s %14s %14s %14s\n", "stage (ms)", "doctor", "torch eager",
            "torch graph", "torch compiled");
    static const char *const label[] = {"vision", "prefix", "step (max)", "post", "total"};
    for (int i = 0; i < 5; i++) {
        fprintf(f, "  %-10s %14.3f", label[i], doc[i] * 1e3);
        for (int m = 0; m < 3; m++)
            cell(f, &fs, modes[m], stage_keys[i]);
        fputc('\n', f);
    }
    const char *ge = str_fact(&fs, "torch.graph_error");
    if (*ge)
        fprintf(f, "  graph: %s\n", ge);
    const struct fact *co = fact_get(&fs, "torch.compile.ok");
    if (!co || co->type != FACT_BOOL || !co->b)
        fprintf(f, "  torch.compile: %s\n", str_fact(&fs, "torch.compile.error"));
    const struct fact *pm = fact_get(&fs, "torch.peak_memory_bytes");
    const struct fact *nc = fact_get(&fs, "torch.numerics.cosine");
    if (pm && pm->type == FACT_INT)
        fprintf(f, "  torch peak memory %.2f GiB", (double)pm->i / (1u << 30));
    if (nc && nc->type == FACT_FLOAT)
        fprintf(f, "; bf16 vs fp32 cosine %.6f", nc->f);
    const struct fact *sc = fact_get(&fs, "torch.shared.cosine");
    if (sc && sc->type == FACT_FLOAT)
        fprintf(f, "; fp32 vs the doctor on tiny cosine %.9f", sc->f);
    fputc('\n', f);
    factset_release(&fs);
}
