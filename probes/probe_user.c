/* probe_user.c - placeholder until the probe is written */
#include "probe.h"

int probe_user_run(struct probe_ctx *ctx);

int probe_user_run(struct probe_ctx *ctx)
{
    (void)ctx;
    return 0;
}
