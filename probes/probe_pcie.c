/* probe_pcie.c - placeholder until the probe is written */
#include "probe.h"

int probe_pcie_run(struct probe_ctx *ctx);

int probe_pcie_run(struct probe_ctx *ctx)
{
    (void)ctx;
    return 0;
}
