/* probe_container.c - placeholder until the probe is written */
#include "probe.h"

int probe_container_run(struct probe_ctx *ctx);

int probe_container_run(struct probe_ctx *ctx)
{
    (void)ctx;
    return 0;
}
