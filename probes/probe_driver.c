/* probe_driver.c - placeholder until the probe is written */
#include "probe.h"

int probe_driver_run(struct probe_ctx *ctx);

int probe_driver_run(struct probe_ctx *ctx)
{
    (void)ctx;
    return 0;
}
